"""The docs a newcomer reads first stay short and true to the code (issue 42).

docs/architecture.md names every module once, as the first cell of a table row (host/reins paths
relative to host/reins, extension files as ``extension/NAME.js``); any other ``.py``/``.js``/
``.json`` path (but state files under REINS_HOME) or ``reins.*`` module it mentions must exist. Commands are named two ways: in a
``commands/NAME.py`` row the words in backticks are exactly the commands that module declares (their
CLI words; a command without CLI words by its wire name), and elsewhere as `` `reins WORDS` ``, which
must be a command the CLI has. Every command the table declares is in docs/commands.md (generated).
Links into the docs keep their anchors, and the benchmark sections other files quote by name exist.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import click
import pytest
from reins.cli.group import main as cli_main
from reins.commands.table import all_commands

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "host" / "reins"
DOCS = ROOT / "docs"
ARCHITECTURE = DOCS / "architecture.md"
LIMITS = {"architecture.md": 250, "benchmarks.md": 700}

_ROW = re.compile(r"^\| `([^`]+)` \|(.*)\|\s*$")
_PATH = re.compile(r"(?<![\w./-])((?:[\w-]+/)*[\w-]+\.(?:py|js|mjs|json))\b")
_MODULE = re.compile(r"(?<![\w./-])(reins(?:\.\w+)+)")
_REINS_WORDS = re.compile(r"`reins ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?")
_TICKED = re.compile(r"`([^`]+)`")


def _text() -> str:
    return ARCHITECTURE.read_text(encoding="utf-8")


def _rows() -> dict[str, str]:
    """The module table rows: first cell → the rest of the row."""
    rows: dict[str, str] = {}
    for line in _text().splitlines():
        if m := _ROW.match(line):
            assert m.group(1) not in rows, f"{m.group(1)} has two rows in architecture.md"
            rows[m.group(1)] = m.group(2)
    return rows


def _generated(path: Path) -> bool:
    return "_generated" in path.parts


def _modules() -> set[str]:
    """What the page must name: host/reins/**/*.py but __init__ and generated files; extension/*.js."""
    host = {
        p.relative_to(HOST).as_posix()
        for p in HOST.rglob("*.py")
        if p.name != "__init__.py" and "__pycache__" not in p.parts and not _generated(p)
    }
    extension = {f"extension/{p.name}" for p in (ROOT / "extension").glob("*.js")}
    return host | extension


def _exists(name: str) -> bool:
    candidates = [ROOT / name, HOST / name]
    if "/" not in name:
        candidates.append(ROOT / "extension" / name)
    return any(c.is_file() for c in candidates)


def test_the_pages_fit_a_newcomers_hour() -> None:
    long = {
        name: n
        for name, limit in LIMITS.items()
        if (n := len((DOCS / name).read_text(encoding="utf-8").splitlines())) > limit
    }
    assert not long, f"over the limit {LIMITS}: {long} — move detail into a topic page"


def test_every_module_has_one_row() -> None:
    missing = sorted(_modules() - set(_rows()))
    assert not missing, f"architecture.md names no row for {missing}: add one line each"


def test_every_row_names_a_module_that_exists() -> None:
    gone = sorted(name for name in _rows() if not _exists(name))
    assert not gone, f"architecture.md has rows for modules that do not exist: {gone}"


def test_every_path_and_module_named_exists() -> None:
    text = _text()
    # REINS_HOME/… and bare *.json names are state files at run time, not source.
    named = {p for p in _PATH.findall(text) if "/" in p or not p.endswith(".json")}
    gone = sorted(p for p in named if not p.startswith("REINS_HOME/") and not _exists(p))
    assert not gone, f"architecture.md names files that do not exist: {gone}"
    unknown = []
    for dotted in set(_MODULE.findall(text)):
        try:
            importlib.import_module(dotted)
        except ImportError:
            unknown.append(dotted)
    assert not unknown, f"architecture.md names modules that do not exist: {sorted(unknown)}"


def _words(cmd_cli: tuple[str, ...] | list[str], name: str) -> str:
    return " ".join(cmd_cli) or name


@pytest.mark.parametrize(
    "module",
    sorted(
        p.stem
        for p in (HOST / "commands").glob("*.py")
        if hasattr(importlib.import_module(f"reins.commands.{p.stem}"), "COMMANDS")
    ),
)
def test_a_command_modules_row_names_exactly_its_commands(module: str) -> None:
    declared = {
        _words(c.cli, c.name) for c in importlib.import_module(f"reins.commands.{module}").COMMANDS
    }
    row = _rows().get(f"commands/{module}.py")
    assert row is not None, f"architecture.md has no row for commands/{module}.py"
    named = set(_TICKED.findall(row))
    assert named == declared, (
        f"commands/{module}.py's row: not named {sorted(declared - named)}, "
        f"not commands of the module {sorted(named - declared)} (only commands go in backticks there)"
    )


def test_every_reins_command_named_exists() -> None:
    top = set(cli_main.list_commands(click.Context(cli_main)))
    words = {_words(c.cli, c.name) for c in all_commands().values()} | {"trace export"}
    groups = {w.split()[0] for w in words if " " in w} - words
    wrong = []
    for first, second in _REINS_WORDS.findall(_text()):
        if first not in top:
            wrong.append(first)
        elif first in groups and f"{first} {second}" not in words:
            wrong.append(f"{first} {second}".strip())
    assert not wrong, f"architecture.md names commands the CLI does not have: {sorted(set(wrong))}"


def test_every_command_is_in_the_reference() -> None:
    reference = (DOCS / "commands.md").read_text(encoding="utf-8")
    missing = sorted(
        w
        for c in all_commands().values()
        if (w := " ".join(c.cli)) and f"## `reins {w}`" not in reference
    )
    assert not missing, f"docs/commands.md lacks {missing}: scripts/generate"


def _slugs(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation out, spaces to hyphens, repeats numbered."""
    seen: dict[str, int] = {}
    slugs = set()
    in_code = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not (m := re.match(r"#{1,6} (.*)", line)):
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        slugs.add(slug if n == 0 else f"{slug}-{n}")
    return slugs


def _doc_pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def test_links_into_the_docs_keep_their_anchors() -> None:
    broken = []
    for page in _doc_pages():
        for target, anchor in re.findall(r"\]\(([\w./-]*\.md)#([^)\s]+)\)", page.read_text()):
            to = (page.parent / target).resolve()
            if not to.is_file() or anchor not in _slugs(to):
                broken.append(f"{page.relative_to(ROOT)}: {target}#{anchor}")
    assert not broken, f"links to anchors that are gone: {broken}"


def test_benchmark_sections_quoted_by_name_exist() -> None:
    """`docs/benchmarks.md, "Memory"` in a doc or a comment names a heading that is still there."""
    quote = re.compile(r"(benchmarks(?:-history)?\.md),? \(?\"([^\"]+)\"")
    headings = {
        name: [h.lstrip("# ") for h in (DOCS / name).read_text().splitlines() if h.startswith("#")]
        for name in ("benchmarks.md", "benchmarks-history.md")
    }
    sources = [*_doc_pages(), *HOST.rglob("*.py"), *(ROOT / "scripts").glob("*.py")]
    gone = [
        f'{src.relative_to(ROOT)}: {name} "{title}"'
        for src in sources
        for name, title in quote.findall(src.read_text(encoding="utf-8"))
        if not any(h.startswith(" ".join(title.split())) for h in headings[name])
    ]
    assert not gone, f"benchmark sections quoted but not found: {gone}"
