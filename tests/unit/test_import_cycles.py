"""No import cycle anywhere in the repository, module by module.

import-linter's contracts (scripts/check) keep the layers and forbid cycles between the siblings
of a package; this test looks at single modules, in every place code imports code: the host
package, the bench package, the tests, the scripts (none imports another, so none can be part of
a cycle), and the ES modules of the page scripts and the extension.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[2]


def cycles(nodes: Iterable[str], edges: Callable[[str], Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (or a node importing itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(nodes):
        if start in index:
            continue
        # Tarjan's algorithm, iteratively: (node, its remaining successors)
        work = [(start, iter(sorted(edges(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(edges(succ)))))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in edges(node):
                        found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert sorted(cycles(graph, lambda n: graph[n])) == [["a", "b", "c"], ["e"]]
    assert cycles({"a": {"b"}, "b": set()}, lambda n: {"a": {"b"}, "b": set()}[n]) == []


@pytest.mark.parametrize("package", ["reins", "reinsbench", "tests"])
def test_no_cycle_between_the_modules_of(package: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT))
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    graph = grimp.build_graph(package, cache_dir=None)
    modules = graph.modules
    assert len(modules) > 5

    def imported(module: str) -> set[str]:
        return {m for m in graph.find_modules_directly_imported_by(module) if m in modules}

    assert cycles(modules, imported) == []


def test_no_script_imports_another() -> None:
    scripts = {p.stem: p for p in (ROOT / "scripts").glob("*.py")}
    siblings = {}
    for name, path in scripts.items():
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
        if names & set(scripts):
            siblings[name] = sorted(names & set(scripts))
    assert not siblings, f"scripts import scripts (move the shared code into a package): {siblings}"


# `import … from "./x.js"`, `export … from "./x.js"`, `import "./x.js"`
_JS_IMPORT = re.compile(r"""^\s*(?:import|export)\b[^;]*?["'](\./[^"']+)["']""", re.M | re.S)


@pytest.mark.parametrize("folder", ["pagescripts/src", "extension"])
def test_no_cycle_between_the_es_modules_of(folder: str) -> None:
    files = {p.name: p for p in (ROOT / folder).glob("*.js")}
    graph = {
        name: {Path(m).name for m in _JS_IMPORT.findall(p.read_text(encoding="utf-8"))}
        for name, p in files.items()
    }
    assert sum(len(v) for v in graph.values()) > 5  # the pattern still sees the imports
    assert cycles(graph, lambda n: graph.get(n, set())) == []
