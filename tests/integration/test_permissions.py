"""Users and grants at the SDK level (SPEC R-ACL-1/2): isolation, indistinguishable refusals,
and what each of read / write / delete / share allows -- against the real SQLite store.

Alice owns a dataset holding a secret; Bob owns a dataset of the SAME name holding something
else; Carol owns nothing. Every "Bob never sees it" assertion has a positive control (Alice, or
Bob with a grant, does see it), so a missing check makes the test fail rather than pass empty.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import pytest

import engramdb
from engramdb import access
from engramdb.engine import get_engine
from engramdb.errors import (
    DataNotFoundError,
    DatasetNotFoundError,
    EngramError,
    EngramValidationError,
    NotFoundError,
    PermissionDeniedError,
)
from engramdb.models.records import User
from tests.support.openai_server import OpenAIServer, Reply

SECRET = (
    "Zanzibar quokkas guard the vermilion archive of Ulthar; its passphrase is mauveheron. "
    "Mauveheron Quill works at Ulthar Archive."
)
#: In the secret and in nothing Bob types (queries echo in prompts): seeing it is a leak.
SECRET_WORDS = ("mauveheron",)
BOB_TEXT = "Penguins waddle along the icy southern shore."
QUERY = "Who guards the vermilion archive of Ulthar? quokkas Zanzibar"


def leaks(value: object) -> bool:
    """Whether anything of Alice's secret shows in ``value`` (a result list, a page, ...)."""
    if isinstance(value, list):
        text = json.dumps(
            [v.model_dump(mode="json") if hasattr(v, "model_dump") else str(v) for v in value]
        )
    elif hasattr(value, "model_dump"):
        text = json.dumps(value.model_dump(mode="json"))
    else:
        text = str(value)
    return any(word in text.lower() for word in SECRET_WORDS)


@dataclass
class World:
    alice: User
    bob: User
    carol: User
    vault: UUID  # Alice's dataset "vault"
    bob_vault: UUID  # Bob's own dataset, also named "vault"
    secret_data: UUID  # the data id of Alice's secret


@pytest.fixture
async def world() -> World:
    alice = await engramdb.create_user("alice@example.com")
    bob = await engramdb.create_user("bob@example.com")
    carol = await engramdb.create_user("carol@example.com")
    mine = await engramdb.remember(SECRET, "vault", user=alice, self_improvement=False)
    theirs = await engramdb.remember(BOB_TEXT, "vault", user=bob, self_improvement=False)
    assert mine.dataset_id is not None and theirs.dataset_id is not None
    assert mine.dataset_id != theirs.dataset_id  # names are owner-scoped
    return World(
        alice=alice,
        bob=bob,
        carol=carol,
        vault=mine.dataset_id,
        bob_vault=theirs.dataset_id,
        secret_data=mine.data_ids[0],
    )


async def _data_count(dataset_id: UUID) -> int:
    return len(await get_engine().store.list_data(dataset_id))


async def _refusal(call: Any) -> EngramError:
    with pytest.raises(EngramError) as caught:
        await call
    return caught.value


# --- refusals never confirm existence --------------------------------------------------------

#: Every verb that takes a dataset UUID, as (name, call(dataset_id, world, tmp_path)).
_BY_ID: list[tuple[str, Any]] = [
    ("recall", lambda d, w, t: engramdb.recall(QUERY, dataset_ids=[d], user=w.bob)),
    (
        "recall_cypher",
        lambda d, w, t: engramdb.recall(
            "MATCH (n) RETURN n.name AS name",
            engramdb.SearchType.CYPHER,
            dataset_ids=[d],
            user=w.bob,
        ),
    ),
    ("get_graph", lambda d, w, t: engramdb.get_graph(dataset_ids=[d], user=w.bob)),
    (
        "visualize_graph",
        lambda d, w, t: engramdb.visualize_graph(t / "g.html", dataset_ids=[d], user=w.bob),
    ),
    ("remember", lambda d, w, t: engramdb.remember("Bob was here.", d, user=w.bob)),
    (
        "remember_session",
        lambda d, w, t: engramdb.remember("Bob's note.", d, session_id="s1", user=w.bob),
    ),
    ("improve", lambda d, w, t: engramdb.improve(d, user=w.bob)),
    ("forget", lambda d, w, t: engramdb.forget(dataset=d, user=w.bob)),
    ("list_conflicts", lambda d, w, t: engramdb.list_conflicts(d, user=w.bob)),
    ("grant", lambda d, w, t: engramdb.grant(d, w.carol.id, "read", user=w.bob)),
    ("revoke", lambda d, w, t: engramdb.revoke(d, w.carol.id, "read", user=w.bob)),
    ("list_grants", lambda d, w, t: engramdb.list_grants(d, user=w.bob)),
    *[
        (f"check_{p}", lambda d, w, t, p=p: engramdb.check(w.bob, d, p))
        for p in ("read", "write", "delete", "share")
    ],
]


