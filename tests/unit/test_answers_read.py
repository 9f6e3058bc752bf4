"""The front ends read each command's answer as its type (issue 41): a CLI renderer
(reins/cli/render.py) or an MCP answer (reins/mcp/answers.py) that takes ``answers.X`` reads only
fields X declares. mypy holds ``a["key"]`` to that; ``a.get("key")`` of an unknown key is only
``object`` to it, so this reads the code: every key a renderer reads off its answer (``a[…]``,
``a.get(…)``, ``… in a``), off a part of it (``for e in a.get("entries")``, ``tab = a.get("tab")``)
or off an answer read as its type (``cast("answers.X", call.send())``, reins/cli/quirks.py and batch.py) is a
field of the declared type."""

from __future__ import annotations

import ast
import inspect
import types
from typing import Any, Union, get_args, get_origin, is_typeddict

import pytest
from reins.bridge.command import answer_fields
from reins.cli import batch, quirks, render
from reins.commands import answers
from reins.mcp import answers as mcp_answers

Env = dict[str, list[Any]]


def _typeddicts(hint: Any) -> list[Any]:
    """The TypedDicts a field's type is made of (``X | None``, ``list[X]``)."""
    if is_typeddict(hint):
        return [hint]
    if get_origin(hint) in (Union, types.UnionType, list):
        return [t for arg in get_args(hint) for t in _typeddicts(arg)]
    return []


def _annotation(node: ast.expr | None) -> list[Any]:
    """``answers.X`` or ``answers.X | answers.Y`` as the TypedDicts they name."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _annotation(node.left) + _annotation(node.right)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _annotation(ast.parse(node.value, mode="eval").body)
    if isinstance(node, ast.Attribute) and ast.unparse(node.value) == "answers":
        return [getattr(answers, node.attr)]
    return []


def _fields(shapes: list[Any]) -> dict[str, Any]:
    return {name: hint for shape in shapes for name, hint, *_ in answer_fields(shape)}


def _read(node: ast.AST, env: Env) -> tuple[str, str] | None:
    """(the answer's name, the key) when ``node`` reads a literal key off a typed answer."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        key = node.slice
        if node.value.id in env and isinstance(key, ast.Constant) and isinstance(key.value, str):
            return node.value.id, key.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in env
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.func.value.id, node.args[0].value
    if (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], ast.In | ast.NotIn)
        and isinstance(node.left, ast.Constant)
        and isinstance(node.left.value, str)
        and isinstance(node.comparators[0], ast.Name)
        and node.comparators[0].id in env
    ):
        return node.comparators[0].id, node.left.value
    return None


def _part(value: ast.expr, env: Env) -> list[Any]:
    """The TypedDicts ``value`` is, when it reads a field of a typed answer (``a.get("k") or …``)
    or is an answer read off the socket as its type (``cast("answers.X", …)``)."""
    if isinstance(value, ast.Call) and ast.unparse(value.func) == "cast" and value.args:
        return _annotation(value.args[0])
    if isinstance(value, ast.BoolOp):
        return _part(value.values[0], env)
    read = _read(value, env)
    if read is None:
        return []
    hint = _fields(env[read[0]]).get(read[1])
    return _typeddicts(hint) if hint is not None else []


def _unread(fn: ast.FunctionDef) -> list[str]:
    env: Env = {a.arg: _annotation(a.annotation) for a in fn.args.args}
    env = {name: shapes for name, shapes in env.items() if shapes}
    wrong = []
    for node in ast.walk(fn):  # parents before children: a part is bound before it is read
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and (shapes := _part(node.value, env)):
                env[target.id] = shapes
        if isinstance(node, ast.For | ast.comprehension) and isinstance(node.target, ast.Name):
            if shapes := _part(node.iter, env):
                env[node.target.id] = shapes
        read = _read(node, env)
        if read is not None and read[1] not in _fields(env[read[0]]):
            names = "|".join(s.__name__ for s in env[read[0]])
            wrong.append(f"{fn.name}: {read[0]}[{read[1]!r}] is no field of {names}")
    return wrong


@pytest.mark.parametrize("module", [render, quirks, batch, mcp_answers], ids=lambda m: m.__name__)
def test_front_ends_read_only_declared_fields(module: Any) -> None:
    tree = ast.parse(inspect.getsource(module))
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    assert "answers." in inspect.getsource(module), f"{module.__name__} reads no typed answer"
    wrong = [line for fn in functions for line in _unread(fn)]
    assert not wrong, wrong


def test_a_renamed_field_is_found() -> None:
    source = """
def waited(a: answers.Wait) -> str:
    tab = a.get("tab_id") or {}
    for e in a.get("entries") or []:
        print(e)
    return str(a.get("waited")) + str("found" in a)
"""
    fn = ast.parse(source).body[0]
    assert isinstance(fn, ast.FunctionDef)
    assert len(_unread(fn)) == 4  # tab_id, entries, waited, found


def test_a_part_is_read_as_its_type() -> None:
    source = """
def console(a: answers.Console) -> str:
    for e in a.get("entries") or []:
        print(e.get("level"), e["lvl"])
    shot = cast("answers.Screenshot", send())
    return str(shot["png"])
"""
    fn = ast.parse(source).body[0]
    assert isinstance(fn, ast.FunctionDef)
    assert _unread(fn) == [
        "console: shot['png'] is no field of Screenshot",
        "console: e['lvl'] is no field of ConsoleEntry",
    ]
