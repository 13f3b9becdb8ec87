"""The deterministic operations over a :class:`~engramdb.code.snapshot.CodeGraph` (cognee's
``SearchType.CODE`` operations, with its argument names and result shapes).

``config`` is the ``code_query`` dict; ``query`` the recall's text, used as the seed when the
config names none. Operations: ``explore`` (default; the seed and its neighbours, both ways,
depth 1), ``traverse`` (breadth-first from seeds, ``direction`` forward/reverse/both),
``find_path`` (shortest forward path ``source`` → ``target``), ``impact_analysis`` (everything
that depends on the targets, by depth), ``query_facts`` (filtered, paged listing) and ``delta``
(what the last indexing of each repository changed).

Bad arguments raise InvalidCodeQueryError; a seed that does not resolve (or is ambiguous)
raises CodeSeedNotFoundError, which the recall lane turns into "no results".
"""

from __future__ import annotations

import copy
from collections import defaultdict, deque
from collections.abc import Mapping
from typing import Any

from engramdb.code.model import KIND_BY_TYPE, TYPE_SYMBOL_KINDS
from engramdb.code.snapshot import CodeGraph
from engramdb.errors import CodeSeedNotFoundError, InvalidCodeQueryError

__all__ = ["OPERATIONS", "run_operation"]

OPERATIONS = ("delta", "explore", "find_path", "impact_analysis", "query_facts", "traverse")
_TYPE_BY_KIND = {kind: node_type for node_type, kind in KIND_BY_TYPE.items()}
_PREFERENCE = {"CodeSymbol": 0, "CodeModule": 1, "CodeFile": 2, "ExternalDependency": 3}
_EXTENSIONS = frozenset({"py", "js", "jsx", "mjs", "cjs", "ts", "tsx"})


def run_operation(graph: CodeGraph, config: Mapping[str, Any] | None, query: str) -> dict[str, Any]:
    """Run the operation ``config["operation"]`` (default ``explore``) over ``graph``."""
    cfg = dict(config or {})
    operation = str(cfg.get("operation") or "explore").lower()
    if operation not in OPERATIONS:
        raise InvalidCodeQueryError(
            f"unknown code_query operation {operation!r}; use one of {', '.join(OPERATIONS)}"
        )
    ops = _Ops(graph, cfg)
    result: dict[str, Any] = getattr(ops, operation)(query)
    return result


def _strings(value: Any, field: str) -> list[str]:
    if value in (None, ""):
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list | tuple | set) or not all(
        isinstance(v, str) and v for v in value
    ):
        raise InvalidCodeQueryError(f"code_query {field} must be a string or a list of strings")
    return sorted(value) if isinstance(value, set) else list(dict.fromkeys(value))


