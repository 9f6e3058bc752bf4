"""How reins prints a string that came from a page: as data, never as layout.

What reins prints is what an agent acts on, and a page chooses its own names, roles, values, URLs and
console messages. So every text renderer (the CLI's, the MCP tools', traces and reports) goes through
one rule:

- **Free text** (names, values, titles, URLs, messages, reasons) is ``quote``d: in ``"…"``, with
  ``\\`` and ``"`` escaped, so it can never end its own field.
- **Words from a vocabulary** (a role, a tag, a frame id, a flag) are printed bare only when they
  are one (``word``); anything else is quoted like free text.
- In both, every character that could change the layout or the terminal becomes a visible escape
  (``\\n``, ``\\x1b``, ``\\u202e``): C0 and C1 controls (newlines, ESC, the OSC/CSI introducers),
  line and paragraph separators, every Unicode format character (bidi overrides and isolates,
  zero-width spaces and joiners, the byte-order mark, tag characters), lone surrogates and the
  Hangul fillers that render as nothing. ``visible`` does only this, for contexts that quote by
  other means (HTML, a message line of reins's own words around a page's).
- **JSON for a reader** (``json_text``) is ``json.dumps`` without ASCII escaping, plus the same
  characters escaped as ``\\uXXXX``: JSON itself escapes only C0.

Pure and import-light: the CLI imports it on every call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any, Final

__all__ = [
    "ARIA_ROLES",
    "ELLIPSIS",
    "UNSAFE",
    "clip",
    "json_text",
    "quote",
    "ref",
    "visible",
    "word",
]

ELLIPSIS: Final = "…"

# Cc, Cf, Cs, Zl and Zp of every Unicode version up to 16 (a unit test holds this against the
# running Python's unicodedata), and the fillers of Hangul that are letters but print as nothing.
UNSAFE: Final = re.compile(
    "["
    "\x00-\x1f\x7f-\x9f"  # C0, DEL, C1
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001345f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
    "\ud800-\udfff"  # lone surrogates (a page's JSON may carry them)
    "\u115f\u1160\u3164\uffa0"  # Hangul fillers
    "]"
)

_NAMED: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str) -> str:
    """``text`` with every layout or terminal control character as a visible escape."""
    return UNSAFE.sub(_escape, text) if UNSAFE.search(text) else text


def visible_lines(text: str) -> str:
    """``visible`` on each line of ``text``, its newlines kept (a block shown as a block)."""
    return "\n".join(visible(line) for line in text.split("\n")) if UNSAFE.search(text) else text


def clip(text: str, limit: int | None) -> str:
    """At most ``limit`` characters, the last one ``…`` when cut; ``None``: no limit."""
    if limit is not None and len(text) > limit:
        return text[: max(limit - 1, 0)] + ELLIPSIS
    return text


def quote(text: str, limit: int | None = None, *, collapse: bool = True) -> str:
    """``text`` as one quoted field: whitespace runs collapsed to one space (unless ``collapse`` is
    false: then a newline shows as ``\\n``), cut to ``limit`` characters, ``\\`` and ``"``
    escaped, controls visible."""
    if collapse:
        text = " ".join(text.split())
    text = clip(text, limit)
    if "\\" in text or '"' in text:
        text = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + visible(text) + '"'


# A bare word: letters, digits, ``-`` and ``_``, starting with a letter; nothing that could be
# taken for a ref (``@``), a field (``=``, ``"``, ``[``) or a separator.
_WORD: Final = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,39}")


def word(text: str, vocabulary: Collection[str] | None = None, limit: int = 40) -> str:
    """``text`` bare when it is a word (of ``vocabulary``, when one is given), else quoted."""
    if vocabulary is None:
        if _WORD.fullmatch(text):
            return text
    elif text in vocabulary:
        return text
    return quote(text, limit)


# A ref is the registry's (``@`` and ``[a-z0-9]``, a collision suffix); see ``ref``.
_REF: Final = re.compile(r"@[A-Za-z0-9_-]{1,64}")


def ref(text: str) -> str:
    """A ref as ``@name``: bare when it is one, else ``@`` and the rest quoted, so no string can
    pass for another element's ref."""
    text = text if text.startswith("@") else "@" + text
    return text if _REF.fullmatch(text) else "@" + quote(text[1:], 80)


def json_text(value: Any, **dumps: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, **dumps)`` with every ``UNSAFE`` character (which
    JSON leaves raw above C0) escaped as ``\\uXXXX``: they can only occur inside its strings (but
    the newlines of an ``indent``)."""
    text = json.dumps(value, ensure_ascii=False, **dumps)
    return _JSON_UNSAFE.sub(_json_escape, text) if _JSON_UNSAFE.search(text) else text


# JSON escapes C0 inside its strings itself; outside them the only control is an indent's newline.
_JSON_UNSAFE: Final = re.compile(UNSAFE.pattern.replace("\x00-\x1f", "\x00-\x09\x0b-\x1f"))


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


# The roles ``state`` prints bare: WAI-ARIA 1.2 (with DPUB and Graphics), the HTML-AAM roles the
# page script gives native elements, and Chrome's accessibility roles the AX source reports.
# Any other role attribute a page writes is quoted.
ARIA_ROLES: Final = frozenset(
    """
    alert alertdialog application article banner blockquote button caption cell checkbox code
    columnheader combobox comment complementary contentinfo definition deletion dialog directory
    document emphasis feed figure form generic grid gridcell group heading img image insertion link
    list listbox listitem log main mark marquee math menu menubar menuitem menuitemcheckbox
    menuitemradio meter navigation none note option paragraph presentation progressbar radio
    radiogroup region row rowgroup rowheader scrollbar search searchbox separator slider spinbutton
    status strong subscript suggestion superscript switch tab table tablist tabpanel term textbox
    time timer toolbar tooltip tree treegrid treeitem
    doc-abstract doc-acknowledgments doc-afterword doc-appendix doc-backlink doc-biblioentry
    doc-bibliography doc-biblioref doc-chapter doc-colophon doc-conclusion doc-cover doc-credit
    doc-credits doc-dedication doc-endnote doc-endnotes doc-epigraph doc-epilogue doc-errata
    doc-example doc-footnote doc-foreword doc-glossary doc-glossref doc-index doc-introduction
    doc-noteref doc-notice doc-pagebreak doc-pagefooter doc-pageheader doc-pagelist doc-part
    doc-preface doc-prologue doc-pullquote doc-qna doc-subtitle doc-tip doc-toc
    graphics-document graphics-object graphics-symbol
    frame iframe text label legend
    Abbr Audio Canvas Caret Client Code DescriptionList DescriptionListDetail DescriptionListTerm
    DisclosureTriangle Embed FigureCaption Footer Header Iframe IframePresentational
    InlineTextBox LabelText Legend LineBreak ListMarker MenuListOption MenuListPopup
    PdfActionableHighlight PdfRoot PluginObject Pre Ruby RubyAnnotation RootWebArea Section
    StaticText SvgRoot Unknown Video WebView
    """.split()
)