@pytest.mark.parametrize(("verb", "call"), _BY_ID, ids=[v for v, _ in _BY_ID])
async def test_unknown_and_unauthorized_dataset_ids_are_refused_identically(
    world: World, tmp_path: Path, verb: str, call: Any
) -> None:
    unknown = uuid4()
    real = await _refusal(call(world.vault, world, tmp_path))
    fake = await _refusal(call(unknown, world, tmp_path))
    assert type(real) is PermissionDeniedError and type(fake) is PermissionDeniedError, verb
    assert real.status_code == fake.status_code == 403
    assert str(real).replace(str(world.vault), "<id>") == str(fake).replace(str(unknown), "<id>")
    # the refusal tells nothing about the dataset or its owner
    assert "vault" not in str(real) and "alice" not in str(real).lower()
    # and nothing was written anywhere
    assert await _data_count(world.vault) == 1
    assert await _data_count(world.bob_vault) == 1
    assert [d.name for d in await engramdb.list_datasets(user=world.bob)] == ["vault"]
    assert await access.list_grants(world.vault, user=world.alice) == []
    assert await engramdb.session.list_sessions(user=world.bob) == []


async def test_node_data_and_skill_ids_are_refused_like_unknown_ones(world: World) -> None:
    graph = await engramdb.get_graph(dataset_ids=[world.vault], user=world.alice)
    node = next(n for n in graph.nodes if n.type == "Chunk")
    assert leaks(node)  # positive control: this node is the secret
    assert await engramdb.get_node(node.id, user=world.bob) is None
    assert await engramdb.get_node(uuid4(), user=world.bob) is None
    assert await engramdb.get_node(node.id, user=world.alice) == node

    missing, real = uuid4(), world.secret_data
    a = await _refusal(engramdb.forget(data_id=real, user=world.bob))
    b = await _refusal(engramdb.forget(data_id=missing, user=world.bob))
    assert type(a) is type(b) is DataNotFoundError
    assert str(a).replace(str(real), "<id>") == str(b).replace(str(missing), "<id>")
    assert await _data_count(world.vault) == 1

    skill = await engramdb.remember_skill(
        "vault-keeping", "How the quokkas keep the vault", "1. Count quokkas.", user=world.alice
    )
    a = await _refusal(engramdb.load_skill(skill.id, user=world.bob))
    b = await _refusal(engramdb.load_skill(missing, user=world.bob))
    assert type(a) is type(b) is PermissionDeniedError
    assert str(a).replace(str(skill.id), "<id>") == str(b).replace(str(missing), "<id>")
    assert (await engramdb.load_skill(skill.id, user=world.alice)).name == "vault-keeping"

    a = await _refusal(engramdb.resolve_conflict(node.id, uuid4(), user=world.bob))
    b = await _refusal(engramdb.resolve_conflict(missing, uuid4(), user=world.bob))
    assert type(a) is type(b) is NotFoundError
    assert str(a).replace(str(node.id), "<id>") == str(b).replace(str(missing), "<id>")