def _bounded(value: Any, field: str, default: int, maximum: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidCodeQueryError(f"code_query {field} must be an integer, got {value!r}")
    return default if value <= 0 else min(value, maximum)


def _direction(value: Any, default: str) -> str:
    direction = str(value or default).lower()
    if direction not in ("forward", "reverse", "both"):
        raise InvalidCodeQueryError(
            f"code_query direction must be 'forward', 'reverse' or 'both', got {value!r}"
        )
    return direction


def _node_types(value: Any) -> set[str] | None:
    found: set[str] = set()
    for item in _strings(value, "node_types"):
        lowered = item.strip().lower()
        match = _TYPE_BY_KIND.get(lowered) or next(
            (t for t in KIND_BY_TYPE if t.lower() == lowered), None
        )
        if match is None:
            raise InvalidCodeQueryError(
                f"unknown code node kind {item!r}; use one of {', '.join(sorted(_TYPE_BY_KIND))}"
            )
        found.add(match)
    return found or None


def _short_forms(name: str) -> set[str]:
    lowered = name.casefold()
    forms: set[str] = set()
    if "." in lowered:
        forms.add(lowered.rsplit(".", 1)[1])
    base = lowered.rsplit("/", 1)[-1]
    if base != lowered:
        forms.add(base)
    stem, dot, extension = base.rpartition(".")
    if dot and extension in _EXTENSIONS:
        forms.add(stem)
    return forms


def _tier(name: str, term: str) -> int:
    """How well ``name`` matches the lower-cased ``term``: 3 exact, 2 short name or dotted
    suffix, 1 substring, -1 not at all."""
    lowered = name.casefold()
    if lowered == term:
        return 3
    if term in _short_forms(name):
        return 2
    if lowered.endswith(term) and len(lowered) > len(term) and lowered[-len(term) - 1] in "./":
        return 2
    return 1 if term in lowered else -1


class _Ops:
    def __init__(self, graph: CodeGraph, config: dict[str, Any]) -> None:
        self.g = graph
        self.cfg = config

    # --- facts ----------

    def fact(
        self, node_id: str, *, depth: int | None = None, relations: bool = True
    ) -> dict[str, Any]:
        node = self.g.nodes[node_id]
        out: dict[str, Any] = {
            "id": node_id,
            "kind": KIND_BY_TYPE[node["type"]],
            "type": node["type"],
            "name": node["name"],
        }
        for key in ("file", "line", "end_line", "repo", "symbol_kind", "description", "language"):
            value = node.get(key)
            if value not in (None, ""):
                out[key] = value
        if relations:
            rels = [
                {
                    "type": e["type"],
                    "target_id": e["target_id"],
                    "target": self.name(e["target_id"]),
                }
                for e in self.g.forward.get(node_id, [])
            ]
            if rels:
                out["relations"] = rels
        if depth is not None:
            out["depth"] = depth
        return out

    def name(self, node_id: str) -> str:
        return str(self.g.nodes[node_id]["name"])

    def edge(self, edge: dict[str, Any]) -> dict[str, Any]:
        out = {
            "source_id": edge["source_id"],
            "source": self.name(edge["source_id"]),
            "target_id": edge["target_id"],
            "target": self.name(edge["target_id"]),
            "type": edge["type"],
        }
        if edge.get("properties"):
            out["properties"] = dict(edge["properties"])
        return out

    # --- resolution ----------

    def resolve(self, *, name: Any = None, node_id: Any = None, repo: Any = None, role: str) -> str:
        if node_id:
            key = str(node_id)
            if key not in self.g.nodes or (repo and self.g.nodes[key].get("repo") != repo):
                raise CodeSeedNotFoundError(f"code graph has no {role} with id {key!r}")
            return key
        term = str(name or "").strip()
        if not term:
            raise InvalidCodeQueryError(f"code_query {role} needs a name or an id")
        lowered = term.casefold()
        ranked: list[tuple[int, str]] = []
        for candidate_id, node in self.g.nodes.items():
            if repo and node.get("repo") != repo:
                continue
            tier = _tier(str(node["name"]), lowered)
            if tier >= 0:
                ranked.append((tier, candidate_id))
        if not ranked:
            raise CodeSeedNotFoundError(f"code graph has no {role} named {term!r}")
        best_tier = max(t for t, _ in ranked)
        best = sorted((c for t, c in ranked if t == best_tier), key=self.g.node_sort_key)
        if len(best) > 1:  # a symbol over its module over its file (``user`` → module user)
            rank = min(_PREFERENCE[self.g.nodes[b]["type"]] for b in best)
            best = [b for b in best if _PREFERENCE[self.g.nodes[b]["type"]] == rank]
        if len(best) > 1:
            choices = ", ".join(
                f"{self.name(b)} [{self.g.nodes[b]['type']}, id={b}]" for b in best[:10]
            )
            raise CodeSeedNotFoundError(
                f"{role} name {term!r} is ambiguous; pass an exact name, an id or a repo. "
                f"Candidates: {choices}"
            )
        return best[0]

    def seeds(
        self, query: str, role: str, names: tuple[str, ...], ids: tuple[str, ...]
    ) -> list[str]:
        id_list = _strings(self.cfg.get("node_ids"), "node_ids")
        if self.cfg.get("id"):
            id_list.append(str(self.cfg["id"]))
        for field in ids:
            id_list.extend(_strings(self.cfg.get(field), field))
        name_list = _strings(self.cfg.get("names"), "names")
        if self.cfg.get("name"):
            name_list.append(str(self.cfg["name"]))
        for field in names:
            name_list.extend(_strings(self.cfg.get(field), field))
        if not id_list and not name_list and query.strip():
            name_list.append(query.strip())
        repo = self.cfg.get("repo")
        found = [self.resolve(node_id=i, repo=repo, role=role) for i in id_list]
        found += [self.resolve(name=n, repo=repo, role=role) for n in name_list]
        if not found:
            raise InvalidCodeQueryError(f"code_query {role} needs query_text, names or node_ids")
        return sorted(set(found), key=self.g.node_sort_key)

    def relation_types(self) -> set[str] | None:
        values: list[str] = []
        for field in ("relation_types", "relation_kinds", "relation"):
            values.extend(_strings(self.cfg.get(field), field))
        return set(values) or None

    def adjacent(
        self, node_id: str, direction: str, relations: set[str] | None
    ) -> list[tuple[str, dict[str, Any]]]:
        found: list[tuple[str, dict[str, Any]]] = []
        if direction in ("forward", "both"):
            found += [(e["target_id"], e) for e in self.g.forward.get(node_id, [])]
        if direction in ("reverse", "both"):
            found += [(e["source_id"], e) for e in self.g.reverse.get(node_id, [])]
        if relations is not None:
            found = [item for item in found if item[1]["type"] in relations]
        found.sort(key=lambda item: (self.g.node_sort_key(item[0]), self.g.edge_sort_key(item[1])))
        return found

    def walk(
        self,
        seeds: list[str],
        *,
        direction: str,
        max_depth: int,
        max_nodes: int,
        node_types: set[str] | None = None,
    ) -> dict[str, Any]:
        relations = self.relation_types()
        seeds = sorted(set(seeds), key=self.g.node_sort_key)
        visited, included = set(seeds), set(seeds)
        nodes = [self.fact(s, depth=0, relations=False) for s in seeds]
        queue = deque((s, 0) for s in seeds)
        traversed: dict[tuple[str, str, str], dict[str, Any]] = {}
        deepest, truncated = 0, len(nodes) > max_nodes
        while queue:
            node_id, depth = queue.popleft()
            if depth >= max_depth:
                continue
            for neighbour, edge in self.adjacent(node_id, direction, relations):
                traversed.setdefault((edge["source_id"], edge["target_id"], edge["type"]), edge)
                if neighbour in visited:
                    continue
                visited.add(neighbour)
                deepest = max(deepest, depth + 1)
                if node_types is not None and self.g.nodes[neighbour]["type"] not in node_types:
                    queue.append((neighbour, depth + 1))
                    continue
                if len(nodes) >= max_nodes:
                    truncated = True
                    continue
                included.add(neighbour)
                nodes.append(self.fact(neighbour, depth=depth + 1, relations=False))
                queue.append((neighbour, depth + 1))
        edges = [
            self.edge(e)
            for e in sorted(traversed.values(), key=self.g.edge_sort_key)
            if e["source_id"] in included and e["target_id"] in included
        ]
        return {
            "nodes": nodes,
            "edges": edges,
            "stats": {
                "nodes_visited": len(visited),
                "edges_traversed": len(traversed),
                "max_depth_reached": deepest,
                "truncated": truncated,
            },
        }

    def rollup(self, targets: list[str]) -> list[str]:
        """A type's impact includes its methods'."""
        seeds = set(targets)
        for target in targets:
            if self.g.nodes[target].get("symbol_kind") in TYPE_SYMBOL_KINDS:
                seeds.update(
                    e["target_id"]
                    for e in self.g.forward.get(target, [])
                    if e["type"] == "has_method"
                )
        return sorted(seeds, key=self.g.node_sort_key)

    # --- operations ----------

    def explore(self, query: str) -> dict[str, Any]:
        seed = self.resolve(
            name=self.cfg.get("name") or self.cfg.get("focus") or query,
            node_id=self.cfg.get("id") or self.cfg.get("node_id"),
            repo=self.cfg.get("repo"),
            role="explore seed",
        )
        walked = self.walk(
            [seed],
            direction=_direction(self.cfg.get("direction"), "both"),
            max_depth=_bounded(self.cfg.get("max_depth"), "max_depth", 1, 2),
            max_nodes=_bounded(self.cfg.get("max_nodes"), "max_nodes", 100, 500),
            node_types=_node_types(self.cfg.get("node_types")),
        )
        return {"operation": "explore", "focus": self.fact(seed), **walked}

    def traverse(self, query: str) -> dict[str, Any]:
        seeds = self.seeds(query, "traverse seed", ("start", "starts"), ("start_id", "start_ids"))
        direction = _direction(self.cfg.get("direction"), "forward")
        if direction == "reverse" and self.cfg.get("type_rollup", True):
            seeds = self.rollup(seeds)
        walked = self.walk(
            seeds,
            direction=direction,
            max_depth=_bounded(self.cfg.get("max_depth"), "max_depth", 5, 20),
            max_nodes=_bounded(self.cfg.get("max_nodes"), "max_nodes", 100, 500),
            node_types=_node_types(self.cfg.get("node_types")),
        )
        return {"operation": "traverse", **walked}

    def find_path(self, query: str) -> dict[str, Any]:
        cfg = self.cfg
        source = self.resolve(
            name=cfg.get("source") or cfg.get("from") or cfg.get("name") or query,
            node_id=cfg.get("source_id") or cfg.get("from_id") or cfg.get("id"),
            repo=cfg.get("source_repo") or cfg.get("repo"),
            role="path source",
        )
        target = self.resolve(
            name=cfg.get("target") or cfg.get("to"),
            node_id=cfg.get("target_id") or cfg.get("to_id"),
            repo=cfg.get("target_repo"),
            role="path target",
        )
        max_depth = _bounded(cfg.get("max_depth"), "max_depth", 10, 20)
        goals = set(self.rollup([target]) if cfg.get("target_rollup", True) else [target])
        parent: dict[str, tuple[str, dict[str, Any]]] = {}
        matched = source if source in goals else None
        visited, queue = {source}, deque([(source, 0)])
        relations = self.relation_types()
        while queue and matched is None:
            node_id, depth = queue.popleft()
            if depth >= max_depth:
                continue
            for neighbour, edge in self.adjacent(node_id, "forward", relations):
                if neighbour in visited:
                    continue
                visited.add(neighbour)
                parent[neighbour] = (node_id, edge)
                if neighbour in goals:
                    matched = neighbour
                    break
                queue.append((neighbour, depth + 1))
        path, edges = [], []
        current = matched
        while current is not None and current != source:
            path.append(current)
            previous, edge = parent[current]
            edges.append(edge)
            current = previous
        if matched is not None:
            path.append(source)
        path.reverse()
        edges.reverse()
        result: dict[str, Any] = {
            "operation": "find_path",
            "from": self.fact(source, relations=False),
            "to": self.fact(target, relations=False),
            "found": matched is not None,
            "path": [self.fact(n, depth=i, relations=False) for i, n in enumerate(path)],
            "edges": [self.edge(e) for e in edges],
        }
        if matched is not None and matched != target:
            result["matched_to"] = self.fact(matched, relations=False)
        return result

    def impact_analysis(self, query: str) -> dict[str, Any]:
        targets = self.seeds(
            query, "impact target", ("target", "targets"), ("target_id", "target_ids")
        )
        seeds = self.rollup(targets)
        max_depth = _bounded(self.cfg.get("max_depth"), "max_depth", 3, 10)
        max_nodes = _bounded(self.cfg.get("max_nodes"), "max_nodes", 200, 500)
        node_types = _node_types(self.cfg.get("node_types"))
        reverse = self.walk(
            seeds,
            direction="reverse",
            max_depth=max_depth,
            max_nodes=max_nodes,
            node_types=node_types,
        )
        seed_set = set(seeds)
        grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for node in reverse["nodes"]:
            if node["id"] not in seed_set and node["depth"] > 0:
                grouped[str(node["depth"])].append(node)
        by_depth = dict(sorted(grouped.items(), key=lambda item: int(item[0])))
        total = self.reachable(seeds, max_depth)
        target_repos = {str(self.g.nodes[t].get("repo") or "") for t in targets}
        cross_repo = sorted(
            {
                str(n["repo"])
                for nodes in by_depth.values()
                for n in nodes
                if n.get("repo") and str(n["repo"]) not in target_repos
            }
        )
        result: dict[str, Any] = {
            "operation": "impact_analysis",
            "targets": [self.fact(t, relations=False) for t in targets],
            "impact_seeds": [self.fact(s, depth=0, relations=False) for s in seeds],
            "by_depth": by_depth,
            "edges": reverse["edges"],
            "total_dependents": total,
            "cross_repo_impact": cross_repo,
            "summary": _summary(by_depth, total),
            "stats": reverse["stats"],
        }
        if self.cfg.get("include_dependencies") or self.cfg.get("include_forward"):
            result["forward_dependencies"] = self.walk(
                targets,
                direction="forward",
                max_depth=max_depth,
                max_nodes=max_nodes,
                node_types=node_types,
            )
        return result

    def reachable(self, seeds: list[str], max_depth: int) -> int:
        relations = self.relation_types()
        visited, queue = set(seeds), deque((s, 0) for s in seeds)
        while queue:
            node_id, depth = queue.popleft()
            if depth >= max_depth:
                continue
            for neighbour, _edge in self.adjacent(node_id, "reverse", relations):
                if neighbour not in visited:
                    visited.add(neighbour)
                    queue.append((neighbour, depth + 1))
        return len(visited - set(seeds))

    def delta(self, query: str) -> dict[str, Any]:
        wanted = str(self.cfg.get("repo") or self.cfg.get("name") or query or "").strip().casefold()
        repositories = [
            {
                "repo": repo,
                "last_snapshot_id": delta.get("snapshot_id"),
                "delta": copy.deepcopy(delta) or None,  # results never share the cached graph
            }
            for repo, delta in sorted(self.g.repositories.items())
            if not wanted or wanted in repo.casefold()
        ]
        return {"operation": "delta", "repositories": repositories}

    def query_facts(self, query: str) -> dict[str, Any]:
        cfg = self.cfg
        kinds = _strings(cfg.get("kinds"), "kinds") + (
            [str(cfg["kind"])] if cfg.get("kind") else []
        )
        types = _node_types(kinds)
        files = set(_strings(cfg.get("files"), "files"))
        if cfg.get("file"):
            files.add(str(cfg["file"]))
        names = set(_strings(cfg.get("names"), "names"))
        bare = set(cfg).issubset({"operation"})
        substring = str(cfg.get("name") or (query if bare else "")).strip().casefold()
        prefix = str(cfg.get("file_prefix") or "")
        repo = cfg.get("repo")
        symbol_kind = cfg.get("symbol_kind")
        relations = self.relation_types()
        matched = []
        for node_id in sorted(self.g.nodes, key=self.g.node_sort_key):
            node = self.g.nodes[node_id]
            file_name = str(node.get("file") or "")
            name = str(node["name"])
            if types and node["type"] not in types:
                continue
            if (
                (files or prefix)
                and file_name not in files
                and not (prefix and file_name.startswith(prefix))
            ):
                continue
            if (
                (names or substring)
                and name not in names
                and not (substring and substring in name.casefold())
            ):
                continue
            if repo is not None and node.get("repo") != repo:
                continue
            if symbol_kind and node.get("symbol_kind") != symbol_kind:
                continue
            if relations and not any(
                e["type"] in relations for e in self.g.forward.get(node_id, [])
            ):
                continue
            matched.append(node_id)
        offset = cfg.get("offset") or 0
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise InvalidCodeQueryError("code_query offset must be a non-negative integer")
        limit = _bounded(cfg.get("limit"), "limit", 100, 500)
        page = matched[offset : offset + limit]
        return {
            "operation": "query_facts",
            "facts": [self.fact(n) for n in page],
            "total": len(matched),
            "offset": offset,
            "limit": limit,
            "has_more": offset + len(page) < len(matched),
        }


def _summary(by_depth: Mapping[str, list[dict[str, Any]]], total: int) -> str:
    if total == 0:
        return "No dependents found."
    shown = sum(len(nodes) for nodes in by_depth.values())
    groups = []
    for depth, nodes in by_depth.items():
        counts: dict[str, int] = defaultdict(int)
        for node in nodes:
            counts[str(node.get("kind") or "unknown")] += 1
        detail = ", ".join(f"{c} {k}{'s' if c != 1 else ''}" for k, c in sorted(counts.items()))
        groups.append(f"depth {depth}: {detail}")
    prefix = f"{total} total dependents" + (f" (showing {shown})" if shown < total else "")
    return prefix + (" — " + "; ".join(groups) if groups else "")
