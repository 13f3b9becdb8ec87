"""Parsing one file into symbols, line spans, structural edges and references."""

from __future__ import annotations

import pytest

from engramdb.code.parse_python import module_name, parse_python
from engramdb.code.parse_treesitter import parse_treesitter
from engramdb.errors import EngramValidationError
from tests.support.code_repo import JS_BASE, MODELS, SERVICES, TS_SQUARE


def _by_name(parsed):  # type: ignore[no-untyped-def]
    return {s.name: s for s in parsed.symbols}


def test_python_symbols_have_qualified_names_kinds_and_line_spans() -> None:
    parsed = parse_python("app/models.py", MODELS)
    symbols = _by_name(parsed)
    assert parsed.module == "app.models"
    assert {n: (s.node_type, s.symbol_kind) for n, s in symbols.items()} == {
        "app/models.py": ("CodeFile", ""),
        "app.models": ("CodeModule", ""),
        "app.models.Base": ("CodeSymbol", "class"),
        "app.models.Base.save": ("CodeSymbol", "method"),
        "app.models.User": ("CodeSymbol", "class"),
        "app.models.User.greet": ("CodeSymbol", "method"),
        "app.models.validate": ("CodeSymbol", "function"),
    }
    base = symbols["app.models.Base"]
    assert (base.line, base.end_line, base.description) == (4, 8, "The base of every model.")
    assert (symbols["app.models.validate"].line, symbols["app.models.validate"].end_line) == (
        16,
        17,
    )
    assert ("has_method", "app.models.Base", "app.models.Base.save") in parsed.edges
    assert ("contains", "app.models", "app.models.validate") in parsed.edges
    assert ("contains", "app/models.py", "app.models") in parsed.edges
    refs = {(r.relation, r.target) for r in symbols["app.models.User"].refs}
    assert refs == {("inherits", "Base")}
    assert [(r.relation, r.target) for r in symbols["app.models.Base.save"].refs] == [
        ("calls", "validate")
    ]


def test_python_imports_bind_aliases_and_relative_imports_resolve() -> None:
    parsed = parse_python("app/services.py", SERVICES)
    assert parsed.aliases == {
        "User": "app.models.User",
        "models": "app.models",
        "j": "json",
    }
    module = _by_name(parsed)["app.services"]
    assert {(r.relation, r.target) for r in module.refs} == {
        ("imports", "app.models"),
        ("imports", "app"),
        ("imports", "json"),
    }
    create = _by_name(parsed)["app.services.UserService.create"]
    assert [r.target for r in create.refs] == ["User", "self.audit"]


def test_module_names_of_paths() -> None:
    assert module_name("pkg/__init__.py") == "pkg"
    assert module_name("pkg/sub/mod.py") == "pkg.sub.mod"
    assert module_name("setup.py") == "setup"


def test_python_that_does_not_parse_names_the_file_and_line() -> None:
    with pytest.raises(EngramValidationError, match=r"'bad\.py' line 2 as Python"):
        parse_python("bad.py", "x = 1\ndef broken(:\n")


def test_javascript_classes_functions_imports_and_calls() -> None:
    parsed = parse_treesitter("web/shape.js", JS_BASE.encode())
    symbols = _by_name(parsed)
    assert parsed.language == "javascript" and parsed.module == "web/shape"
    assert symbols["web/shape.Shape"].symbol_kind == "class"
    assert symbols["web/shape.Shape.area"].symbol_kind == "method"
    describe = symbols["web/shape.describe"]
    assert (describe.line, describe.end_line) == (4, 4)
    assert {r.target for r in describe.refs} == {"String", "shape.area"}


def test_typescript_extends_and_relative_imports() -> None:
    parsed = parse_treesitter("web/square.ts", TS_SQUARE.encode())
    symbols = _by_name(parsed)
    assert parsed.language == "typescript"
    square = symbols["web/square.Square"]
    assert [(r.relation, r.target) for r in square.refs] == [("inherits", "Shape")]
    assert parsed.aliases == {"Shape": "web/shape.Shape", "describe": "web/shape.describe"}
    label = symbols["web/square.Square.label"]
    assert [r.target for r in label.refs] == ["describe"]
    assert symbols["web/square.make"].symbol_kind == "function"
    assert ("has_method", "web/square.Square", "web/square.Square.area") in parsed.edges
