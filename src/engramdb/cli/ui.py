"""``engramdb ui``: serve the local store with the web UI and open it in a browser.

The server listens on 127.0.0.1 only. The UI signs in with an API key: the command mints one
for the local default user (named ``engramdb ui``), hands it to the page in the URL's fragment
(``#key=...``, which a browser never sends to a server; the page moves it into its session
storage and removes it from the address bar) and revokes it when the server stops.
"""

from __future__ import annotations

import socket
import webbrowser
from collections.abc import Callable
from typing import Annotated, Any

import typer

from engramdb.cli.options import DataDirOpt

__all__ = ["KEY_NAME", "register", "ui_url"]

#: Name of the key ``engramdb ui`` mints for its own session.
KEY_NAME = "engramdb ui"


def ui_url(host: str, port: int, key: str) -> str:
    """The address that opens the UI signed in with ``key``."""
    from engramdb.server.api_docs import UI_PATH

    return f"http://{host}:{port}{UI_PATH}/#key={key}"


def register(app: typer.Typer, run: Callable[[Any], Any], configure: Callable[..., None]) -> None:
    """Add ``ui`` to ``app`` (``run`` and ``configure`` are the CLI's own)."""

    @app.command("ui")
    def ui_command(
        port: Annotated[
            int, typer.Option("--port", "-p", help="TCP port on 127.0.0.1 (0: any free one).")
        ] = 8765,
        no_browser: Annotated[
            bool, typer.Option("--no-browser", help="Only print the address, open nothing.")
        ] = False,
        data_dir: DataDirOpt = None,
    ) -> None:
        """Open the web UI on the local store (a server on 127.0.0.1 until Ctrl-C)."""
        try:
            import uvicorn
        except ModuleNotFoundError:
            typer.secho(
                "error: 'engramdb ui' needs the server extra: pip install 'engramdb[server]'",
                fg=typer.colors.RED,
                err=True,
            )
            raise typer.Exit(code=2) from None

        from engramdb.access.keys import create_api_key, revoke_api_key
        from engramdb.engine import Engine
        from engramdb.models.requests.access import CreateApiKeyRequest, RevokeApiKeyRequest
        from engramdb.server import create_app
        from engramdb.server.limits import Limits

        configure(data_dir)

        minted: list[Any] = []

        async def main() -> None:
            engine = Engine()
            user = await engine.resolve_user(None)
            info, key = await create_api_key(
                engine, CreateApiKeyRequest(user_id=user.id, name=KEY_NAME)
            )
            minted.append(info)
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("127.0.0.1", port))
            url = ui_url("127.0.0.1", sock.getsockname()[1], key)
            typer.echo(f"engramdb UI: {url}")
            typer.echo("(Ctrl-C stops the server and revokes the key in that address)")
            if not no_browser and not webbrowser.open(url):
                typer.echo("no browser found: open the address above")
            limits = Limits()
            config = uvicorn.Config(
                create_app(engine, limits=limits),
                log_level="warning",
                lifespan="on",
                **limits.uvicorn_options(),
            )
            try:
                await uvicorn.Server(config).serve(sockets=[sock])
            finally:
                sock.close()

        async def revoke() -> None:
            engine = Engine()  # the app closed its own engine when it stopped
            try:
                await revoke_api_key(engine, RevokeApiKeyRequest(key_id=minted[0].id))
            finally:
                await engine.close()

        try:
            run(main())
        except KeyboardInterrupt:  # uvicorn hands Ctrl-C on after it stopped
            pass
        finally:
            if minted:
                run(revoke())
