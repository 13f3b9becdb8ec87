"""The ``engramdb`` command: a thin layer over the library."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from engramdb.cli.archive import register as register_archive
from engramdb.cli.cognee import register as register_cognee
from engramdb.cli.confirm import YesOpt, confirm
from engramdb.cli.framework import CliTyper
from engramdb.cli.messages import fail, render_error
from engramdb.cli.options import DataDirOpt, JsonOpt, dataset_ref
from engramdb.cli.runs import register as register_runs
from engramdb.cli.store import register as register_store
from engramdb.cli.tables import print_table
from engramdb.cli.ui import register as register_ui
from engramdb.errors import EngramError

__all__ = ["app", "main"]

T = TypeVar("T")

app = CliTyper(
    name="engramdb",
    help="Persistent memory for AI agents: remember, recall and forget, offline by default.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

SessionOpt = Annotated[
    str | None, typer.Option("--session", "-s", help="Session id (your conversation's name).")
]


RemoteOpt = Annotated[
    str | None,
    typer.Option(
        "--remote",
        envvar="ENGRAMDB_REMOTE_URL",
        help="Run every command against the engramdb server at this URL instead of a local "
        "data directory (or set ENGRAMDB_REMOTE_URL).",
    ),
]
ApiKeyOpt = Annotated[
    str | None,
    typer.Option(
        "--api-key",
        envvar="ENGRAMDB_API_KEY",
        help="API key for --remote (or set ENGRAMDB_API_KEY).",
    ),
]


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"engramdb {version('engramdb')}")
        raise typer.Exit()


VersionOpt = Annotated[
    bool,
    typer.Option(
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print the installed engramdb version and exit.",
    ),
]


@app.callback()
def _main(
    ctx: typer.Context,
    remote: RemoteOpt = None,
    api_key: ApiKeyOpt = None,
    version: VersionOpt = False,
) -> None:
    """Persistent memory for AI agents: remember, recall and forget, offline by default."""
    _json_logs()
    if remote is None:
        return
    from engramdb.remote import serve
    from engramdb.remote.switch import set_client

    serve(remote, api_key=api_key)  # the first command's call checks the server and the key
    ctx.call_on_close(lambda: set_client(None))


def _json_logs() -> None:
    """With ``LOG_FORMAT=json``, log JSON lines to stderr (the text default configures nothing;
    a bad setting is reported by the command that reads it)."""
    from engramdb.settings import config

    try:
        json_format = config.settings.log_format == "json"
    except EngramError:
        return
    if json_format:
        from engramdb.observability.logs import configure_logging

        configure_logging(config.settings)


def _run(coro: Coroutine[Any, Any, T]) -> T:
    try:
        return asyncio.run(coro)
    except EngramError as exc:
        fail(render_error(exc))


def _configure(data_dir: Path | None) -> None:
    from engramdb.settings import config

    if data_dir is not None:
        from engramdb.remote.switch import current_client

        if current_client() is not None:
            fail(
                "--data-dir and --remote exclude each other: the server uses its own data directory"
            )
        config.set_data_dir(data_dir)


def _dump(obj: Any) -> None:
    typer.echo(json.dumps(obj, indent=2, default=str, ensure_ascii=False))


@app.command()
def remember(
    inputs: Annotated[
        list[str],
        typer.Argument(help="Texts, files or directories to ingest ('-' reads stdin)."),
    ],
    dataset: Annotated[
        str, typer.Option("--dataset", "-d", help="Dataset to ingest into.")
    ] = "main_dataset",
    importance_weight: Annotated[
        float, typer.Option("--weight", "-w", help="importance_weight in [0, 1].")
    ] = 0.5,
    node_set: Annotated[
        list[str] | None, typer.Option("--node-set", help="Tag what this creates (repeatable).")
    ] = None,
    session: SessionOpt = None,
    no_improve: Annotated[
        bool,
        typer.Option("--no-improve", help="Skip the automatic improve after ingesting."),
    ] = False,
    as_json: JsonOpt = False,
    data_dir: DataDirOpt = None,
) -> None:
    """Ingest texts, files or directories into a dataset (with --session: store the texts as
    notes of that session instead)."""
    from engramdb.facade import remember_with_progress

    _configure(data_dir)
    items: list[str | Path] = []
    for raw in inputs:
        items.append(sys.stdin.read() if raw == "-" else raw)

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        transient=True,
        disable=as_json or not sys.stderr.isatty(),
        console=None,
    ) as bar:
        tasks = {stage: bar.add_task(stage, total=None) for stage in ("documents", "chunks")}

        def progress(stage: str, done: int, total: int) -> None:
            if stage in tasks:
                bar.update(tasks[stage], completed=done, total=total)

        result = _run(
            remember_with_progress(
                items,
                dataset,
                importance_weight=importance_weight,
                node_set=node_set,
                session_id=session,
                self_improvement=not no_improve,
                progress=progress,
            )
        )
    if as_json:
        _dump(result.model_dump(mode="json"))
        return
    if result.status == "session_stored":
        typer.echo(f"session_stored: {len(result.entry_ids)} note(s) in session {session!r}")
        return
    c = result.counts
    typer.echo(
        f"{result.status}: dataset {result.dataset_name!r} — {c.get('documents', 0)} ingested, "
        f"{c.get('skipped', 0)} skipped, {c.get('chunks', 0)} chunks "
        f"in {result.timings.get('total', 0):.2f}s"
    )


@app.command()
def recall(
    query: Annotated[str, typer.Argument(help="The question or search text.")],
    query_type: Annotated[
        str | None,
        typer.Option("--type", "-t", help="Search type, e.g. CHUNKS or CHUNKS_LEXICAL."),
    ] = None,
    dataset: Annotated[
        list[str] | None, typer.Option("--dataset", "-d", help="Dataset name (repeatable).")
    ] = None,
    top_k: Annotated[int, typer.Option("--top-k", "-k", help="How many results.")] = 5,
    only_context: Annotated[
        bool,
        typer.Option(
            "--only-context", help="Print the retrieved context (or prompt) without an LLM call."
        ),
    ] = False,
    session: SessionOpt = None,
    as_json: JsonOpt = False,
    data_dir: DataDirOpt = None,
) -> None:
    """Search memory and print what was found, best first (with --session: also the session's
    history, and the turn is recorded in it). Exits 1 when memory reports a failed build."""
    from engramdb.facade import recall as do_recall

    _configure(data_dir)
    results = _run(
        do_recall(
            query,
            query_type,
            datasets=dataset,
            top_k=top_k,
            session_id=session,
            only_context=only_context,
        )
    )
    failed = [r for r in results if r.source == "system" and r.status == "build_failed"]
    if as_json:
        _dump([r.model_dump(mode="json") for r in results])
    else:
        _print_results(results)
    if failed:
        raise typer.Exit(code=1)


def _print_results(results: list[Any]) -> None:
    if not results:
        typer.echo("nothing found")
    for i, r in enumerate(results, 1):
        score = getattr(r, "score", None)
        head = f"[{i}]" + (f" distance={score:.3f}" if score is not None else "")
        meta = getattr(r, "metadata", {}) or {}
        if meta.get("document_name"):
            head += f"  {meta['document_name']}#{meta.get('chunk_index', 0)}"
        if r.source == "session":
            head += f"  session turn {r.qa_id}"
        text = getattr(r, "text", None) or getattr(r, "answer", "") or getattr(r, "context", "")
        typer.echo(head)
        typer.echo("    " + str(text).replace("\n", "\n    "))


@app.command()
def improve(
    dataset: Annotated[
        str, typer.Argument(help="Dataset name (yours) or id (yours or granted write).")
    ] = "main_dataset",
    session: Annotated[
        list[str] | None,
        typer.Option("--session", "-s", help="Bridge this session (repeatable)."),
    ] = None,
    no_index: Annotated[
        bool, typer.Option("--no-index", help="Skip the global context index stage.")
    ] = False,
    no_conflicts: Annotated[
        bool, typer.Option("--no-conflicts", help="Skip the conflict review stage (LLM).")
    ] = False,
    as_json: JsonOpt = False,
    data_dir: DataDirOpt = None,
) -> None:
    """Enrich a dataset: run the nine improve stages and print what each did."""
    from engramdb.facade import improve as do_improve

    _configure(data_dir)
    ref = dataset_ref(dataset)
    result = _run(
        do_improve(
            ref,
            session_ids=session or None,
            build_global_context_index=False if no_index else None,
            review_conflicts=False if no_conflicts else None,
        )
    )
    if as_json:
        _dump(result.model_dump(mode="json"))
        return
    typer.echo(f"improve {result.dataset_name}: {result.status}")
    for stage in result.stages:
        detail = stage.reason or stage.error or ""
        counts = ", ".join(f"{k} {v}" for k, v in stage.counts.items() if v)
        line = f"  {stage.stage:<24} {stage.status:<18} {detail}"
        typer.echo((line + (f" ({counts})" if counts else "")).rstrip())


@app.command()
def forget(
    everything: Annotated[
        bool, typer.Option("--everything", help="Delete every dataset you own.")
    ] = False,
    dataset: Annotated[
        str | None, typer.Option("--dataset", "-d", help="Delete one dataset (name or id).")
    ] = None,
    data_id: Annotated[
        str | None, typer.Option("--data-id", help="Delete one ingested item by id.")
    ] = None,
    yes: YesOpt = False,
    as_json: JsonOpt = False,
    data_dir: DataDirOpt = None,
) -> None:
    """Delete everything, one dataset, or one ingested item (asks first; --yes skips)."""
    from engramdb.facade import forget as do_forget

    _configure(data_dir)
    if everything:
        confirm("Delete every dataset you own, with all their data?", yes=yes)
    elif dataset is not None:
        confirm(f"Delete dataset {dataset!r} with all its data?", yes=yes)
    elif data_id is not None:
        confirm(f"Delete the ingested item {data_id}?", yes=yes)
    ref = dataset_ref(dataset) if dataset is not None else None
    result = _run(do_forget(everything=everything, dataset=ref, data_id=data_id))
    if as_json:
        _dump(result.model_dump(mode="json"))
        return
    typer.echo(
        f"deleted {result.datasets} dataset(s), {result.data_records} item(s), "
        f"{result.nodes} node(s), {result.vectors} vector(s)"
    )


@app.command()
def datasets(as_json: JsonOpt = False, data_dir: DataDirOpt = None) -> None:
    """List your datasets."""
    from engramdb.facade import list_datasets

    _configure(data_dir)
    found = _run(list_datasets())
    if as_json:
        _dump([d.model_dump(mode="json") for d in found])
        return
    if not found:
        typer.echo("no datasets yet: run 'engramdb remember \"some text\"'")
        return
    print_table(
        ("dataset", "id", "created", "embedding model"),
        ((d.name, d.id, f"{d.created_at:%Y-%m-%d %H:%M}", d.embedding_model) for d in found),
    )


@app.command()
def demo(data_dir: DataDirOpt = None) -> None:
    """Remember three facts and recall them, offline (the README's first command)."""
    from engramdb.cli.demo import run_demo

    _configure(data_dir)
    _run(run_demo())


@app.command()
def visualize(
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="HTML file to write (default: ./graph.html)."),
    ] = None,
    dataset: Annotated[
        list[str] | None,
        typer.Option("--dataset", "-d", help="Dataset name (repeatable; default: all)."),
    ] = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Write the knowledge graph as one interactive HTML page that works offline."""
    from engramdb.facade import visualize_graph

    _configure(data_dir)
    typer.echo(_run(visualize_graph(output, datasets=dataset)))


sessions_app = CliTyper(
    name="session",
    help="Show, rate and delete session entries (conversations recorded by recall --session).",
    no_args_is_help=True,
)
app.add_typer(sessions_app, name="session")


@sessions_app.command("list")
def session_list(as_json: JsonOpt = False, data_dir: DataDirOpt = None) -> None:
    """List your sessions, most recently active first."""
    from engramdb import session as session_api

    _configure(data_dir)
    found = _run(session_api.list_sessions())
    if as_json:
        _dump([s.model_dump(mode="json") for s in found])
        return
    if not found:
        typer.echo("no sessions yet: run 'engramdb recall \"a question\" --session chat-1'")
        return
    print_table(
        ("session", "last active (UTC)"),
        ((s.session_id, f"{s.updated_at:%Y-%m-%d %H:%M}") for s in found),
    )


@sessions_app.command("show")
def session_show(
    session_id: Annotated[str, typer.Argument(help="The session id.")],
    last_n: Annotated[
        int | None, typer.Option("--last", "-n", help="Only the latest N entries.")
    ] = None,
    as_json: JsonOpt = False,
    data_dir: DataDirOpt = None,
) -> None:
    """Print a session's Q&A entries, oldest first, with their qa_id and rating."""
    from engramdb import session as session_api

    _configure(data_dir)
    entries = _run(session_api.get_session(session_id, last_n))
    if as_json:
        _dump([e.model_dump(mode="json") for e in entries])
        return
    if not entries:
        typer.echo(f"session {session_id!r} has no entries")
    for e in entries:
        rating = "-" if e.feedback_score is None else str(e.feedback_score)
        typer.echo(f"{e.qa_id}  {e.time}  rating={rating}")
        if e.question:
            typer.echo(f"    Q: {e.question}")
        if e.answer:
            typer.echo("    A: " + e.answer.replace("\n", "\n       "))


