"""Print the sha256 of the web UI's sources (ui/src, the configs and the lock file).

scripts/build-ui.sh records it next to the built bundle; a test recomputes it to catch a source
change that was not rebuilt.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

UI = Path(__file__).resolve().parent.parent / "ui"
FILES = (
    "package.json",
    "package-lock.json",
    "tsconfig.json",
    "vite.config.ts",
    "vite.graph.config.ts",
)


def source_hash(ui: Path = UI) -> str:
    """sha256 over the relative path and bytes of every source file, in sorted order."""
    digest = hashlib.sha256()
    paths = [ui / name for name in FILES] + sorted(
        p for p in (ui / "src").rglob("*") if p.is_file()
    )
    for path in paths:
        digest.update(path.relative_to(ui).as_posix().encode() + b"\0")
        digest.update(path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return digest.hexdigest()


if __name__ == "__main__":
    print(source_hash())
