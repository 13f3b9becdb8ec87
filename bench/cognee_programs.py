"""Real cognee programs, unmodified, on engramdb (``engramdb run-cognee``) and on cognee itself.

Run from the repository root::

    .venv/bin/python bench/cognee_programs.py --examples /path/to/cognee/examples
    .venv/bin/python bench/cognee_programs.py --examples DIR --cognee-python /venv/bin/python
    .venv/bin/python bench/cognee_programs.py --examples DIR --only permissions --show-output

The programs are cognee's own examples (its repository's ``examples/`` folder, read in place from
``--examples`` or ``$ENGRAMDB_COGNEE_EXAMPLES``; never copied into this repository). The programs
counted are those that need only an LLM endpoint and local storage: :data:`EXCLUDED` names the
others and what each needs that a laptop without services does not have.

Each program runs in a fresh process, in a scratch copy of the examples folder (programs read
data files next to themselves and write outputs there), with a fresh data directory, against one
local OpenAI-protocol server started here (``tests/support/openai_server.py`` answering every
chat request with :func:`tests.support.schema_answers.answer_chat`: JSON valid for the requested
schema, plain answers quoted from the request's context). Embeddings: engramdb's offline default;
cognee (``--cognee-python``, a Python with cognee installed) uses the server's ``/v1/embeddings``.

A program **completes** when it exits 0 within ``--timeout``. The last line of its standard error
(or output) is shown for the others. A completed program **answers from its data** when its output
(standard output and error) matches every pattern :data:`bench.cognee_program_answers.ANSWERS`
declares for it: phrases of its own data in the lines where it prints answers, so an empty
result, ``[]``, ``None`` or a swallowed error does not count (column ``data`` / ``NODATA``; a
program that prints no answer to check counts as answering, marked ``n/a``). Figures printed for
each system: completed / counted, and how many completed programs answer from their data.
``--show-output`` prints every program's output (the last 4000 characters).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.cognee_program_answers import ANSWERS  # noqa: E402
from tests.support.openai_server import OpenAIServer  # noqa: E402
from tests.support.schema_answers import answer_chat  # noqa: E402

#: Example programs not counted, with what each needs beyond an LLM endpoint and local storage.
EXCLUDED: dict[str, str] = {
    "guides/neo4j_example.py": "a Neo4j server",
    "guides/neptune_analytics_example.py": "AWS Neptune Analytics",
    "guides/s3_storage.py": "an S3 bucket",
    "guides/local_ollama_example.py": "Ollama's own API",
    "guides/video_processing_example.py": "a video transcription model",
    "guides/multimedia_audio_image_processing_example.py": "audio and image models",
    "guides/image_ocr_extraction.py": "an OCR / vision model",
    "guides/web_url_content_ingestion_example.py": "web crawling (network)",
    "guides/start_local_ui_frontend_example.py": "cognee's Next.js frontend",
    "guides/pgvector_example.py": "a PostgreSQL server",
    "guides/code_graph_example.py": "the Enola code-graph binary",
    "integrations/docker-sandbox-kit/demo/supervisor_worker_handover.py": "a Docker sandbox",
    "demos/sessions/session_feedback_lifecycle_demo/backend/app.py": "a web server, not a program "
    "that completes",
    "demos/ingestion_and_migration/complex_relational_database_migration_example/"
    "complex_relational_database_migration_example.py": "a PostgreSQL server",
    "demos/ingestion_and_migration/simple_relational_database_migration_example/"
    "simple_relational_database_migration_example.py": "a PostgreSQL server (it writes its "
    "source table there itself, through psycopg2)",
}

#: Settings a program asks its user for (its comments say where), given here from cognee's
#: repository next to ``--examples`` when it is there: program -> (variable, path under it).
PROGRAM_DATA: dict[str, tuple[str, str]] = {
    # "MIGRATION_DB_PATH=/{path_to_your_local_cognee}/cognee/tests/test_data"; its fallback
    # (examples/cognee/tests/test_data) does not exist in cognee's repository either
    "demos/custom_pipelines/relational_database_to_knowledge_graph_migration_example.py": (
        "MIGRATION_DB_PATH",
        "cognee/tests/test_data",
    ),
}

#: Settings a program refuses to run without (its own error message names them), given to both
#: systems: program -> environment.
PROGRAM_SETTINGS: dict[str, dict[str, str]] = {
    # "feedback_score_shifting_example requires caching=True and CACHE_BACKEND=fs."
    "demos/feedback/feedback_score_shifting_example.py": {"CACHING": "true", "CACHE_BACKEND": "fs"},
}

LLM_MODEL = "bench-model"
EMBEDDING_DIMENSION = 384


@dataclass
class Outcome:
    program: str
    system: str
    completed: bool
    seconds: float
    last_line: str
    output: str
    #: None when the program did not complete or no expectation is declared for it.
    data_answers: bool | None = None
    missing: tuple[str, ...] = ()


def check_answers(outcome: Outcome) -> Outcome:
    """Fill ``data_answers`` / ``missing`` from :data:`ANSWERS` for a completed program."""
    expected = ANSWERS.get(outcome.program)
    if outcome.completed and expected is not None:
        outcome.missing = tuple(
            p for p in expected if re.search(p, outcome.output, re.MULTILINE) is None
        )
        outcome.data_answers = not outcome.missing
    return outcome


def programs(examples: Path) -> list[str]:
    """Every counted program under ``examples``, as paths relative to it, sorted."""
    found = sorted(p.relative_to(examples).as_posix() for p in examples.rglob("*.py"))
    return [p for p in found if p not in EXCLUDED and not Path(p).name.startswith("_")]


def _clean_environ() -> dict[str, str]:
    prefixes = ("ENGRAMDB_", "LLM_", "EMBEDDING_", "COGNEE_", "GRAPH_", "VECTOR_", "DB_")
    return {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}


def tiktoken_cache(python: str) -> str:
    """litellm ships tiktoken's cl100k_base file; cognee's tokenizer would download it."""
    code = (
        "import importlib.util, os; "
        "print(os.path.join(os.path.dirname(importlib.util.find_spec('litellm').origin), "
        "'litellm_core_utils', 'tokenizers'))"
    )
    return subprocess.run([python, "-c", code], capture_output=True, text=True).stdout.strip()


def _environ(system: str, base_url: str, scratch: Path, extra: dict[str, str]) -> dict[str, str]:
    env = _clean_environ()
    env.update(
        HOME=str(scratch / "home"),
        PYTHONUNBUFFERED="1",
        LLM_API_KEY="bench-key",
        LLM_ENDPOINT=base_url,
        LLM_MODEL=LLM_MODEL,
    )
    if system == "engramdb":
        env["ENGRAMDB_DATA_DIR"] = str(scratch / "data")
    else:  # cognee: litellm's custom provider on the same server; no telemetry
        env.update(
            LLM_PROVIDER="custom",
            LLM_MODEL=f"openai/{LLM_MODEL}",
            EMBEDDING_PROVIDER="openai",
            EMBEDDING_MODEL="openai/text-embedding-3-small",
            EMBEDDING_ENDPOINT=base_url,
            EMBEDDING_API_KEY="bench-key",
            EMBEDDING_DIMENSIONS=str(EMBEDDING_DIMENSION),
            HUGGINGFACE_TOKENIZER="",
            SYSTEM_ROOT_DIRECTORY=str(scratch / "cognee_system"),
            DATA_ROOT_DIRECTORY=str(scratch / "cognee_data"),
            TELEMETRY_DISABLED="1",
            ENV="local",
        )
    env.update(extra)
    return env


def program_data(program: str, examples: Path) -> dict[str, str]:
    """The :data:`PROGRAM_SETTINGS` of ``program``, and its :data:`PROGRAM_DATA` setting when
    cognee's repository has it."""
    settings = dict(PROGRAM_SETTINGS.get(program, {}))
    if program not in PROGRAM_DATA:
        return settings
    variable, relative = PROGRAM_DATA[program]
    where = examples.parent / relative
    return {**settings, variable: str(where)} if where.exists() else settings


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