@sessions_app.command("feedback")
def session_feedback(
    session_id: Annotated[str, typer.Argument(help="The session id.")],
    qa_id: Annotated[str, typer.Argument(help="The entry's qa_id (see 'session show').")],
    score: Annotated[
        int | None, typer.Option("--score", help="Rating 1..5 (3 is neutral).")
    ] = None,
    text: Annotated[str | None, typer.Option("--text", help="Feedback in words.")] = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Rate an answer of a session from 1 (bad) to 5 (good)."""
    from engramdb import session as session_api

    _configure(data_dir)
    _run(session_api.add_feedback(session_id, qa_id, feedback_score=score, feedback_text=text))
    typer.echo("feedback saved")


@sessions_app.command("delete")
def session_delete(
    session_id: Annotated[str, typer.Argument(help="The session id.")],
    yes: YesOpt = False,
    data_dir: DataDirOpt = None,
) -> None:
    """Delete a session with every entry in it (asks first; --yes skips)."""
    from engramdb import session as session_api

    _configure(data_dir)
    confirm(f"Delete session {session_id!r} with every entry in it?", yes=yes)
    deleted = _run(session_api.delete_session(session_id))
    typer.echo("deleted" if deleted else f"no session {session_id!r}")


# Registered last: the group's module imports the helpers above.
from engramdb.cli.users import users_app  # noqa: E402

app.add_typer(users_app, name="users")


def _require_server_extra(command: str, modules: tuple[str, ...]) -> None:
    """One line naming the extra to install (exit 2) when a server dependency is missing."""
    import importlib.util

    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        typer.secho(
            f"error: 'engramdb {command}' needs the server extra (missing: {', '.join(missing)}): "
            "pip install 'engramdb[server]'",
            fg=typer.colors.RED,
            err=True,
        )
        raise typer.Exit(code=2)


@app.command()
def serve(
    host: Annotated[str, typer.Option("--host", help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", "-p", help="TCP port.")] = 8000,
    data_dir: DataDirOpt = None,
) -> None:
    """Start the REST API server (every route but /health needs an API key; see docs/server.md)."""
    _require_server_extra("serve", ("fastapi", "uvicorn", "multipart", "fastapi_offline"))
    from engramdb.server import run

    _configure(data_dir)
    run(host, port)


@app.command("mcp")
def mcp_command(
    transport: Annotated[
        str, typer.Option("--transport", "-t", help="'stdio' (default) or 'http'.")
    ] = "stdio",
    host: Annotated[str, typer.Option("--host", help="Interface (http only).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", "-p", help="TCP port (http only).")] = 8001,
    api_key: Annotated[
        str | None,
        typer.Option(
            "--api-key",
            envvar="ENGRAMDB_API_KEY",
            help="stdio: run as this key's user (default: the local default user).",
        ),
    ] = None,
    allow_files: Annotated[
        bool,
        typer.Option(
            "--allow-files",
            help="stdio: let the remember tool read files and folders named in a text "
            "(off by default; never over http).",
        ),
    ] = False,
    data_dir: DataDirOpt = None,
) -> None:
    """Start the MCP server (tools: remember, recall, improve, forget, feedback)."""
    _require_server_extra("mcp", ("mcp", "uvicorn"))
    from engramdb.mcp_server import run

    _configure(data_dir)
    if transport not in ("stdio", "http"):
        typer.secho("error: --transport must be 'stdio' or 'http'", fg=typer.colors.RED, err=True)
        raise typer.Exit(code=2)
    if allow_files and transport != "stdio":
        typer.secho(
            "error: --allow-files is for --transport stdio only", fg=typer.colors.RED, err=True
        )
        raise typer.Exit(code=2)
    run(transport, host=host, port=port, api_key=api_key, allow_files=allow_files)


register_cognee(app)
register_store(app, _run, _configure)
register_archive(app, _run, _configure)
register_ui(app, _run, _configure)
register_runs(app, _run, _configure)


def main() -> None:
    app()
