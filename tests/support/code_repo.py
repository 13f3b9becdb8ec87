"""A small repository written for the code-graph tests: classes, inheritance, imports (absolute,
relative, aliased), calls, methods; and a JS/TS pair."""

from __future__ import annotations

from pathlib import Path

MODELS = '''"""Domain models."""


class Base:
    """The base of every model."""

    def save(self):
        return validate(self)


class User(Base):
    def greet(self):
        return "hi"


def validate(obj):
    return obj is not None
'''

SERVICES = '''from app.models import User
from . import models
import json as j


class UserService:
    """Manages users."""

    def create(self, name):
        user = User()
        self.audit(name)
        return user

    def audit(self, name):
        return j.dumps({"name": name})


def main():
    service = UserService()
    service.create("x")
    models.validate(None)
'''

CLI = """from app.services import main


def run():
    main()
"""

JS_BASE = """export class Shape {
  area() { return 0; }
}
export function describe(shape) { return String(shape.area()); }
"""

TS_SQUARE = """import { Shape, describe } from "./shape";

export class Square extends Shape {
  side: number = 1;
  area(): number { return this.side * this.side; }
  label(): string { return describe(this); }
}
const make = (): Square => new Square();
"""


def write_repo(root: Path, *, js: bool = False) -> Path:
    """Write the fixture under ``root/shop`` and return that directory."""
    repo = root / "shop"
    (repo / "app").mkdir(parents=True)
    (repo / "app" / "__init__.py").write_text("", encoding="utf-8")
    (repo / "app" / "models.py").write_text(MODELS, encoding="utf-8")
    (repo / "app" / "services.py").write_text(SERVICES, encoding="utf-8")
    (repo / "app" / "cli.py").write_text(CLI, encoding="utf-8")
    (repo / "README.md").write_text("# Shop\n\nThe shop sells mauve teapots.\n", encoding="utf-8")
    if js:
        (repo / "web").mkdir()
        (repo / "web" / "shape.js").write_text(JS_BASE, encoding="utf-8")
        (repo / "web" / "square.ts").write_text(TS_SQUARE, encoding="utf-8")
    return repo
