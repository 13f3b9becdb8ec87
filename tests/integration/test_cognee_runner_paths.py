"""Under ``engramdb run-cognee``, cognee's engine-object paths import as cognee lays them out:
a package name bound to its same-named submodule's object (``llm.LLMGateway``,
``graph.get_graph_engine``) stays that object after the submodule is imported by its path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import asyncio
from cognee.infrastructure.llm.LLMGateway import LLMGateway as A
from cognee.infrastructure.llm import LLMGateway as B
from cognee.infrastructure.databases.graph.get_graph_engine import get_graph_engine as G1
from cognee.infrastructure.databases.graph import get_graph_engine as G2
from cognee.infrastructure.session.get_session_manager import get_session_manager as S1
from cognee.infrastructure.session import get_session_manager as S2
from cognee.infrastructure.databases.relational.create_db_and_tables import (
    create_db_and_tables as C1,
)
from cognee.infrastructure.databases.relational import create_db_and_tables as C2
from cognee.infrastructure.databases.cache.config import get_cache_config
from cognee.context_global_variables import set_database_global_context_variables
from cognee.exceptions import CogneeConfigurationError
from cognee.memory import QAEntry, TraceEntry, SkillRunEntry
from cognee.run_migrations import run_migrations
import cognee

async def main():
    assert A is B and G1 is G2 and S1 is S2 and C1 is C2
    await C2()
    await run_migrations()
    await cognee.remember("Owls hunt at night.", dataset_name="birds")
    nodes, edges = await (await G2()).get_graph_data()
    print(len(nodes) > 0, len(edges) > 0, get_cache_config().caching)
    print(cognee.session.distill_session.__name__)

asyncio.run(main())
"""


def test_engine_object_paths_under_the_runner(tmp_path: Path) -> None:
    script = tmp_path / "program.py"
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EMBEDDING_", "LLM_"))}
    env.update(
        ENGRAMDB_DATA_DIR=str(tmp_path / "data"),
        EMBEDDING_PROVIDER="fake",
        EMBEDDING_DIMENSIONS="64",
    )
    done = subprocess.run(
        [sys.executable, "-m", "engramdb.compat.cognee", str(script)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["True True True", "distill_session"]
