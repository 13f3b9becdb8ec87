"""Every engramdb error crosses HTTP as itself: raised in a route, turned into problem JSON by
the server's one handler, and rebuilt by the remote client as the same class."""

from __future__ import annotations

import inspect

import httpx
import pytest
from fastapi import FastAPI

import engramdb
from engramdb import errors
from engramdb.errors import EngramError
from engramdb.remote.errors import error_from_response
from engramdb.server.problems import install_problem_handlers


def _every_error_class() -> list[type[EngramError]]:
    found: list[type[EngramError]] = []
    stack: list[type[EngramError]] = [EngramError]
    while stack:
        cls = stack.pop()
        if cls not in found:
            found.append(cls)
            stack.extend(cls.__subclasses__())
    return sorted(found, key=lambda c: c.__name__)


def _sample(cls: type[EngramError]) -> EngramError:
    """An instance made through the class's own constructor, as the library raises it."""
    if issubclass(cls, errors.CypherSyntaxError):
        return cls("expected ')'", "MATCH (n\nRETURN n", 9)
    if issubclass(cls, errors.CypherUnsupportedError):
        return cls("CREATE", "CREATE (n)", 0, write=True)
    if issubclass(cls, errors.DatasetNotFoundError):
        return cls("no dataset named 'a' or 'b'", missing=["a", "b"])
    if issubclass(cls, errors.LLMBadRequestError):
        return cls("the LLM server answered HTTP 400", "bad temperature")
    return cls(f"{cls.__name__} happened; here is how to fix it")


ALL = _every_error_class()


def test_the_whole_tree_is_defined_in_errors_and_exported() -> None:
    assert len(ALL) >= 29
    for cls in ALL:
        assert cls.__module__ == "engramdb.errors", cls
        assert getattr(engramdb, cls.__name__) is cls, cls
        assert cls.__name__ in errors.__doc__, f"{cls.__name__} is missing from the drawn tree"
    assert set(errors.by_code().values()) == set(ALL)
    assert len({c.code for c in ALL}) == len(ALL)  # one class per code


@pytest.fixture
def app() -> FastAPI:
    app = FastAPI()
    install_problem_handlers(app)
    by_name = {c.__name__: c for c in ALL}

    @app.get("/raise/{name}")
    async def _raise(name: str) -> None:
        raise _sample(by_name[name])

    @app.get("/value-error")
    async def _value_error() -> None:
        raise ValueError("a bug, not bad input")

    return app


async def _get(app: FastAPI, path: str) -> httpx.Response:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        return await client.get(path)


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
async def test_each_error_round_trips_through_problem_json(
    app: FastAPI, cls: type[EngramError]
) -> None:
    sent = _sample(cls)
    response = await _get(app, f"/raise/{cls.__name__}")
    assert response.status_code == cls.status_code
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == cls.code

    back = error_from_response(response)
    assert type(back) is cls
    assert back.message == sent.message and str(back) == str(sent)
    for name in cls.problem_fields:
        assert getattr(back, name) == getattr(sent, name), name


async def test_a_bare_value_error_is_a_bug_not_a_422(app: FastAPI) -> None:
    response = await _get(app, "/value-error")
    assert response.status_code == 500
    assert response.json()["code"] == "internal_error"
    assert "a bug" not in response.text  # details go to the log only


def test_an_unknown_code_falls_back_to_the_status() -> None:
    request = httpx.Request("GET", "http://test/x")
    body = {"title": "Gone", "status": 404, "detail": "nope", "code": "from_a_newer_server"}
    back = error_from_response(httpx.Response(404, json=body, request=request))
    assert type(back) is errors.NotFoundError and back.message == "nope"


def test_samples_use_each_constructor() -> None:
    """Guard for _sample: a class whose constructor needs more than a message is listed there."""
    for cls in ALL:
        params = list(inspect.signature(cls.__init__).parameters.values())[2:]
        required = [p for p in params if p.default is inspect.Parameter.empty]
        if required:
            assert cls in (errors.CypherSyntaxError, errors.CypherUnsupportedError), cls
