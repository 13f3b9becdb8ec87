"""``engramdb users``: users, API keys and dataset grants, run against the local data directory.

The command line has direct access to the data directory, so it acts with the store's full
authority where the server would check an administrator: it creates users and keys, and
revokes any key. Granting and revoking dataset permissions still go through
:mod:`engramdb.access` as a user (``--as``, default: the default local user), so the usual rules
apply (only the owner or a ``share`` holder can grant).
"""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

import typer

from engramdb.cli import _configure, _dump, _run
from engramdb.cli.confirm import YesOpt, confirm
from engramdb.cli.framework import CliTyper
from engramdb.cli.options import DataDirOpt, JsonOpt
from engramdb.cli.tables import print_table
from engramdb.errors import NotFoundError
from engramdb.models.access import ApiKeyInfo, Grant, Permission
from engramdb.models.records import User

__all__ = ["users_app"]

users_app = CliTyper(
    name="users",
    help="Create users and API keys, and grant dataset permissions to other users.",
    no_args_is_help=True,
)
keys_app = CliTyper(
    name="keys",
    help="Create, list and revoke a user's API keys (for 'engramdb serve').",
    no_args_is_help=True,
)
users_app.add_typer(keys_app, name="keys")

EmailArg = Annotated[str, typer.Argument(help="The user's e-mail address.")]
DatasetArg = Annotated[str, typer.Argument(help="The dataset's id (see 'engramdb datasets').")]
PermissionArg = Annotated[str, typer.Argument(help="read, write, delete or share.")]
AsOpt = Annotated[
    str | None,
    typer.Option("--as", help="Act as this user (e-mail; default: the default local user)."),
]


async def _user(email: str) -> User:
    from engramdb.access.users import find_user
    from engramdb.engine import get_engine

    found = await find_user(get_engine(), email)
    if found is None:
        raise NotFoundError(
            f"No user with e-mail {email!r}; create one with 'engramdb users create {email}'."
        )
    return found


async def _actor(email: str | None) -> User | None:
    return None if email is None else await _user(email)


@users_app.command("create")
def users_create(
    email: EmailArg,
    admin: Annotated[
        bool, typer.Option("--admin", help="May create users and manage keys over the server.")
    ] = False,
    as_json: JsonOpt = False,
    data_dir: DataDirOpt = None,
) -> None:
    """Create a user."""
    from engramdb.facade import create_user

    _configure(data_dir)
    user = _run(create_user(email, is_admin=admin))
    if as_json:
        _dump(user.model_dump(mode="json"))
        return
    typer.echo(f"created user {user.email} (id {user.id}" + (", admin)" if user.is_admin else ")"))


@users_app.command("list")
def users_list(as_json: JsonOpt = False, data_dir: DataDirOpt = None) -> None:
    """List every user, oldest first."""
    from engramdb.facade import list_users

    _configure(data_dir)
    found = _run(list_users())
    if as_json:
        _dump([u.model_dump(mode="json") for u in found])
        return
    if not found:
        typer.echo("no users yet: run 'engramdb users create alice@example.com'")
        return
    print_table(
        ("e-mail", "id", "roles"),
        (
            (
                u.email,
                u.id,
                ", ".join(f for f, on in (("default", u.is_default), ("admin", u.is_admin)) if on),
            )
            for u in found
        ),
    )


@keys_app.command("create")
def keys_create(
    email: EmailArg,
    name: Annotated[str, typer.Option("--name", help="A label, e.g. 'laptop'.")] = "",
    as_json: JsonOpt = False,
    data_dir: DataDirOpt = None,
) -> None:
    """Create an API key for a user and print it (shown this once; only a hash is stored)."""
    from engramdb.facade import create_api_key

    _configure(data_dir)

    async def work() -> tuple[ApiKeyInfo, str]:
        user = await _user(email)
        created: tuple[ApiKeyInfo, str] = await create_api_key(user.id, name=name)
        return created

    info, key = _run(work())
    if as_json:
        _dump({**info.model_dump(mode="json"), "api_key": key})
        return
    typer.echo(key)
    typer.secho(
        "Store this key now: it is shown only once and cannot be recovered.",
        fg=typer.colors.YELLOW,
        err=True,
    )


