#!/usr/bin/env python3
"""Fail when reins code raises something that is not a reins error.

Every error reins raises on purpose is a ``ReinsError`` (one root, a stable ``code``); foreign
exceptions are translated in one place. This check reads each module's AST (it imports nothing) and
accepts a ``raise`` only when it is:

- a bare ``raise`` (re-raising what an ``except`` caught), or ``raise name`` where ``name`` is bound
  by an enclosing ``except ... as name``;
- ``raise X(...)`` / ``raise X`` / ``raise X(...) from exc`` where ``X`` is imported from
  ``reins._errors`` or ``._errors`` (a class or a translating function such as ``from_cdp_error``), is reached as
  an attribute of that module, or is a class defined in the same file on top of one of those;
- ``raise f(...)`` where ``f`` is a function of the same file annotated to return one of those.

``assert`` statements are not raises and are left alone. Anything else (``raise ValueError(...)``,
``raise RuntimeError``, ``raise click.UsageError(...)``, ``raise some_variable``) is reported as
``file:line: ...`` and the exit status is 1.

Usage: scripts/check_typed_errors.py [PATH ...]   (default: host/reins; directories give *.py)
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

ERRORS_MODULE = "reins._errors"
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATHS = [ROOT / "host" / "reins"]


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _annotation_name(node: ast.expr | None) -> str | None:
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # "ReinsError"
        try:
            return _annotation_name(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return None
    return _dotted(node)


def _is_errors_module(node: ast.ImportFrom) -> bool:
    """``from reins._errors import ...`` or, inside the package, ``from ._errors import ...``."""
    return (node.level == 0 and node.module == ERRORS_MODULE) or (
        node.level == 1 and node.module == "_errors"
    )


def _is_reins_package(node: ast.ImportFrom) -> bool:
    """``from reins import _errors`` or ``from . import _errors``."""
    return (node.level == 0 and node.module == "reins") or (node.level == 1 and node.module is None)


class _Module:
    """What one file imports from reins._errors and builds on top of it."""

    def __init__(self, tree: ast.Module, is_errors_module: bool) -> None:
        self.allowed: set[str] = set()
        self.module_aliases: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and _is_errors_module(node):
                self.allowed |= {alias.asname or alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and _is_reins_package(node):
                for alias in node.names:
                    if alias.name == "_errors":
                        self.module_aliases.add(alias.asname or alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == ERRORS_MODULE:
                        self.module_aliases.add(alias.asname or ERRORS_MODULE)
        if is_errors_module:
            self.allowed.add("ReinsError")
        classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
        functions = [n for n in ast.walk(tree)
                     if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        changed = True
        while changed:  # classes deriving from allowed ones, factories returning them
            changed = False
            for cls in classes:
                if cls.name not in self.allowed and any(self.is_error_name(b) for b in cls.bases):
                    self.allowed.add(cls.name)
                    changed = True
            for fn in functions:
                returns = _annotation_name(fn.returns)
                if fn.name not in self.allowed and returns and self.is_error_dotted(returns):
                    self.allowed.add(fn.name)
                    changed = True

    def is_error_dotted(self, dotted: str) -> bool:
        if dotted in self.allowed:
            return True
        head, _, attr = dotted.rpartition(".")
        return bool(head) and head in self.module_aliases and bool(attr)

    def is_error_name(self, node: ast.expr) -> bool:
        dotted = _dotted(node)
        return dotted is not None and self.is_error_dotted(dotted)


class _RaiseVisitor(ast.NodeVisitor):
    def __init__(self, module: _Module) -> None:
        self.module = module
        self.caught: list[str | None] = []  # names bound by enclosing except handlers
        self.problems: list[tuple[int, str]] = []

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        self.caught.append(node.name)
        self.generic_visit(node)
        self.caught.pop()

    def visit_Raise(self, node: ast.Raise) -> None:
        problem = self._judge(node.exc)
        if problem:
            self.problems.append((node.lineno, problem))
        self.generic_visit(node)

    def _judge(self, exc: ast.expr | None) -> str | None:
        if exc is None:
            return None  # bare re-raise
        target = exc.func if isinstance(exc, ast.Call) else exc
        dotted = _dotted(target)
        if dotted is None:
            return f"raises an expression ({ast.unparse(exc)[:60]}) that is not a reins error"
        if self.module.is_error_dotted(dotted):
            return None
        if not isinstance(exc, ast.Call) and isinstance(target, ast.Name) \
                and target.id in self.caught:
            return None  # `except X as exc: ... raise exc`
        return f"raises {dotted}, which is not a reins error (use a class from reins._errors)"


def check_source(source: str, filename: str = "<string>") -> list[tuple[int, str]]:
    tree = ast.parse(source, filename=filename)
    module = _Module(tree, is_errors_module=Path(filename).name == "_errors.py")
    visitor = _RaiseVisitor(module)
    visitor.visit(tree)
    return sorted(visitor.problems)


def _files(paths: Iterable[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            yield from sorted(path.glob("*.py"))
        else:
            yield path


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or DEFAULT_PATHS
    missing = [p for p in paths if not p.exists()]
    if missing:
        print(f"no such path: {', '.join(map(str, missing))}", file=sys.stderr)
        return 2
    count = 0
    checked = 0
    for path in _files(paths):
        checked += 1
        try:
            problems = check_source(path.read_text(encoding="utf-8"), str(path))
        except SyntaxError as exc:
            print(f"{_shown(path)}:{exc.lineno}: cannot parse: {exc.msg}")
            count += 1
            continue
        for line, message in problems:
            print(f"{_shown(path)}:{line}: {message}")
            count += 1
    if count:
        print(f"{count} untyped raise(s) in {checked} file(s)", file=sys.stderr)
        return 1
    print(f"ok: {checked} file(s), every raise is a reins error")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
