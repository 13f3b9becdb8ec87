"""The code graph indexing a source tree (by default this repository's own ``src/``).

Run from the repository root::

    .venv/bin/python bench/code_graph.py                      # src/ of this repository
    .venv/bin/python bench/code_graph.py path/to/tree --queries 200 --json bench/results/cg.json

The tree's source files (``.py``, and ``.js``/``.ts`` with the ``code`` extra) are copied to a
temporary directory first (other files are left out, so only the code graph is timed), then:

* **baseline**: read every file and ``ast.parse`` it (Python files) -- what parsing alone costs;
* **parse**: engramdb's parsers over the same files (symbols and references, nothing stored);
* **index**: ``remember(tree)`` into a fresh embedded store -- files/s, nodes and edges stored;
* **load**: the first read of the graph (stored edges + cross-file references resolved);
* **re-index unchanged** and **re-index one changed file** (incremental: what is parsed);
* **impact_analysis** and **explore** latency through ``recall(scope=["code"])`` over the
  ``--queries`` symbols with the most dependents (median and p95 over all calls).
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    format_table,
    isolated_engramdb,
    latency_summary,
    load_note,
    pin_cores,
    write_json,
)

ROOT = Path(__file__).resolve().parents[1]


def _copy_sources(src: Path, dest: Path) -> list[Path]:
    from engramdb.code.discover import CODE_SUFFIXES, split_code_inputs

    roots, _rest = split_code_inputs(src)
    copied: list[Path] = []
    for root in roots:
        for relative, absolute in root.files:
            if absolute.suffix.lower() not in CODE_SUFFIXES:
                continue
            target = dest / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(absolute, target)
            copied.append(target)
    return copied


def _baseline(files: list[Path]) -> float:
    started = time.perf_counter()
    for path in files:
        raw = path.read_bytes()
        if path.suffix == ".py":
            ast.parse(raw)
    return time.perf_counter() - started


def _parse_only(files: list[Path], root: Path) -> tuple[float, int, int]:
    from engramdb.code.index import parse_file

    started = time.perf_counter()
    symbols = refs = 0
    for path in files:
        parsed = parse_file(path.relative_to(root).as_posix(), path.read_bytes())
        symbols += len(parsed.symbols)
        refs += sum(len(s.refs) for s in parsed.symbols)
    return time.perf_counter() - started, symbols, refs


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    import engramdb
    from engramdb.code.snapshot import load_graph
    from engramdb.engine import get_engine

    work = Path(tempfile.mkdtemp(prefix="engramdb-codegraph-")) / Path(args.path).resolve().name
    files = _copy_sources(Path(args.path).resolve(), work)
    if not files:
        raise SystemExit(f"no source files under {args.path}")
    baseline = _baseline(files)
    parse_seconds, symbols, refs = _parse_only(files, work)
    out: dict[str, Any] = {"files": len(files), "baseline_ast_parse_s": baseline}
    async with isolated_engramdb("fake"):
        started = time.perf_counter()
        result = await engramdb.remember(work, dataset_name="code", self_improvement=False)
        index_seconds = time.perf_counter() - started
        store = get_engine().store
        dataset_id = result.dataset_id
        started = time.perf_counter()
        graph = await load_graph(store, dataset_id)
        load_seconds = time.perf_counter() - started
        stored_edges = sum(1 for e in graph.edges if e["type"] in ("contains", "has_method"))
        started = time.perf_counter()
        await engramdb.remember(work, dataset_name="code", self_improvement=False)
        unchanged_seconds = time.perf_counter() - started
        victim = max(files, key=lambda p: p.stat().st_size)
        victim.write_text(
            victim.read_text(encoding="utf-8") + "\n\ndef _bench_added():\n    return 1\n"
        )
        started = time.perf_counter()
        changed = await engramdb.remember(work, dataset_name="code", self_improvement=False)
        changed_seconds = time.perf_counter() - started
        graph = await load_graph(store, dataset_id)
        dependents = sorted(
            (n for n in graph.nodes if graph.nodes[n]["type"] == "CodeSymbol"),
            key=lambda n: (-len(graph.reverse.get(n, [])), n),
        )[: args.queries]
        impact: list[float] = []
        explore: list[float] = []
        for node_id in dependents:
            for bucket, query in (
                (impact, {"operation": "impact_analysis", "id": node_id}),
                (explore, {"operation": "explore", "id": node_id}),
            ):
                started = time.perf_counter()
                await engramdb.recall("x", scope=["code"], code_query=query)
                bucket.append(time.perf_counter() - started)
    shutil.rmtree(work.parent, ignore_errors=True)
    out.update(
        {
            "parse_s": parse_seconds,
            "parsed_symbols": symbols,
            "parsed_references": refs,
            "index_s": index_seconds,
            "files_per_s": len(files) / index_seconds,
            "nodes": len(graph.nodes),
            "edges": len(graph.edges),
            "edges_stored": stored_edges,
            "edges_resolved": len(graph.edges) - stored_edges,
            "load_s": load_seconds,
            "reindex_unchanged_s": unchanged_seconds,
            "reindex_one_file_s": changed_seconds,
            "reindex_one_file_parsed": changed.counts.get("code_files_parsed"),
            "impact_analysis": latency_summary(impact),
            "explore": latency_summary(explore),
            "index_over_ast_parse": index_seconds / baseline,
            "parse_over_ast_parse": parse_seconds / baseline,
        }
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", default=str(ROOT / "src"))
    parser.add_argument("--queries", type=int, default=100, help="symbols queried (default 100)")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    pin_cores(args.cores)
    print(load_note(args.cores))
    out = asyncio.run(_run(args))
    print(load_note(args.cores, "after"))
    rows = [
        ["files", out["files"]],
        ["baseline: read + ast.parse (s)", f"{out['baseline_ast_parse_s']:.3f}"],
        ["engramdb parsers only (s)", f"{out['parse_s']:.3f}"],
        ["index: remember(tree) (s)", f"{out['index_s']:.3f}"],
        ["index files/s", f"{out['files_per_s']:.1f}"],
        ["nodes", out["nodes"]],
        [
            "edges (stored + resolved)",
            f"{out['edges']} ({out['edges_stored']} + {out['edges_resolved']})",
        ],
        ["first graph load (s)", f"{out['load_s']:.3f}"],
        ["re-index, nothing changed (s)", f"{out['reindex_unchanged_s']:.3f}"],
        [
            "re-index, one file changed (s)",
            f"{out['reindex_one_file_s']:.3f} ({out['reindex_one_file_parsed']} file parsed)",
        ],
        ["impact_analysis p50 / p95 (ms)", _latency(out["impact_analysis"])],
        ["explore p50 / p95 (ms)", _latency(out["explore"])],
        ["index / ast.parse", f"{out['index_over_ast_parse']:.1f}x"],
        ["parsers / ast.parse", f"{out['parse_over_ast_parse']:.2f}x"],
    ]
    print(format_table(["code graph", "value"], rows))
    write_json(args.json, out)


def _latency(summary: dict[str, float]) -> str:
    return f"{summary['p50_ms']:.2f} / {summary['p95_ms']:.2f} (n={int(summary['n'])})"


if __name__ == "__main__":
    main()
