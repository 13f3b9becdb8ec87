"""``python -m engramdb.compat.cognee script.py [args...]``: run a cognee program on engramdb."""

from __future__ import annotations

import sys

from engramdb.compat.cognee.runner import run_cognee_script


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m engramdb.compat.cognee script.py [args...]", file=sys.stderr)
        return 0 if argv else 2
    run_cognee_script(argv[0], argv[1:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
