"""The facts one source file yields, before they become store nodes.

A parser turns one file into a :class:`ParsedFile`: its symbols (the module itself, classes,
functions, methods) with qualified names and line spans, the structural edges between them
(``contains``, ``has_method``), and the *references* each symbol makes by name (``calls``,
``bases``, ``imports``). References are resolved against the whole repository only when the
graph is read (:mod:`engramdb.code.snapshot`), so re-parsing one file never invalidates another
file's stored facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "CODE_NODE_TYPES",
    "DELTA_KEY",
    "KIND_BY_TYPE",
    "REF_RELATIONS",
    "REPOS_KEY",
    "STRUCTURAL_RELATIONS",
    "TYPE_SYMBOL_KINDS",
    "VERSION_KEY",
    "CodeRef",
    "ParsedFile",
    "Symbol",
]

#: Store node types of the code graph (cognee's names), and the operation-facing kind of each.
KIND_BY_TYPE: dict[str, str] = {
    "CodeFile": "file",
    "CodeModule": "module",
    "CodeSymbol": "symbol",
    "ExternalDependency": "dependency",
}
CODE_NODE_TYPES: tuple[str, ...] = tuple(KIND_BY_TYPE)
#: Edges stored with the file that declares them.
STRUCTURAL_RELATIONS: tuple[str, ...] = ("contains", "has_method")
#: Edges resolved by name across files when the graph is read.
REF_RELATIONS: tuple[str, ...] = ("calls", "imports", "inherits")
#: Dataset-state keys: the repositories indexed, each one's last delta (key + repo name), and
#: the code graph's version (changes with every indexing that wrote something).
REPOS_KEY = "code:repos"
DELTA_KEY = "code:delta:"
VERSION_KEY = "code:version"
#: Symbol kinds whose impact includes their methods (cognee's type roll-up).
TYPE_SYMBOL_KINDS = frozenset({"class", "interface", "struct", "type"})


@dataclass(frozen=True, slots=True)
class CodeRef:
    """A name a symbol refers to, as written (``helper``, ``self.save``, ``models.User``)."""

    relation: str
    target: str
    line: int


@dataclass(slots=True)
class Symbol:
    """One node: ``node_type`` is a :data:`CODE_NODE_TYPES` entry; ``symbol_kind`` is
    ``class``/``function``/``method`` for a CodeSymbol (``""`` otherwise)."""

    node_type: str
    name: str
    line: int
    end_line: int
    symbol_kind: str = ""
    description: str = ""
    refs: list[CodeRef] = field(default_factory=list)


@dataclass(slots=True)
class ParsedFile:
    """Everything one file yields. ``aliases`` maps a local name bound by an import to the
    qualified name it stands for (``np`` → ``numpy``, ``User`` → ``app.models.User``)."""

    path: str
    language: str
    module: str
    symbols: list[Symbol] = field(default_factory=list)
    #: (relation, source name, target name) between symbols of this file.
    edges: list[tuple[str, str, str]] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)
