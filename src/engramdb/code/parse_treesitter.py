"""JavaScript and TypeScript source to :class:`~engramdb.code.model.ParsedFile`, with tree-sitter.

The grammars ship as wheels (``tree-sitter-javascript``, ``tree-sitter-typescript``) behind the
``code`` extra. Symbols: the module, top-level classes (with their methods), function
declarations and ``const f = () => ...`` / ``function`` expressions bound at top level.
References: calls and ``new`` of plain or member names, ``extends`` clauses, and ``import``
statements (relative specifiers are resolved against the importing file).
"""

from __future__ import annotations

import importlib
import posixpath
from functools import cache
from typing import Any

from engramdb.code.model import CodeRef, ParsedFile, Symbol
from engramdb.errors import FeatureNotAvailableError

__all__ = ["INSTALL_HINT", "TREE_SITTER_SUFFIXES", "module_path", "parse_treesitter"]

#: suffix → (language name, grammar module, function returning the language).
TREE_SITTER_SUFFIXES: dict[str, tuple[str, str, str]] = {
    ".js": ("javascript", "tree_sitter_javascript", "language"),
    ".jsx": ("javascript", "tree_sitter_javascript", "language"),
    ".mjs": ("javascript", "tree_sitter_javascript", "language"),
    ".cjs": ("javascript", "tree_sitter_javascript", "language"),
    ".ts": ("typescript", "tree_sitter_typescript", "language_typescript"),
    ".tsx": ("typescript", "tree_sitter_typescript", "language_tsx"),
}
INSTALL_HINT = "pip install 'engramdb[code]'"

_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function"})
_NAME_NODES = frozenset({"identifier", "type_identifier", "property_identifier"})


@cache
def _parser(suffix: str) -> Any:
    _language, module, attr = TREE_SITTER_SUFFIXES[suffix]
    try:
        tree_sitter = importlib.import_module("tree_sitter")
        grammar = importlib.import_module(module)
    except ImportError as exc:
        raise FeatureNotAvailableError(
            f"indexing '{suffix}' files needs the tree-sitter grammars: {INSTALL_HINT} "
            "(Python files need no extra)"
        ) from exc
    return tree_sitter.Parser(tree_sitter.Language(getattr(grammar, attr)()))


def module_path(path: str) -> str:
    """The module name of a JS/TS file: its path without the suffix (``a/index.ts`` → ``a``)."""
    stem = path.rsplit(".", 1)[0]
    if stem.endswith("/index"):
        return stem[: -len("/index")]
    return stem


def parse_treesitter(path: str, source: bytes) -> ParsedFile:
    """Parse one JS/TS file (tree-sitter recovers from syntax errors, so this never fails on
    content); FeatureNotAvailableError naming the extra when the grammars are not installed."""
    suffix = "." + path.rsplit(".", 1)[-1].lower()
    language = TREE_SITTER_SUFFIXES[suffix][0]
    tree = _parser(suffix).parse(source)
    root = tree.root_node
    module = module_path(path)
    parsed = ParsedFile(path=path, language=language, module=module)
    end = root.end_point[0] + 1
    parsed.symbols.append(Symbol("CodeFile", path, 1, end))
    mod = Symbol("CodeModule", module, 1, end)
    parsed.symbols.append(mod)
    parsed.edges.append(("contains", path, module))
    walker = _Walker(source, parsed, posixpath.dirname(path))
    for child in root.named_children:
        walker.top_level(child, mod)
    return parsed


