// String helpers shared by the collector: whitespace collapsing, bounded visible text, quoting.

export const TEXT_LIMIT = 100;

export function collapse(s) {
  return s ? s.replace(/\s+/g, " ").trim() : "";
}

// Visible text of an element, whitespace-collapsed, at most TEXT_LIMIT characters. Large containers
// are walked node by node and the walk stops at the limit, so a clickable wrapper around a whole
// page costs no more than a button.
export function boundedText(el) {
  if (el.childElementCount === 0) return cut(collapse(el.textContent));
  let out = "";
  let nextCheck = TEXT_LIMIT * 4;
  const walker = el.ownerDocument.createTreeWalker(el, 5 /* SHOW_ELEMENT | SHOW_TEXT */, {
    acceptNode(n) {
      if (n.nodeType === 1) {
        const t = n.localName;
        return t === "script" || t === "style" || t === "template" || t === "noscript" ? 2 : 3;
      }
      return 1;
    },
  });
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    out += n.data;
    if (out.length > nextCheck) {
      if (collapse(out).length >= TEXT_LIMIT) break;
      nextCheck = out.length * 2; // mostly whitespace so far: look again after it doubles
    }
  }
  return cut(collapse(out));
}

function cut(s) {
  if (s.length <= TEXT_LIMIT) return s;
  let end = TEXT_LIMIT;
  const code = s.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1; // do not split a surrogate pair
  return s.slice(0, end);
}

// An XPath 1.0 string literal for any text; XPath has no escapes, so text holding both quote kinds
// becomes concat('a', "'", 'b').
export function xpathLiteral(s) {
  if (!s.includes("'")) return `'${s}'`;
  if (!s.includes('"')) return `"${s}"`;
  const parts = s.split("'").map((p) => `'${p}'`);
  return `concat(${parts.join(`, "'", `)})`;
}

// A quoted CSS string (for attribute selectors) that decodes back to exactly s.
export function cssString(s, quote) {
  let out = "";
  for (const ch of s) {
    const code = ch.codePointAt(0);
    if (ch === "\\" || ch === quote) out += "\\" + ch;
    else if (code < 0x20 || code === 0x7f) out += "\\" + code.toString(16) + " ";
    else out += ch;
  }
  return quote + out + quote;
}
