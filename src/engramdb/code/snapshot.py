"""One dataset's code graph in memory: stored nodes and edges, plus the references resolved.

The stored graph holds each file's own facts (:mod:`engramdb.code.index`); the ``calls``,
``imports`` and ``inherits`` edges between files are resolved here, by name, every time the graph
is loaded, so they are always consistent with the files currently stored. Resolution, in order:

1. ``self.x`` / ``cls.x`` / ``this.x`` inside a class: the class's member ``x``, else a base's;
2. a name bound by an import of the file (``np.array`` → ``numpy.array``);
3. a name of the file's own module (``helper`` → ``pkg.mod.helper``);
4. a fully qualified name, exactly, or as the unique name ending with it (``src/`` layouts);
5. for ``obj.name`` calls only: the one method or function called ``name`` in the repository,
   when there is exactly one (edge property ``resolution="name"``; the others say ``"exact"``).

Unresolved imports become ``ExternalDependency`` nodes (one per top-level package and repo);
other unresolved references are dropped. Loads are cached per (dataset, content fingerprint,
code-graph version), so a read after any write sees the new graph.
"""

from __future__ import annotations

import json
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from typing import Any
from uuid import UUID

from engramdb.code.model import (
    CODE_NODE_TYPES,
    DELTA_KEY,
    REPOS_KEY,
    STRUCTURAL_RELATIONS,
    VERSION_KEY,
)
from engramdb.models.records import stable_id
from engramdb.storage.base import Store

__all__ = ["CodeGraph", "load_graph"]

_SELF = frozenset({"self", "cls", "this"})
_LOAD_LIMIT = 10_000_000
_CACHE_SIZE = 16
_cache: OrderedDict[tuple[UUID, str, str], CodeGraph] = OrderedDict()


class CodeGraph:
    """Nodes (id → fact fields), deduplicated edges, adjacency and name indexes."""

    def __init__(self, nodes: Iterable[dict[str, Any]], edges: Iterable[dict[str, Any]]) -> None:
        self.nodes: dict[str, dict[str, Any]] = {n["id"]: n for n in nodes}
        self.repositories: dict[str, dict[str, Any]] = {}
        self.edges: list[dict[str, Any]] = []
        self.forward: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.reverse: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.by_name: dict[str, set[str]] = defaultdict(set)
        for node_id, node in self.nodes.items():
            self.by_name[node["name"]].add(node_id)
        seen: set[tuple[str, str, str]] = set()
        for edge in sorted(edges, key=lambda e: (e["source_id"], e["target_id"], e["type"])):
            key = (edge["source_id"], edge["target_id"], edge["type"])
            if key in seen or edge["source_id"] not in self.nodes:
                continue
            if edge["target_id"] not in self.nodes:
                continue
            seen.add(key)
            self.edges.append(edge)
            self.forward[edge["source_id"]].append(edge)
            self.reverse[edge["target_id"]].append(edge)
        for adjacency in (self.forward, self.reverse):
            for items in adjacency.values():
                items.sort(key=self.edge_sort_key)

    def node_sort_key(self, node_id: str) -> tuple[str, ...]:
        node = self.nodes[node_id]
        return (
            str(node.get("repo", "")),
            str(node.get("type", "")),
            str(node.get("name", "")).casefold(),
            str(node.get("file", "")),
            f"{node.get('line') or 0:09d}",
            node_id,
        )

    def edge_sort_key(self, edge: dict[str, Any]) -> tuple[Any, ...]:
        return (
            edge["type"],
            self.node_sort_key(edge["source_id"]),
            self.node_sort_key(edge["target_id"]),
        )


async def load_graph(store: Store, dataset_id: UUID) -> CodeGraph:
    """The code graph of one dataset (cached until its content or code graph changes)."""
    version = await store.get_improve_state(dataset_id, VERSION_KEY)
    if version is None:  # no code was ever indexed here: one indexed read, no graph load
        return CodeGraph([], [])
    fingerprint = await store.graph_fingerprint(dataset_id)
    key = (dataset_id, fingerprint, version)
    found = _cache.get(key)
    if found is not None:
        _cache.move_to_end(key)
        return found
    graph = await _load(store, dataset_id)
    _cache[key] = graph
    while len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return graph


async def _load(store: Store, dataset_id: UUID) -> CodeGraph:
    stored: list[dict[str, Any]] = []
    for node_type in CODE_NODE_TYPES:
        for node in await store.list_nodes([dataset_id], type=node_type, limit=_LOAD_LIMIT):
            props = node.properties
            stored.append(
                {
                    "id": str(node.id),
                    "type": node.type,
                    "name": node.name,
                    **{k: v for k, v in props.items() if k not in ("refs", "aliases")},
                    "_refs": props.get("refs") or [],
                    "_aliases": props.get("aliases") or {},
                }
            )
    ids = {n["id"] for n in stored}
    edges = [
        {
            "source_id": str(e.source_id),
            "target_id": str(e.target_id),
            "type": e.relation,
            "properties": dict(e.properties),
        }
        for e in await store.list_edges([dataset_id], limit=_LOAD_LIMIT)
        if e.relation in STRUCTURAL_RELATIONS and str(e.source_id) in ids
    ]
    resolver = _Resolver(dataset_id, stored, edges)
    edges.extend(resolver.resolve_all())
    nodes = [{k: v for k, v in n.items() if not k.startswith("_")} for n in stored]
    nodes.extend(resolver.dependencies.values())
    graph = CodeGraph(nodes, edges)
    raw = await store.get_improve_state(dataset_id, REPOS_KEY)
    for repo in json.loads(raw) if raw else []:
        delta = await store.get_improve_state(dataset_id, DELTA_KEY + repo)
        graph.repositories[repo] = json.loads(delta) if delta else {}
    return graph


