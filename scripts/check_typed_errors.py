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
- ``raise f(...)`` where ``f`` is a function of the same file annotated to return one of those;
- ``raise AttributeError(...)`` in a top-level ``__getattr__`` (PEP 562: the protocol for a name
  the module does not have);
- ``raise name`` inside ``if isinstance(name, X):`` where ``X`` is a reins error class;
- ``raise name`` / ``raise name(...)`` where every assignment to ``name`` in the enclosing function
  is one of those (``last = ResolutionError(...)``, ``cls = A if c else B``), or ``None`` under an
  annotation naming only those (``last: ReinsError | None = None``).

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

    def __init__(
        self, tree: ast.Module, is_errors_module: bool, known: dict[str, set[str]] | None = None
    ) -> None:
        self.allowed: set[str] = set()
        self.module_aliases: set[str] = set()
        self.defined: set[str] = set()  # error classes this module defines (for its importers)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and _is_errors_module(node):
                self.allowed |= {alias.asname or alias.name for alias in node.names}
            elif (
                isinstance(node, ast.ImportFrom)
                and node.level == 0
                and known
                and node.module in known
            ):
                # ``from reins.page.poll import NotYet``: an error class of another reins module
                self.allowed |= {
                    alias.asname or alias.name
                    for alias in node.names
                    if alias.name in known[node.module]
                }
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
        # The iteration protocol's end signals: how an iterator says "no more", never an error.
        self.allowed |= {"StopIteration", "StopAsyncIteration"}
        classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
        functions = [
            n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        ]
        changed = True
        while changed:  # classes deriving from allowed ones, factories returning them
            changed = False
            for cls in classes:
                if cls.name not in self.allowed and any(self.is_error_name(b) for b in cls.bases):
                    self.allowed.add(cls.name)
                    self.defined.add(cls.name)
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