class _Walker:
    def __init__(self, source: bytes, parsed: ParsedFile, directory: str) -> None:
        self.source = source
        self.parsed = parsed
        self.directory = directory

    def text(self, node: Any) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def top_level(self, node: Any, mod: Symbol) -> None:
        kind = node.type
        if kind == "export_statement":
            declaration = node.child_by_field_name("declaration")
            if declaration is not None:
                self.top_level(declaration, mod)
            else:
                mod.refs.extend(self.refs(node))
        elif kind in ("class_declaration", "abstract_class_declaration"):
            self.klass(node)
        elif kind in ("function_declaration", "generator_function_declaration"):
            self.function(node, node.child_by_field_name("name"), node, "function")
        elif kind in ("lexical_declaration", "variable_declaration"):
            for declarator in node.named_children:
                value = declarator.child_by_field_name("value")
                name = declarator.child_by_field_name("name")
                if value is not None and value.type in _FUNCTION_VALUES and name is not None:
                    self.function(declarator, name, value, "function")
                else:
                    mod.refs.extend(self.refs(declarator))
        elif kind == "import_statement":
            mod.refs.extend(self.imports(node))
        else:
            mod.refs.extend(self.refs(node))

    def symbol(self, node: Any, name: str, kind: str) -> Symbol:
        return Symbol(
            "CodeSymbol",
            name,
            node.start_point[0] + 1,
            node.end_point[0] + 1,
            symbol_kind=kind,
        )

    def function(self, node: Any, name_node: Any, body: Any, kind: str) -> None:
        if name_node is None:
            return
        module = self.parsed.module
        sym = self.symbol(node, f"{module}.{self.text(name_node)}", kind)
        sym.refs.extend(self.refs(body))
        self.parsed.symbols.append(sym)
        self.parsed.edges.append(("contains", module, sym.name))

    def klass(self, node: Any) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        module = self.parsed.module
        cls = self.symbol(node, f"{module}.{self.text(name_node)}", "class")
        for child in node.named_children:
            if child.type == "class_heritage":
                for target in self.heritage(child):
                    cls.refs.append(CodeRef("inherits", target, child.start_point[0] + 1))
        self.parsed.symbols.append(cls)
        self.parsed.edges.append(("contains", module, cls.name))
        body = node.child_by_field_name("body")
        for member in body.named_children if body is not None else []:
            member_name = member.child_by_field_name("name")
            if member.type == "method_definition" and member_name is not None:
                method = self.symbol(member, f"{cls.name}.{self.text(member_name)}", "method")
                method.refs.extend(self.refs(member))
                self.parsed.symbols.append(method)
                self.parsed.edges.append(("has_method", cls.name, method.name))
            else:
                cls.refs.extend(self.refs(member))

    def heritage(self, node: Any) -> list[str]:
        """The names after ``extends`` (JS puts them directly, TS in an extends_clause)."""
        found: list[str] = []
        for child in node.named_children:
            if child.type == "extends_clause":
                found.extend(self.heritage(child))
            elif child.type in _NAME_NODES or child.type == "member_expression":
                dotted = self.dotted(child)
                if dotted:
                    found.append(dotted)
        return found

    def dotted(self, node: Any) -> str | None:
        if node.type in _NAME_NODES or node.type == "this":
            return self.text(node)
        if node.type == "member_expression":
            obj = node.child_by_field_name("object")
            prop = node.child_by_field_name("property")
            head = self.dotted(obj) if obj is not None else None
            if head is None or prop is None:
                return None
            return f"{head}.{self.text(prop)}"
        return None

    def refs(self, root: Any) -> list[CodeRef]:
        refs: list[CodeRef] = []
        stack = [root]
        while stack:
            node = stack.pop()
            if node.type in ("call_expression", "new_expression"):
                callee = node.child_by_field_name(
                    "function" if node.type == "call_expression" else "constructor"
                )
                dotted = self.dotted(callee) if callee is not None else None
                if dotted is not None:
                    refs.append(CodeRef("calls", dotted, node.start_point[0] + 1))
            elif node.type == "import_statement":
                refs.extend(self.imports(node))
                continue
            stack.extend(reversed(node.named_children))
        return refs

    def imports(self, node: Any) -> list[CodeRef]:
        source = node.child_by_field_name("source")
        if source is None:
            return []
        spec = self.text(source).strip("'\"`")
        target = spec
        if spec.startswith("."):
            target = module_path(posixpath.normpath(posixpath.join(self.directory, spec)) + ".js")
        for clause in node.named_children:
            if clause.type != "import_clause":
                continue
            for part in clause.named_children:
                if part.type == "identifier":  # default import: the module's default export
                    self.parsed.aliases[self.text(part)] = target
                elif part.type == "namespace_import":
                    for name in part.named_children:
                        self.parsed.aliases[self.text(name)] = target
                elif part.type == "named_imports":
                    for spec_node in part.named_children:
                        name = spec_node.child_by_field_name("name")
                        alias = spec_node.child_by_field_name("alias")
                        if name is not None:
                            local = self.text(alias if alias is not None else name)
                            self.parsed.aliases[local] = f"{target}.{self.text(name)}"
        return [CodeRef("imports", target, node.start_point[0] + 1)]