@keys_app.command("list")
def keys_list(email: EmailArg, as_json: JsonOpt = False, data_dir: DataDirOpt = None) -> None:
    """List a user's API keys (their ids, prefixes and whether they are revoked)."""
    from engramdb.facade import list_api_keys

    _configure(data_dir)

    async def work() -> list[ApiKeyInfo]:
        user = await _user(email)
        keys: list[ApiKeyInfo] = await list_api_keys(user.id)
        return keys

    found = _run(work())
    if as_json:
        _dump([k.model_dump(mode="json") for k in found])
        return
    if not found:
        typer.echo(f"{email} has no API keys: run 'engramdb users keys create {email}'")
        return
    print_table(
        ("id", "prefix", "name", "state"),
        ((k.id, f"{k.prefix}…", k.name, "revoked" if k.revoked else "active") for k in found),
    )


@keys_app.command("revoke")
def keys_revoke(
    key_id: Annotated[str, typer.Argument(help="The key's id (see 'users keys list').")],
    yes: YesOpt = False,
    data_dir: DataDirOpt = None,
) -> None:
    """Revoke an API key at once, for good (asks first; --yes skips)."""
    from engramdb.engine import get_engine
    from engramdb.facade import revoke_api_key
    from engramdb.validation import validate_uuid

    _configure(data_dir)
    confirm(f"Revoke API key {key_id}? Programs using it will get 401 from now on.", yes=yes)

    async def work() -> None:
        ident = validate_uuid(key_id, "key_id")
        engine = get_engine()
        owner: User | None = None
        if await engine.database_exists():
            await engine.ensure_setup()
            stored = await engine.store.get_api_key(ident)
            if stored is not None:  # the local operator acts as the key's owner
                owner = await engine.store.get_user(stored.info.user_id)
        await revoke_api_key(ident, user=owner)

    _run(work())
    typer.echo(f"revoked {key_id}")


@users_app.command("grant")
def users_grant(
    dataset_id: DatasetArg,
    grantee: EmailArg,
    permission: PermissionArg,
    acting: AsOpt = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Give a user a permission on a dataset (you must own it or hold share)."""
    from engramdb.facade import grant

    _configure(data_dir)

    async def work() -> None:
        target = await _user(grantee)
        await grant(_uuid(dataset_id), target.id, _perm(permission), user=await _actor(acting))

    _run(work())
    typer.echo(f"granted {permission} on {dataset_id} to {grantee}")


@users_app.command("revoke")
def users_revoke(
    dataset_id: DatasetArg,
    grantee: EmailArg,
    permission: PermissionArg,
    acting: AsOpt = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Take a permission on a dataset away from a user, effective immediately."""
    from engramdb.facade import revoke

    _configure(data_dir)

    async def work() -> None:
        target = await _user(grantee)
        await revoke(_uuid(dataset_id), target.id, _perm(permission), user=await _actor(acting))

    _run(work())
    typer.echo(f"revoked {permission} on {dataset_id} from {grantee}")


@users_app.command("grants")
def users_grants(
    dataset_id: DatasetArg,
    acting: AsOpt = None,
    as_json: JsonOpt = False,
    data_dir: DataDirOpt = None,
) -> None:
    """List who holds which permission on a dataset (owner or share holder only)."""
    from engramdb.facade import list_grants, list_users

    _configure(data_dir)

    async def work() -> tuple[list[Grant], dict[UUID, str]]:
        grants: list[Grant] = await list_grants(_uuid(dataset_id), user=await _actor(acting))
        emails = {u.id: u.email for u in await list_users()} if grants and not as_json else {}
        return grants, emails

    found, emails = _run(work())
    if as_json:
        _dump([g.model_dump(mode="json") for g in found])
        return
    if not found:
        typer.echo("no grants: only the owner can use this dataset")
        return
    print_table(("grantee", "permission"), ((_grantee(g, emails), g.permission) for g in found))


def _grantee(grant: Grant, emails: dict[UUID, str]) -> str:
    """A user grantee by e-mail; a role or tenant by kind and id."""
    if grant.grantee_kind == "user" and grant.grantee_id in emails:
        return emails[grant.grantee_id]
    return f"{grant.grantee_kind} {grant.grantee_id}"


def _roles(user: User) -> str:
    return ", ".join(f for f, on in (("default", user.is_default), ("admin", user.is_admin)) if on)


def _perm(raw: str) -> Permission:
    from engramdb.access import validate_permission

    return validate_permission(raw)


def _uuid(raw: str) -> UUID:
    from engramdb.validation import validate_uuid

    return validate_uuid(raw, "dataset id")