def _annotation_names(node: ast.expr) -> set[str] | None:
    """The names an annotation is built from (``A | B | None``), or None when it is anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return _annotation_names(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return None
    if isinstance(node, ast.Constant) and node.value is None:
        return {"None"}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _annotation_names(node.left), _annotation_names(node.right)
        return left | right if left is not None and right is not None else None
    dotted = _dotted(node)
    return {dotted} if dotted else None


class _RaiseVisitor(ast.NodeVisitor):
    def __init__(self, module: _Module) -> None:
        self.module = module
        self.caught: list[str | None] = []  # names bound by enclosing except handlers
        self.typed_locals: list[set[str]] = [set()]  # per function: names only ever errors
        self.problems: list[tuple[int, str]] = []
        self.functions: list[str] = []  # names of the enclosing functions, innermost last
        self.narrowed: list[str] = []  # names an enclosing `if isinstance(name, Error)` proved

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        self.caught.append(node.name)
        self.generic_visit(node)
        self.caught.pop()

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.typed_locals.append(self._error_locals(node))
        self.functions.append(node.name)
        self.generic_visit(node)
        self.functions.pop()
        self.typed_locals.pop()

    def visit_If(self, node: ast.If) -> None:
        """``if isinstance(name, SomeReinsError): ... raise name``: proved in the body only."""
        test = node.test
        name = None
        if (
            isinstance(test, ast.Call)
            and _dotted(test.func) == "isinstance"
            and len(test.args) == 2
            and isinstance(test.args[0], ast.Name)
            and self.module.is_error_name(test.args[1])
        ):
            name = test.args[0].id
        self.visit(node.test)
        if name is not None:
            self.narrowed.append(name)
        for child in node.body:
            self.visit(child)
        if name is not None:
            self.narrowed.pop()
        for child in node.orelse:
            self.visit(child)

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    def _is_error_value(self, value: ast.expr) -> bool:
        if isinstance(value, ast.IfExp):
            return self._is_error_value(value.body) and self._is_error_value(value.orelse)
        target = value.func if isinstance(value, ast.Call) else value
        return self.module.is_error_name(target)

    def _error_factory(self, annotation: ast.expr | None) -> bool:
        """``Callable[..., ReinsError]``: a parameter that makes reins errors."""
        if not isinstance(annotation, ast.Subscript) or _dotted(annotation.value) not in (
            "Callable",
            "collections.abc.Callable",
            "typing.Callable",
        ):
            return False
        args = annotation.slice
        if not isinstance(args, ast.Tuple) or len(args.elts) != 2:
            return False
        names = _annotation_names(args.elts[1])
        return names is not None and all(self.module.is_error_dotted(n) for n in names)

    def _error_locals(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
        good: set[str] = {
            a.arg for a in [*fn.args.args, *fn.args.kwonlyargs] if self._error_factory(a.annotation)
        }
        bad: set[str] = set()
        for node in ast.walk(fn):
            stored: list[ast.expr] = []  # targets that make a name not provably an error
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name) and self._is_error_value(node.value):
                        good.add(target.id)
                    else:
                        stored.append(target)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = _annotation_names(node.annotation)
                typed = names is not None and all(
                    n == "None" or self.module.is_error_dotted(n) for n in names
                )
                value_ok = (
                    node.value is None
                    or self._is_error_value(node.value)
                    or (isinstance(node.value, ast.Constant) and node.value.value is None)
                )
                (good if typed and value_ok else bad).add(node.target.id)
            elif isinstance(
                node, ast.NamedExpr | ast.AugAssign | ast.For | ast.AsyncFor | ast.comprehension
            ):
                stored = [node.target]
            elif isinstance(node, ast.With | ast.AsyncWith):
                stored = [i.optional_vars for i in node.items if i.optional_vars is not None]
            for expr in stored:
                bad |= {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
        return good - bad

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
        if dotted == "AttributeError" and self.functions == ["__getattr__"]:
            return None  # a module's __getattr__ (PEP 562)
        if (
            not isinstance(exc, ast.Call)
            and isinstance(target, ast.Name)
            and target.id in self.caught
        ):
            return None  # `except X as exc: ... raise exc`
        if (
            not isinstance(exc, ast.Call)
            and isinstance(target, ast.Name)
            and (target.id in self.narrowed)
        ):
            return None  # `if isinstance(x, ReinsError): raise x`
        if isinstance(target, ast.Name) and target.id in self.typed_locals[-1]:
            return None  # a local only ever assigned reins errors (or their classes)
        return f"raises {dotted}, which is not a reins error (use a class from reins._errors)"


def check_source(
    source: str, filename: str = "<string>", known: dict[str, set[str]] | None = None
) -> list[tuple[int, str]]:
    """``known``: module name -> the error classes it defines (for ``from reins.x import E``)."""
    tree = ast.parse(source, filename=filename)
    module = _Module(tree, is_errors_module=Path(filename).name == "_errors.py", known=known)
    visitor = _RaiseVisitor(module)
    visitor.visit(tree)
    return sorted(visitor.problems)


def _module_name(path: Path) -> str | None:
    """host/reins/page/poll.py -> reins.page.poll (the package root is the folder named reins)."""
    parts = list(path.resolve().with_suffix("").parts)
    if "reins" not in parts:
        return None
    parts = parts[len(parts) - 1 - parts[::-1].index("reins") :]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def known_error_classes(paths: Iterable[Path]) -> dict[str, set[str]]:
    """Every reins module's own error classes, to a fixpoint (a class may build on one that
    another module defines)."""
    trees: dict[str, tuple[ast.Module, bool]] = {}
    for path in paths:
        name = _module_name(path)
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except SyntaxError:
            continue
        if name:
            trees[name] = (tree, path.name == "_errors.py")
    known: dict[str, set[str]] = {}
    while True:
        found = {
            name: _Module(tree, is_errors, known).defined
            for name, (tree, is_errors) in trees.items()
        }
        found = {name: classes for name, classes in found.items() if classes}
        if found == known:
            return known
        known = found


def _files(paths: Iterable[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            yield from sorted(path.rglob("*.py"))
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
    files = list(_files(paths))
    known = known_error_classes(files)
    for path in files:
        checked += 1
        try:
            problems = check_source(path.read_text(encoding="utf-8"), str(path), known)
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
