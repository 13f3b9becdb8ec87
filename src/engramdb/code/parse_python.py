"""Python source to :class:`~engramdb.code.model.ParsedFile`, with the standard library's ``ast``.

What becomes a symbol: the module, its top-level classes and functions, and the methods of those
classes (nested functions and classes belong to their enclosing symbol: their calls count as its
calls). References: every call whose callee is a plain or dotted name (``f()``, ``self.save()``,
``models.User()``), every class base, and every import (module-level or not).
"""

from __future__ import annotations

import ast

from engramdb.code.model import CodeRef, ParsedFile, Symbol
from engramdb.errors import EngramValidationError

__all__ = ["module_name", "parse_python"]


def module_name(path: str) -> str:
    """The dotted module name of a repository-relative path (``pkg/__init__.py`` → ``pkg``)."""
    parts = path.split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    parts = parts[:-1] if stem == "__init__" else [*parts[:-1], stem]
    return ".".join(p for p in parts if p) or stem


def parse_python(path: str, source: str) -> ParsedFile:
    """Parse one file; EngramValidationError (naming the file and line) when it does not parse."""
    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        where = f" line {line}" if line else ""
        reason = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        raise EngramValidationError(
            f"cannot parse '{path}'{where} as Python: {reason}; "
            "fix the file or move it out of the directory"
        ) from exc
    module = module_name(path)
    is_package = path.endswith("__init__.py")
    end = len(source.splitlines()) or 1
    parsed = ParsedFile(path=path, language="python", module=module)
    parsed.symbols.append(Symbol("CodeFile", path, 1, end))
    mod = Symbol("CodeModule", module, 1, end, description=_doc(tree))
    parsed.symbols.append(mod)
    parsed.edges.append(("contains", path, module))
    package = module if is_package else module.rpartition(".")[0]
    top_level_refs: list[ast.stmt] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef):
            _class(parsed, module, stmt, package)
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            sym = _symbol(stmt, f"{module}.{stmt.name}", "function")
            sym.refs.extend(_refs(stmt, parsed, package))
            parsed.symbols.append(sym)
            parsed.edges.append(("contains", module, sym.name))
        else:
            top_level_refs.append(stmt)
    for stmt in top_level_refs:
        mod.refs.extend(_refs(stmt, parsed, package))
    return parsed


def _class(parsed: ParsedFile, module: str, node: ast.ClassDef, package: str) -> None:
    name = f"{module}.{node.name}"
    cls = _symbol(node, name, "class")
    for base in node.bases:
        dotted = _dotted(base)
        if dotted is not None:
            cls.refs.append(CodeRef("inherits", dotted, base.lineno))
    parsed.symbols.append(cls)
    parsed.edges.append(("contains", module, name))
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            method = _symbol(stmt, f"{name}.{stmt.name}", "method")
            method.refs.extend(_refs(stmt, parsed, package))
            parsed.symbols.append(method)
            parsed.edges.append(("has_method", name, method.name))
        else:
            cls.refs.extend(_refs(stmt, parsed, package))


def _symbol(
    node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef, name: str, kind: str
) -> Symbol:
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return Symbol(
        "CodeSymbol",
        name,
        start,
        node.end_lineno or node.lineno,
        symbol_kind=kind,
        description=_doc(node),
    )


def _doc(node: ast.AST) -> str:
    if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
        return ""
    text = ast.get_docstring(node, clean=True) or ""
    return text.strip().split("\n", 1)[0]


def _refs(root: ast.AST, parsed: ParsedFile, package: str) -> list[CodeRef]:
    """Calls and imports under ``root`` (imports also bind aliases of the file)."""
    refs: list[CodeRef] = []
    for node in ast.walk(root):
        if isinstance(node, ast.Call):
            dotted = _dotted(node.func)
            if dotted is not None:
                refs.append(CodeRef("calls", dotted, node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                refs.append(CodeRef("imports", alias.name, node.lineno))
                if alias.asname:
                    parsed.aliases[alias.asname] = alias.name
                else:
                    head = alias.name.split(".", 1)[0]
                    parsed.aliases.setdefault(head, head)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module, node.level, package)
            if not base:
                continue
            refs.append(CodeRef("imports", base, node.lineno))
            for alias in node.names:
                if alias.name != "*":
                    parsed.aliases[alias.asname or alias.name] = f"{base}.{alias.name}"
    return refs


def _absolute(module: str | None, level: int, package: str) -> str:
    """The absolute module of ``from <level dots><module> import ...`` inside ``package``."""
    if level == 0:
        return module or ""
    parts = package.split(".") if package else []
    if level > 1:
        parts = parts[: len(parts) - (level - 1)] if len(parts) >= level - 1 else []
    base = ".".join(parts)
    if module:
        return f"{base}.{module}" if base else module
    return base


def _dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, None for anything else (calls, subscripts)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