async def test_names_are_owner_scoped(world: World) -> None:
    # Bob's "vault" is his own; Alice's is never reached by name
    results = await engramdb.recall(QUERY, datasets=["vault"], user=world.bob)
    assert results and not leaks(results)
    with pytest.raises(DatasetNotFoundError):
        await engramdb.recall(QUERY, datasets=["alices-only"], user=world.bob)
    # improving / remembering a name another user owns creates or uses the caller's own
    await engramdb.remember(SECRET, "vault-b", user=world.alice, self_improvement=False)
    improved = await engramdb.improve("vault-b", user=world.bob)
    assert improved.dataset_id not in (world.vault, world.bob_vault)
    names = {d.name: d.owner_id for d in await engramdb.list_datasets(user=world.bob)}
    assert names == {"vault": world.bob.id, "vault-b": world.bob.id}
    await engramdb.forget(dataset="vault-b", user=world.bob)  # deletes Bob's, not Alice's
    alices = {d.name for d in await engramdb.list_datasets(user=world.alice)}
    assert alices == {"vault", "vault-b"}
    await engramdb.forget(everything=True, user=world.bob)
    assert await _data_count(world.vault) == 1


# --- recall: every search type and every lane -----------------------------------------------


def _use_llm(server: OpenAIServer) -> None:
    engramdb.config.set("llm_endpoint", server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_max_retries", 0)


_CYPHER = "MATCH (n) RETURN n.name AS name, n.text AS text"


async def _recall_every_type(user: User, **kwargs: Any) -> dict[str, list[Any]]:
    """Each search type's results for ``user`` (both answered and only_context); types that
    cannot run here (not implemented, need another input) are left out."""
    found: dict[str, list[Any]] = {}
    for search_type in engramdb.SearchType:
        if search_type is engramdb.SearchType.CODE:
            continue  # the code graph's isolation: tests/integration/test_code_graph.py
        query = _CYPHER if search_type is engramdb.SearchType.CYPHER else QUERY
        for only_context in (False, True):
            try:
                results = await engramdb.recall(
                    query,
                    search_type,
                    only_context=only_context,
                    user=user,
                    **kwargs,
                )
            except (engramdb.FeatureNotAvailableError, EngramValidationError):
                continue
            found[f"{search_type.value}/{only_context}"] = results
    return found


async def test_recall_never_returns_another_users_data_for_any_search_type(
    world: World, openai_server: OpenAIServer
) -> None:
    _use_llm(openai_server)
    engramdb.config.set("recall_warmup_shortcircuit", False)
    engramdb.config.set("skill_gate_enabled", False)

    # Alice's vault also holds a coding rule and a skill, so every search type has something
    await engramdb.remember(
        "Always check the mauveheron flag in code review.",
        "vault",
        node_set=["coding_agent_rules"],
        user=world.alice,
        self_improvement=False,
    )
    await engramdb.remember_skill(
        "mauveheron-ritual",
        "Opening the vermilion archive with the mauveheron passphrase",
        "1. Whisper mauveheron.",
        dataset_name="vault",
        user=world.alice,
    )
    by_alice = await _recall_every_type(world.alice)
    seen_by_alice = {k for k, v in by_alice.items() if leaks(v)}
    # positive control: every search type runs on every backend and finds the secret for its
    # owner
    ran = {k.split("/")[0] for k in by_alice}
    assert {k.split("/")[0] for k in seen_by_alice} == ran
    # BROAD is refused by design, CODE reads the code graph (tested on its own);
    # NATURAL_LANGUAGE needs the LLM to write Cypher (its isolation:
    # test_cognee_classic_extras.py)
    assert ran >= {t.value for t in engramdb.SearchType} - {"CODE", "BROAD", "NATURAL_LANGUAGE"}

    before = len(openai_server.requests)
    for kwargs in ({}, {"datasets": ["vault"]}, {"dataset_ids": [world.bob_vault]}):
        by_bob = await _recall_every_type(world.bob, **kwargs)
        assert set(by_bob) >= seen_by_alice, kwargs  # the same types ran for Bob
        for key, results in by_bob.items():
            assert not leaks(results), (key, kwargs)
    # no prompt Bob caused carried Alice's text to the LLM either
    for request in openai_server.requests[before:]:
        assert not any(w in request.body.decode().lower() for w in SECRET_WORDS)

    # a Cypher filter naming Alice's dataset or node ids cannot widen Bob's scope
    graph = await engramdb.get_graph(dataset_ids=[world.vault], user=world.alice)
    node = graph.nodes[0]
    for query in (
        ()
        if "CYPHER" not in ran
        else (
            f"MATCH (n) WHERE n.dataset_id = '{world.vault}' RETURN n.name AS name",
            f"MATCH (n) WHERE n.id = '{node.id}' RETURN n.text AS text",
        )
    ):
        rows = await engramdb.recall(query, engramdb.SearchType.CYPHER, user=world.bob)
        assert rows == [] or not leaks(rows)


async def test_sessions_are_per_user_even_with_the_same_id(world: World) -> None:
    await engramdb.recall(QUERY, session_id="chat", user=world.alice)
    await engramdb.remember(SECRET, session_id="chat", user=world.alice)
    (turn, *_) = await engramdb.session.get_session("chat", user=world.alice)
    assert leaks(await engramdb.session.get_session("chat", user=world.alice))

    assert await engramdb.session.get_session("chat", user=world.bob) == []
    assert await engramdb.session.list_sessions(user=world.bob) == []
    for scope in ("session", "all", "session_context", "trace", "session_first"):
        results = await engramdb.recall(QUERY, session_id="chat", scope=scope, user=world.bob)
        assert not leaks(results), scope
    with pytest.raises(NotFoundError):
        await engramdb.session.add_feedback("chat", turn.qa_id, feedback_score=1, user=world.bob)
    # Bob's session of the same id is his own, and did not touch Alice's
    mine = await engramdb.session.get_session("chat", user=world.alice)
    assert all(e.feedback_score is None for e in mine)
    assert not leaks(await engramdb.session.get_session("chat", user=world.bob))


async def test_graph_visualization_and_listing_show_only_readable_datasets(
    world: World, tmp_path: Path
) -> None:
    assert not leaks(await engramdb.get_graph(user=world.bob))
    page = Path(await engramdb.visualize_graph(tmp_path / "bob.html", user=world.bob))
    assert not leaks(page.read_text(encoding="utf-8"))
    assert [d.id for d in await engramdb.list_datasets(user=world.bob)] == [world.bob_vault]
    assert await engramdb.list_conflicts(user=world.bob) == []

    # positive control: once shared, the same calls show it
    await engramdb.grant(world.vault, world.bob.id, "read", user=world.alice)
    assert leaks(await engramdb.get_graph(user=world.bob))
    page = Path(await engramdb.visualize_graph(tmp_path / "bob.html", user=world.bob))
    assert leaks(page.read_text(encoding="utf-8"))
    page = Path(
        await engramdb.visualize_graph(
            tmp_path / "only.html", dataset_ids=[world.vault], user=world.bob
        )
    )
    assert leaks(page.read_text(encoding="utf-8"))
    assert [d.id for d in await engramdb.list_datasets(user=world.bob)] == [
        world.bob_vault,
        world.vault,
    ]


# --- what each permission allows ---------------------------------------------------------------


async def test_read_grant_allows_recall_by_id_but_no_changes(world: World) -> None:
    await engramdb.grant(world.vault, world.bob.id, "read", user=world.alice)

    assert leaks(await engramdb.recall(QUERY, dataset_ids=[world.vault], user=world.bob))
    assert leaks(await engramdb.recall(QUERY, user=world.bob))  # "every readable dataset"
    assert not leaks(await engramdb.recall(QUERY, datasets=["vault"], user=world.bob))
    graph = await engramdb.get_graph(dataset_ids=[world.vault], user=world.bob)
    assert await engramdb.get_node(graph.nodes[0].id, user=world.bob) == graph.nodes[0]
    assert await engramdb.list_conflicts(world.vault, user=world.bob) == []

    for call in (
        engramdb.remember("Bob was here.", world.vault, user=world.bob),
        engramdb.improve(world.vault, user=world.bob),
        engramdb.forget(dataset=world.vault, user=world.bob),
        engramdb.forget(data_id=world.secret_data, user=world.bob),
        engramdb.grant(world.vault, world.carol.id, "read", user=world.bob),
        engramdb.list_grants(world.vault, user=world.bob),
    ):
        assert type(await _refusal(call)) is PermissionDeniedError
    assert await _data_count(world.vault) == 1
    grants = await engramdb.list_grants(world.vault, user=world.alice)
    assert [(g.grantee_id, g.permission) for g in grants] == [(world.bob.id, "read")]


async def test_write_grant_allows_remember_and_improve_by_uuid(world: World) -> None:
    await engramdb.grant(world.vault, world.bob.id, "write", user=world.alice)

    added = await engramdb.remember(
        "Otters juggle pebbles in the vault.", world.vault, user=world.bob
    )
    assert added.dataset_id == world.vault and added.status == "completed"
    assert await _data_count(world.vault) == 2
    hits = await engramdb.recall("otters pebbles", dataset_ids=[world.vault], user=world.alice)
    assert any("Otters" in str(h.model_dump()) for h in hits)
    result = await engramdb.improve(world.vault, user=world.bob)
    assert result.dataset_id == world.vault

    # write is not read, nor delete
    with pytest.raises(PermissionDeniedError):
        await engramdb.recall(QUERY, dataset_ids=[world.vault], user=world.bob)
    assert not leaks(await engramdb.recall(QUERY, user=world.bob))
    with pytest.raises(PermissionDeniedError):
        await engramdb.forget(dataset=world.vault, user=world.bob)
    # a name still means Bob's own dataset
    own = await engramdb.remember("Seals nap.", "vault", user=world.bob, self_improvement=False)
    assert own.dataset_id == world.bob_vault


async def test_delete_grant_allows_forget(world: World) -> None:
    await engramdb.remember("A second note.", "vault", user=world.alice, self_improvement=False)
    await engramdb.grant(world.vault, world.bob.id, "delete", user=world.alice)
    with pytest.raises(PermissionDeniedError):
        await engramdb.remember("Bob was here.", world.vault, user=world.bob)
    with pytest.raises(PermissionDeniedError):
        await engramdb.recall(QUERY, dataset_ids=[world.vault], user=world.bob)

    # forget everything only ever means the caller's own datasets
    await engramdb.forget(everything=True, user=world.bob)
    assert await _data_count(world.vault) == 2

    gone = await engramdb.forget(data_id=world.secret_data, user=world.bob)
    assert gone.data_records == 1 and await _data_count(world.vault) == 1
    gone = await engramdb.forget(dataset=world.vault, user=world.bob)
    assert gone.datasets == 1
    assert [d.name for d in await engramdb.list_datasets(user=world.alice)] == []


async def test_share_allows_regranting_what_one_holds(world: World) -> None:
    await engramdb.grant(world.vault, world.bob.id, "read", user=world.alice)
    await engramdb.grant(world.vault, world.bob.id, "share", user=world.alice)

    await engramdb.grant(world.vault, world.carol.id, "read", user=world.bob)
    assert leaks(await engramdb.recall(QUERY, dataset_ids=[world.vault], user=world.carol))
    listed = await engramdb.list_grants(world.vault, user=world.bob)
    assert {(g.grantee_id, g.permission, g.granted_by) for g in listed} == {
        (world.bob.id, "read", world.alice.id),
        (world.bob.id, "share", world.alice.id),
        (world.carol.id, "read", world.bob.id),
    }
    # not what Bob does not hold, not to himself, not to the owner
    with pytest.raises(PermissionDeniedError):
        await engramdb.grant(world.vault, world.carol.id, "write", user=world.bob)
    with pytest.raises(EngramValidationError):
        await engramdb.grant(world.vault, world.bob.id, "read", user=world.bob)
    with pytest.raises(EngramValidationError):
        await engramdb.grant(world.vault, world.alice.id, "read", user=world.bob)
    # Carol holds read only: she cannot pass it on
    with pytest.raises(PermissionDeniedError):
        await engramdb.grant(world.vault, world.bob.id, "read", user=world.carol)
    with pytest.raises(PermissionDeniedError):
        await engramdb.list_grants(world.vault)  # the default user holds nothing

    # a share holder can take back what they hold; losing share stops re-granting
    await engramdb.revoke(world.vault, world.carol.id, "read", user=world.bob)
    with pytest.raises(PermissionDeniedError):
        await engramdb.recall(QUERY, dataset_ids=[world.vault], user=world.carol)
    await engramdb.revoke(world.vault, world.bob.id, "share", user=world.alice)
    with pytest.raises(PermissionDeniedError):
        await engramdb.grant(world.vault, world.carol.id, "read", user=world.bob)


async def test_revoking_takes_effect_immediately(world: World, tmp_path: Path) -> None:
    await engramdb.grant(world.vault, world.bob.id, "read", user=world.alice)
    graph = await engramdb.get_graph(dataset_ids=[world.vault], user=world.bob)
    assert leaks(await engramdb.recall(QUERY, dataset_ids=[world.vault], user=world.bob))

    await engramdb.revoke(world.vault, world.bob.id, "read", user=world.alice)
    with pytest.raises(PermissionDeniedError):
        await engramdb.recall(QUERY, dataset_ids=[world.vault], user=world.bob)
    assert not leaks(await engramdb.recall(QUERY, user=world.bob))
    assert await engramdb.get_node(graph.nodes[0].id, user=world.bob) is None
    assert not leaks(await engramdb.get_graph(user=world.bob))
    page = Path(await engramdb.visualize_graph(tmp_path / "after.html", user=world.bob))
    assert not leaks(page.read_text(encoding="utf-8"))
    assert [d.id for d in await engramdb.list_datasets(user=world.bob)] == [world.bob_vault]


async def test_a_grantee_may_give_up_a_grant_but_not_take_others(world: World) -> None:
    await engramdb.grant(world.vault, world.bob.id, "read", user=world.alice)
    await engramdb.grant(world.vault, world.carol.id, "read", user=world.alice)
    with pytest.raises(PermissionDeniedError):
        await engramdb.revoke(world.vault, world.carol.id, "read", user=world.bob)
    await engramdb.revoke(world.vault, world.bob.id, "read", user=world.bob)
    with pytest.raises(PermissionDeniedError):
        await engramdb.check(world.bob, world.vault, "read")
    assert (await engramdb.check(world.carol, world.vault, "read")).id == world.vault
    with pytest.raises(EngramValidationError):
        await engramdb.revoke(world.vault, world.alice.id, "read", user=world.alice)


async def test_grant_input_errors_name_the_fix_and_write_nothing(world: World) -> None:
    with pytest.raises(EngramValidationError, match="read, write, delete, share"):
        await engramdb.grant(world.vault, world.bob.id, "admin", user=world.alice)  # type: ignore[arg-type]
    with pytest.raises(EngramValidationError, match="UUID"):
        await engramdb.grant("not-a-uuid", world.bob.id, "read", user=world.alice)  # type: ignore[arg-type]
    with pytest.raises(NotFoundError, match="users create"):
        await engramdb.grant(world.vault, uuid4(), "read", user=world.alice)
    assert await engramdb.list_grants(world.vault, user=world.alice) == []


async def test_administrators_get_no_access_to_other_users_datasets(world: World) -> None:
    root = await engramdb.create_user("root@example.com", is_admin=True)
    assert root.is_admin
    with pytest.raises(PermissionDeniedError):
        await engramdb.recall(QUERY, dataset_ids=[world.vault], user=root)
    assert not leaks(await engramdb.recall(QUERY, user=root))


async def test_conflicts_follow_the_dataset_permissions(
    world: World, openai_server: OpenAIServer
) -> None:
    paris = await engramdb.remember(
        "Alice Smith lives in Paris.",
        "people",
        user=world.alice,
        external_metadata={"effective_date": "2020-01-01"},
        self_improvement=False,
    )
    await engramdb.remember(
        "Alice Smith lives in Berlin.",
        "people",
        user=world.alice,
        external_metadata={"effective_date": "2023-05-01"},
        self_improvement=False,
    )
    _use_llm(openai_server)
    verdict = {"group": 1, "conflicting": True, "current_fact": 2, "explanation": "moved"}
    openai_server.enqueue("chat/completions", _chat(openai_server, {"verdicts": [verdict]}))
    await engramdb.improve("people", user=world.alice, build_global_context_index=False)
    (conflict,) = await engramdb.list_conflicts(user=world.alice)
    people = paris.dataset_id
    assert people is not None

    assert await engramdb.list_conflicts(user=world.bob) == []
    with pytest.raises(PermissionDeniedError):
        await engramdb.list_conflicts(people, user=world.bob)
    fact = conflict.facts[0].edge_id
    with pytest.raises(NotFoundError):
        await engramdb.resolve_conflict(conflict.id, fact, user=world.bob)

    await engramdb.grant(people, world.bob.id, "read", user=world.alice)
    assert [c.id for c in await engramdb.list_conflicts(people, user=world.bob)] == [conflict.id]
    with pytest.raises(PermissionDeniedError):
        await engramdb.resolve_conflict(conflict.id, fact, user=world.bob)
    await engramdb.grant(people, world.bob.id, "write", user=world.alice)
    resolved = await engramdb.resolve_conflict(conflict.id, fact, user=world.bob)
    assert resolved.status == "resolved"


def _chat(server: OpenAIServer, payload: dict[str, Any]) -> Reply:
    return Reply.json(server.chat_document(json.dumps(payload)))


async def test_a_users_preference_record_is_shown_to_that_user_only(
    world: World, tmp_path: Path
) -> None:
    """Personalization keeps one preference node per (user, dataset), built from that user's
    sessions: a reader of the dataset -- even its owner -- never sees another user's."""
    engramdb.config.set("personalization_enabled", True)
    await engramdb.grant(world.vault, world.bob.id, "write", user=world.alice)
    await engramdb.grant(world.vault, world.bob.id, "read", user=world.alice)
    await engramdb.session.add_guidance(
        "chat", "I prefer answers about plumcrest gardens.", section="preferences", user=world.bob
    )
    result = await engramdb.improve(world.vault, session_ids=["chat"], user=world.bob)
    assert result.stage("update_user_preferences").status == "completed"  # type: ignore[union-attr]

    def bobs(value: object) -> bool:
        return "plumcrest" in json.dumps(value, default=str)

    # positive control: Bob sees his own record
    mine = await engramdb.get_graph(dataset_ids=[world.vault], user=world.bob)
    (record,) = [n for n in mine.nodes if bobs(n.model_dump())]
    assert await engramdb.get_node(record.id, user=world.bob) == record
    # Alice owns the dataset, but the record is Bob's
    theirs = await engramdb.get_graph(dataset_ids=[world.vault], user=world.alice)
    assert not bobs(theirs.model_dump()) and record.id not in {n.id for n in theirs.nodes}
    assert all(record.id not in (e.source_id, e.target_id) for e in theirs.edges)
    assert await engramdb.get_node(record.id, user=world.alice) is None
    page = Path(await engramdb.visualize_graph(tmp_path / "alice.html", user=world.alice))
    assert "plumcrest" not in page.read_text(encoding="utf-8")
    for search_type in (engramdb.SearchType.CHUNKS, engramdb.SearchType.GRAPH_COMPLETION):
        results = await engramdb.recall(
            "Which gardens are preferred?", search_type, only_context=True, user=world.alice
        )
        assert not bobs([r.model_dump() for r in results]), search_type


async def test_cypher_hides_another_users_preference_record(world: World) -> None:
    engramdb.config.set("personalization_enabled", True)
    await engramdb.grant(world.vault, world.bob.id, "write", user=world.alice)
    await engramdb.session.add_guidance(
        "chat", "I prefer answers about plumcrest gardens.", section="preferences", user=world.bob
    )
    await engramdb.improve(world.vault, session_ids=["chat"], user=world.bob)
    rows = await engramdb.recall(
        "MATCH (n) RETURN n.text AS text", engramdb.SearchType.CYPHER, user=world.alice
    )
    assert rows and not any("plumcrest" in str(r.model_dump()) for r in rows)
    # its own user still reaches it (the seed's CYPHER exception), and nobody else's
    await engramdb.grant(world.vault, world.bob.id, "read", user=world.alice)
    own = await engramdb.recall(
        "MATCH (n) RETURN n.text AS text",
        engramdb.SearchType.CYPHER,
        dataset_ids=[world.vault],
        user=world.bob,
    )
    assert any("plumcrest" in str(r.model_dump()) for r in own)