class _Resolver:
    def __init__(
        self, dataset_id: UUID, nodes: list[dict[str, Any]], edges: list[dict[str, Any]]
    ) -> None:
        self.dataset_id = dataset_id
        self.nodes = nodes
        self.by_key: dict[tuple[str, str], str] = {}
        self.by_short: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.by_suffix: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.modules: dict[tuple[str, str], dict[str, Any]] = {}
        self.owner: dict[str, str] = {}  # method id → class name
        self.dependencies: dict[str, dict[str, Any]] = {}
        self.bases: dict[str, list[str]] = {}
        self.by_id = by_id = {n["id"]: n for n in nodes}
        for node in nodes:
            repo = str(node.get("repo", ""))
            if node["type"] == "CodeFile":
                continue
            self.by_key.setdefault((repo, node["name"]), node["id"])
            name = node["name"]
            for cut, char in enumerate(name):
                if char in "./" and cut + 1 < len(name):
                    self.by_suffix[(repo, name[cut + 1 :])].append(node["id"])
            if node["type"] == "CodeModule":
                self.modules[(repo, str(node.get("file", "")))] = node
            elif node.get("symbol_kind") in ("function", "method"):
                self.by_short[(repo, node["name"].rsplit(".", 1)[-1])].append(node["id"])
        for edge in edges:
            if edge["type"] == "has_method" and edge["source_id"] in by_id:
                self.owner[edge["target_id"]] = by_id[edge["source_id"]]["name"]

    def resolve_all(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        # Bases first: ``self.x`` may resolve through a class's bases.
        ordered = sorted(self.nodes, key=lambda n: n.get("symbol_kind") != "class")
        for node in ordered:
            repo = str(node.get("repo", ""))
            module = self.modules.get((repo, str(node.get("file", ""))), {})
            aliases: dict[str, str] = module.get("_aliases") or {}
            for relation, target, line in node.get("_refs") or []:
                resolved, how = self.resolve(node, relation, str(target), aliases)
                if resolved is None or (resolved == node["id"] and relation != "calls"):
                    continue
                if relation == "inherits":
                    self.bases.setdefault(node["name"], []).append(resolved)
                found.append(
                    {
                        "source_id": node["id"],
                        "target_id": resolved,
                        "type": relation,
                        "properties": {"line": line, "resolution": how},
                    }
                )
        return found

    def resolve(
        self, node: dict[str, Any], relation: str, target: str, aliases: dict[str, str]
    ) -> tuple[str | None, str]:
        repo = str(node.get("repo", ""))
        head, _, rest = target.partition(".")
        if head in _SELF:
            owner = (
                node["name"] if node.get("symbol_kind") == "class" else self.owner.get(node["id"])
            )
            return (self.member(repo, owner, rest) if owner and rest else None), "exact"
        candidates: list[str] = []
        if head in aliases:
            candidates.append(aliases[head] + (f".{rest}" if rest else ""))
        else:
            module = str(node.get("module", ""))
            if module:
                candidates.append(f"{module}.{target}")
            candidates.append(target)
        for name in candidates:
            found = self.by_key.get((repo, name)) or self.suffix(repo, name)
            if found is not None:
                return found, "exact"
        if relation == "imports":
            return self.dependency(repo, candidates[0]), "exact"
        if relation == "calls" and rest and head not in aliases:
            short = self.by_short.get((repo, target.rsplit(".", 1)[-1]), [])
            if len(short) == 1:
                return short[0], "name"
        return None, "exact"

    def member(self, repo: str, owner: str, rest: str, depth: int = 0) -> str | None:
        found = self.by_key.get((repo, f"{owner}.{rest}"))
        if found is not None or depth > 5:
            return found
        for base_id in self.bases.get(owner, []):
            found = self.member(repo, self.by_id[base_id]["name"], rest, depth + 1)
            if found is not None:
                return found
        return None

    def suffix(self, repo: str, name: str) -> str | None:
        """The one node whose name ends with ``.name`` or ``/name`` (None: none, or several);
        only for dotted names (a bare name must be local or imported)."""
        if "." not in name and "/" not in name:
            return None
        hits = self.by_suffix.get((repo, name), [])
        return hits[0] if len(hits) == 1 else None

    def dependency(self, repo: str, name: str) -> str:
        package = (
            name.split("/", 1)[0] if not name.startswith("@") else "/".join(name.split("/")[:2])
        )
        package = package.split(".", 1)[0] if "/" not in package else package
        node_id = str(stable_id("code-dependency", self.dataset_id, repo, package))
        self.dependencies.setdefault(
            node_id,
            {"id": node_id, "type": "ExternalDependency", "name": package, "repo": repo},
        )
        return node_id
