"""The code graph through the public API: remember a repository, then recall(scope="code") and
search(SearchType.CODE), on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import engramdb
from engramdb.engine import get_engine, set_engine
from engramdb.models.results import ResponseCodeEntry
from engramdb.settings import config
from tests.postgres import server
from tests.support.code_repo import MODELS, write_repo

postgres_server = server.postgres_server


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def backend(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, isolated_config: Path
) -> AsyncIterator[str]:
    """The public API on each backend (PostgreSQL: a fresh schema of the session's server)."""
    if request.param == "postgres":
        pg = request.getfixturevalue("postgres_server")
        monkeypatch.setenv("ENGRAMDB_STORAGE_URL", pg.fresh_url())
        config.reset()
        set_engine(None)
    yield request.param
    await get_engine().close()


@pytest.fixture
async def shop(backend: str, tmp_path: Path) -> Path:
    repo = write_repo(tmp_path)
    result = await engramdb.remember(repo, dataset_name="shop", self_improvement=False)
    assert result.status == "completed"
    return repo


async def _code(query: str, code_query: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
    (entry,) = await engramdb.recall(query, scope=["code"], code_query=code_query, **kw)
    assert isinstance(entry, ResponseCodeEntry) and entry.source == "code"
    assert entry.kind == "code" and entry.search_type == "CODE"
    return entry.raw


async def test_remember_indexes_source_files_and_keeps_other_files_on_the_text_path(
    backend: str, tmp_path: Path
) -> None:
    repo = write_repo(tmp_path)
    result = await engramdb.remember(repo, dataset_name="shop", self_improvement=False)
    names = sorted(item.name for item in result.items)
    assert names == [
        "README.md",
        "shop/app/__init__.py",
        "shop/app/cli.py",
        "shop/app/models.py",
        "shop/app/services.py",
    ]
    assert result.skipped == []  # the .py files went to the code graph, not "unsupported"
    assert result.counts["code_files_parsed"] == 4
    # the README is searchable text as before
    chunks = await engramdb.recall("mauve teapots", query_type="CHUNKS", datasets=["shop"])
    assert any("mauve teapots" in c.text for c in chunks)


async def test_explore_is_the_default_and_is_seeded_by_the_query(shop: Path) -> None:
    """recall.md: "None runs the default explore operation seeded with the query text."""
    raw = await _code("UserService")
    assert raw["operation"] == "explore"
    focus = raw["focus"]
    assert focus["name"] == "app.services.UserService"
    assert (focus["kind"], focus["symbol_kind"], focus["file"]) == (
        "symbol",
        "class",
        "app/services.py",
    )
    assert (focus["line"], focus["end_line"]) == (6, 15)
    assert {r["target"] for r in focus["relations"]} == {
        "app.services.UserService.audit",
        "app.services.UserService.create",
    }
    neighbours = {n["name"] for n in raw["nodes"] if n["depth"] == 1}
    assert neighbours == {
        "app.services",  # contains it
        "app.services.main",  # calls it
        "app.services.UserService.audit",
        "app.services.UserService.create",
    }


async def test_traverse_reverse_follows_only_the_relations_asked(shop: Path) -> None:
    raw = await _code(
        "x",
        {
            "operation": "traverse",
            "name": "app.models.validate",
            "direction": "reverse",
            "relation_types": ["calls"],
        },
    )
    assert raw["operation"] == "traverse"
    by_depth = {(n["name"], n["depth"]) for n in raw["nodes"]}
    assert by_depth == {
        ("app.models.validate", 0),
        ("app.models.Base.save", 1),
        ("app.services.main", 1),  # models.validate(None) through the module alias
        ("app.cli.run", 2),
    }
    assert {e["type"] for e in raw["edges"]} == {"calls"}


async def test_find_path_follows_calls_across_files(shop: Path) -> None:
    raw = await _code("x", {"operation": "find_path", "source": "run", "target": "validate"})
    assert raw["found"] is True
    assert [n["name"] for n in raw["path"]] == [
        "app.cli.run",
        "app.services.main",
        "app.models.validate",
    ]
    assert [e["type"] for e in raw["edges"]] == ["calls", "calls"]
    missing = await _code("x", {"operation": "find_path", "source": "validate", "target": "run"})
    assert missing["found"] is False and missing["path"] == []


async def test_impact_analysis_reaches_subclasses_callers_and_importers(shop: Path) -> None:
    raw = await _code("x", {"operation": "impact_analysis", "name": "Base", "max_depth": 2})
    assert [t["name"] for t in raw["targets"]] == ["app.models.Base"]
    # a type's impact includes its methods
    assert {s["name"] for s in raw["impact_seeds"]} == {"app.models.Base", "app.models.Base.save"}
    depth1 = {n["name"] for n in raw["by_depth"]["1"]}
    assert {"app.models.User", "app.models"} <= depth1
    depth2 = {n["name"] for n in raw["by_depth"]["2"]}
    assert "app.services" in depth2  # imports app.models (and User)
    assert raw["total_dependents"] == sum(len(v) for v in raw["by_depth"].values())
    assert raw["summary"].startswith(f"{raw['total_dependents']} total dependents")


async def test_query_facts_filters_by_kind_and_file(shop: Path) -> None:
    raw = await _code(
        "x", {"operation": "query_facts", "kind": "symbol", "file": "app/models.py", "limit": 2}
    )
    assert raw["total"] == 5 and raw["has_more"] is True and len(raw["facts"]) == 2
    assert [f["name"] for f in raw["facts"]] == ["app.models.Base", "app.models.Base.save"]


async def test_delta_reports_exactly_the_changed_file(shop: Path) -> None:
    """Re-remembering a repository with one changed file parses only that file, and ``delta``
    lists that file's added, changed and removed symbols."""
    first = await _code("shop", {"operation": "delta"})
    (repo,) = first["repositories"]
    assert repo["delta"]["files_parsed"] == [
        "app/__init__.py",
        "app/cli.py",
        "app/models.py",
        "app/services.py",
    ]
    changed = MODELS.replace("return obj is not None", "return bool(obj)").replace(
        'return "hi"', 'return "hi"\n\n    def wave(self):\n        return "o/"'
    )
    changed = changed.replace("class User(Base):", "class Admin(Base):")
    (shop / "app" / "models.py").write_text(changed, encoding="utf-8")
    again = await engramdb.remember(shop, dataset_name="shop", self_improvement=False)
    statuses = {i.name: (i.status, i.reason) for i in again.items}
    assert statuses["shop/app/models.py"] == ("ingested", None)
    assert statuses["shop/app/services.py"] == ("skipped", "already_present")
    delta = (await _code("shop", {"operation": "delta"}))["repositories"][0]["delta"]
    assert delta["files_parsed"] == ["app/models.py"]
    assert delta["files_unchanged"] == 3
    assert delta["symbols_added"] == [
        "app.models.Admin",
        "app.models.Admin.greet",
        "app.models.Admin.wave",
    ]
    assert delta["symbols_removed"] == ["app.models.User", "app.models.User.greet"]
    assert delta["symbols_updated"] == ["app.models", "app.models.validate", "app/models.py"]
    assert delta["nodes_added"] == 3 and delta["nodes_removed"] == 2
    # the graph follows: the old class is gone, the new one inherits Base
    facts = await _code("x", {"operation": "query_facts", "file": "app/models.py"})
    assert "app.models.User" not in {f["name"] for f in facts["facts"]}
    admin = await _code("Admin")
    assert {"type": "inherits", "target": "app.models.Base"} in [
        {"type": r["type"], "target": r["target"]} for r in admin["focus"]["relations"]
    ]


async def test_a_deleted_file_leaves_the_graph(shop: Path) -> None:
    (shop / "app" / "cli.py").unlink()
    await engramdb.remember(shop, dataset_name="shop", self_improvement=False)
    delta = (await _code("shop", {"operation": "delta"}))["repositories"][0]["delta"]
    assert delta["files_removed"] == ["app/cli.py"] and delta["files_parsed"] == []
    assert delta["symbols_removed"] == ["app.cli", "app.cli.run", "app/cli.py"]
    assert await engramdb.recall("app.cli.run", scope=["code"]) == []


async def test_a_seed_the_graph_cannot_resolve_contributes_nothing(shop: Path) -> None:
    """recall.md: "a seed the code graph cannot resolve contributes nothing rather than failing
    the recall.\""""
    assert await engramdb.recall("NoSuchThingAnywhere", scope=["code"]) == []
    impact = {"operation": "impact_analysis", "name": "NoSuchThingAnywhere"}
    assert await engramdb.recall("x", scope=["code"], code_query=impact) == []
    # the code lane beside the graph lane: the graph lane still answers
    mixed = await engramdb.recall(
        "mauve teapots", query_type="CHUNKS", scope=["graph", "code"], code_query=impact
    )
    assert mixed and {e.source for e in mixed} == {"graph"}


async def test_code_query_needs_the_code_scope_and_a_known_operation(shop: Path) -> None:
    """recall.md: "Only valid when scope includes "code" ... passing it otherwise raises
    InvalidCodeQueryError.\""""
    with pytest.raises(engramdb.InvalidCodeQueryError, match="scope includes 'code'"):
        await engramdb.recall("UserService", scope="all", code_query={"operation": "explore"})
    with pytest.raises(engramdb.InvalidCodeQueryError, match="unknown code_query operation"):
        await engramdb.recall("UserService", scope=["code"], code_query={"operation": "grep"})
    with pytest.raises(engramdb.InvalidCodeQueryError, match="direction"):
        await engramdb.recall(
            "UserService", scope=["code"], code_query={"operation": "traverse", "direction": "up"}
        )


async def test_search_code_returns_the_operation_result(shop: Path) -> None:
    (row,) = await engramdb.search(
        "x",
        query_type=engramdb.SearchType.CODE,
        code_query={"operation": "impact_analysis", "name": "validate"},
    )
    assert row["operation"] == "impact_analysis"
    assert [t["name"] for t in row["targets"]] == ["app.models.validate"]
    (explored,) = await engramdb.search("UserService", query_type="CODE")
    assert explored["focus"]["name"] == "app.services.UserService"
    with pytest.raises(engramdb.InvalidCodeQueryError, match=r"SearchType\.CODE"):
        await engramdb.search("x", query_type="CHUNKS", code_query={"operation": "explore"})
    with pytest.raises(engramdb.CodeSeedNotFoundError, match="NoSuchThing"):
        await engramdb.search("NoSuchThing", query_type="CODE")


async def test_forget_of_the_dataset_removes_the_code_graph(shop: Path) -> None:
    store = get_engine().store
    (dataset,) = [d for d in await engramdb.list_datasets() if d.name == "shop"]
    assert await store.count_nodes([dataset.id], type="CodeSymbol") == 10
    await engramdb.forget(dataset="shop")
    assert await store.count_nodes([dataset.id], type="CodeSymbol") == 0
    assert await engramdb.recall("UserService", scope=["code"]) == []


async def test_a_user_without_read_permission_sees_nothing(shop: Path) -> None:
    (dataset,) = [d for d in await engramdb.list_datasets() if d.name == "shop"]
    mallory = await engramdb.create_user("mallory@example.com")
    assert await engramdb.recall("UserService", scope=["code"], user=mallory) == []
    with pytest.raises(engramdb.PermissionDeniedError):
        await engramdb.recall("UserService", scope=["code"], dataset_ids=[dataset.id], user=mallory)
    with pytest.raises(engramdb.DatasetNotFoundError):
        await engramdb.recall("UserService", scope=["code"], datasets=["shop"], user=mallory)
    owner = (await engramdb.list_datasets())[0].owner_id
    await engramdb.grant(dataset.id, mallory.id, "read", user=await _user(owner))
    raw = await _code("UserService", dataset_ids=[dataset.id], user=mallory)
    assert raw["focus"]["name"] == "app.services.UserService"


async def _user(user_id: Any) -> Any:
    return await get_engine().store.get_user(user_id)


async def test_javascript_and_typescript_link_across_files(backend: str, tmp_path: Path) -> None:
    repo = write_repo(tmp_path, js=True)
    await engramdb.remember(repo, dataset_name="shop", self_improvement=False)
    square = await _code("Square")
    relations = {(r["type"], r["target"]) for r in square["focus"]["relations"]}
    assert ("inherits", "web/shape.Shape") in relations
    assert ("has_method", "web/square.Square.label") in relations
    assert square["focus"]["language"] == "typescript"
    path = await _code("x", {"operation": "find_path", "source": "label", "target": "describe"})
    assert [n["name"] for n in path["path"]] == ["web/square.Square.label", "web/shape.describe"]
    impact = await _code("x", {"operation": "impact_analysis", "name": "web/shape.Shape"})
    dependents = {n["name"] for nodes in impact["by_depth"].values() for n in nodes}
    assert "web/square.Square" in dependents


async def test_without_the_code_extra_js_files_are_skipped_with_the_install_hint(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without tree-sitter a directory's JS/TS files are reported as skipped (its Python still
    indexes); a JS file named directly is refused, naming the extra."""
    from engramdb.code import discover

    monkeypatch.setattr(discover, "treesitter_available", lambda: False)
    repo = write_repo(tmp_path, js=True)
    result = await engramdb.remember(repo, dataset_name="shop", self_improvement=False)
    reasons = {Path(s.path).name: s.reason for s in result.skipped}
    assert set(reasons) == {"shape.js", "square.ts"}
    assert all("pip install 'engramdb[code]'" in r for r in reasons.values())
    assert (await _code("UserService"))["focus"]["name"] == "app.services.UserService"
    with pytest.raises(engramdb.FeatureNotAvailableError, match=r"engramdb\[code\]"):
        await engramdb.remember(repo / "web" / "shape.js", dataset_name="shop")


async def test_content_type_code_indexes_only_the_source(backend: str, tmp_path: Path) -> None:
    """The reference's ``remember(repo, content_type="code")``: the repository's source files
    go to the code graph and nothing else is ingested."""
    repo = write_repo(tmp_path)
    result = await engramdb.remember(
        str(repo), dataset_name="shop", content_type="code", self_improvement=False
    )
    assert "README.md" not in {i.name for i in result.items}
    assert result.counts["code_files_parsed"] == 4
    assert await engramdb.recall("mauve teapots", query_type="CHUNKS", datasets=["shop"]) == []
    assert (await _code("UserService"))["focus"]["name"] == "app.services.UserService"
    with pytest.raises(engramdb.EngramValidationError, match="expects a repository path"):
        await engramdb.remember("https://example.com/repo.git", content_type="code")
    with pytest.raises(engramdb.EngramValidationError, match="session_id"):
        await engramdb.remember(repo, content_type="code", session_id="s1")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.md").write_text("no code here", encoding="utf-8")
    with pytest.raises(engramdb.EngramValidationError, match="no source files"):
        await engramdb.remember(empty, content_type="code")


async def test_a_background_code_remember_keeps_the_run_id_it_announced(
    backend: str, tmp_path: Path
) -> None:
    """A background remember() of source code alone: the run id announced at once is the
    recorded run's and the final result's, as for documents."""
    repo = write_repo(tmp_path)
    pending = await engramdb.remember(
        str(repo), dataset_name="shop", content_type="code", run_in_background=True
    )
    assert pending.status == "running" and pending.run_id is not None
    done = await pending.wait()
    assert done.status == "completed" and done.counts["code_files_parsed"] == 4
    assert done.run_id == pending.run_id
    runs = await get_engine().store.list_runs([done.dataset_id])
    assert [(r.id, r.status) for r in runs if r.pipeline == "remember"] == [
        (pending.run_id, "completed")
    ]


async def test_only_new_and_changed_files_are_parsed_and_the_store_stays_whole(
    shop: Path,
) -> None:
    from engramdb.code.discover import split_code_inputs
    from engramdb.code.index import index_code, parse_file

    parsed: list[str] = []

    def counting_parse(path: str, raw: bytes) -> Any:
        parsed.append(path)
        return parse_file(path, raw)

    store = get_engine().store
    (dataset,) = [d for d in await engramdb.list_datasets() if d.name == "shop"]
    services = shop / "app" / "services.py"
    services.write_text(services.read_text(encoding="utf-8") + "\n\ndef extra():\n    main()\n")
    (shop / "app" / "new.py").write_text("def fresh():\n    return 1\n", encoding="utf-8")
    ((root,), _rest) = split_code_inputs(shop)
    report = await index_code(store, dataset, root, parse=counting_parse)
    assert sorted(parsed) == ["app/new.py", "app/services.py"]
    assert sorted(report.added) == ["app.new", "app.new.fresh", "app.services.extra", "app/new.py"]
    assert report.removed == []
    integrity = await store.check_integrity()
    assert integrity.ok, integrity.violations
    # a symbol that survived the change kept its id, and its callers still reach it
    raw = await _code(
        "x",
        {
            "operation": "traverse",
            "name": "app.services.main",
            "direction": "reverse",
            "relation_types": ["calls"],
        },
    )
    assert {n["name"] for n in raw["nodes"]} >= {"app.services.extra", "app.cli.run"}


async def test_a_file_that_does_not_parse_is_skipped_with_its_line(
    backend: str, tmp_path: Path
) -> None:
    repo = write_repo(tmp_path)
    (repo / "app" / "broken.py").write_text("def broken(:\n    pass\n", encoding="utf-8")
    result = await engramdb.remember(repo, dataset_name="shop", self_improvement=False)
    (skip,) = result.skipped
    assert Path(skip.path).name == "broken.py" and "line 1" in skip.reason
    assert result.counts["code_files_parsed"] == 4  # the others are indexed
    with pytest.raises(engramdb.EngramValidationError, match=r"broken\.py' line 1"):
        await engramdb.remember(repo / "app" / "broken.py", dataset_name="other")
    assert "other" not in {d.name for d in await engramdb.list_datasets()}


async def test_a_name_shared_by_a_module_and_its_file_seeds_the_module(shop: Path) -> None:
    raw = await _code("models")
    assert (raw["focus"]["name"], raw["focus"]["kind"]) == ("app.models", "module")
    assert {n["name"] for n in raw["nodes"] if n["depth"] == 1} >= {
        "app/models.py",
        "app.models.Base",
    }


async def test_references_resolve_through_bases_and_unique_names(
    backend: str, tmp_path: Path
) -> None:
    """``self.x`` finds an inherited method; ``obj.x()`` on an unknown object links to the one
    function of that name and says the link was made by name."""
    repo = tmp_path / "zoo"
    repo.mkdir()
    (repo / "animals.py").write_text(
        "class Animal:\n"
        "    def breathe(self):\n"
        "        return 1\n\n\n"
        "class Cat(Animal):\n"
        "    def purr(self):\n"
        "        return self.breathe()\n",
        encoding="utf-8",
    )
    (repo / "keeper.py").write_text(
        "def feed(pet):\n    return pet.purr() + len([pet])\n", encoding="utf-8"
    )
    await engramdb.remember(repo, dataset_name="zoo", self_improvement=False)
    purr = await _code(
        "x", {"operation": "traverse", "name": "animals.Cat.purr", "relation_types": ["calls"]}
    )
    assert [(e["source"], e["target"], e["properties"]["resolution"]) for e in purr["edges"]] == [
        ("animals.Cat.purr", "animals.Animal.breathe", "exact")
    ]
    feed = await _code(
        "x", {"operation": "traverse", "name": "feed", "relation_types": ["calls"], "max_depth": 1}
    )
    assert [(e["target"], e["properties"]["resolution"]) for e in feed["edges"]] == [
        ("animals.Cat.purr", "name")  # len() is no symbol of the repository: no edge
    ]