def run_one(
    program: str,
    system: str,
    command: list[str],
    examples: Path,
    base_url: str,
    timeout: float,
    extra: dict[str, str],
) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="cognee-program-") as tmp:
        scratch = Path(tmp)
        copy = scratch / "examples"
        shutil.copytree(examples, copy)
        (scratch / "home").mkdir()
        script = copy / program
        started = time.perf_counter()
        try:
            done = subprocess.run(
                [*command, str(script)],
                cwd=script.parent,
                env=_environ(
                    system, base_url, scratch, {**program_data(program, examples), **extra}
                ),
                capture_output=True,
                text=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
            )
            completed = done.returncode == 0
            output = done.stdout + done.stderr
            last = _last_line(done.stderr) or _last_line(done.stdout)
            if not completed:
                last = f"exit {done.returncode}: {last}"
        except subprocess.TimeoutExpired as exc:
            completed = False
            output = (
                (exc.stdout or b"").decode(errors="replace")
                if isinstance(exc.stdout, bytes)
                else str(exc.stdout or "")
            )
            last = f"timed out after {timeout:.0f} s"
        return Outcome(program, system, completed, time.perf_counter() - started, last, output)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=Path, default=os.environ.get("ENGRAMDB_COGNEE_EXAMPLES"))
    parser.add_argument("--cognee-python", help="a Python with cognee installed: run it too")
    parser.add_argument(
        "--systems", default="engramdb,cognee", help="which to run (cognee needs --cognee-python)"
    )
    parser.add_argument("--only", default="", help="run programs whose path contains this")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--show-output", action="store_true", help="print each program's output")
    parser.add_argument("--json", type=Path, help="write every outcome here")
    args = parser.parse_args(argv)
    if args.examples is None or not args.examples.is_dir():
        parser.error("--examples (or ENGRAMDB_COGNEE_EXAMPLES) must name cognee's examples folder")
    examples = args.examples.resolve()
    selected = [p for p in programs(examples) if args.only in p]
    systems: list[tuple[str, list[str], dict[str, str]]] = [
        ("engramdb", [sys.executable, "-m", "engramdb.compat.cognee"], {})
    ]
    if args.cognee_python:
        cache = {"TIKTOKEN_CACHE_DIR": tiktoken_cache(args.cognee_python)}
        systems.append(("cognee", [args.cognee_python], cache))
    systems = [s for s in systems if s[0] in args.systems.split(",")]
    print(f"{len(selected)} programs counted ({len(EXCLUDED)} excluded: see EXCLUDED)")
    outcomes: list[Outcome] = []
    with OpenAIServer(embedding_dimension=EMBEDDING_DIMENSION) as server:
        server.set_default("chat/completions", answer_chat)
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = [
                pool.submit(run_one, p, name, cmd, examples, server.base_url, args.timeout, extra)
                for p in selected
                for name, cmd, extra in systems
            ]
            for future in concurrent.futures.as_completed(futures):
                outcome = check_answers(future.result())
                outcomes.append(outcome)
                mark = "ok  " if outcome.completed else "FAIL"
                data = {True: "data  ", False: "NODATA", None: "  -   "}[outcome.data_answers]
                if outcome.data_answers and not ANSWERS[outcome.program]:
                    data = " n/a  "
                print(
                    f"{mark} {data} {outcome.system:8} {outcome.seconds:6.1f}s {outcome.program}"
                    + ("" if outcome.completed else f"\n        {outcome.last_line}")
                    + (f"\n        missing: {list(outcome.missing)}" if outcome.missing else ""),
                    flush=True,
                )
                if args.show_output:
                    print(outcome.output[-4000:])
    print()
    for name, _, _ in systems:
        mine = [o for o in outcomes if o.system == name]
        done = [o for o in mine if o.completed]
        answering = [o for o in done if o.data_answers]
        silent = [o for o in answering if not ANSWERS[o.program]]
        unchecked = [o for o in done if o.data_answers is None]
        print(
            f"{name}: {len(done)} of {len(mine)} programs completed; {len(answering)} of them "
            f"answer from their data ({len(silent)} print no answer to check"
            + (f"; {len(unchecked)} without a declared expectation" if unchecked else "")
            + ")"
        )
    if args.json:
        args.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
