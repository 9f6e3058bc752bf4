// String helpers shared by the collector: whitespace collapsing, bounded visible text, quoting.

export const TEXT_LIMIT = 100;
// The most characters of any one string a record carries (a name, value, id, attribute): what a
// collection sends does not grow with the page's strings (a 100 MB label is 1,000 characters).
export const FIELD_LIMIT = 1000;

export function clipField(s) {
  if (typeof s !== "string" || s.length <= FIELD_LIMIT) return s;
  let end = FIELD_LIMIT;
  const code = s.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1; // never half a surrogate pair
  return s.slice(0, end);
}

export function collapse(s) {
  return s ? s.replace(/\s+/g, " ").trim() : "";
}

// Visible text of an element, whitespace-collapsed, at most TEXT_LIMIT characters. Large containers
// are walked node by node and the walk stops once enough text is gathered, so a clickable wrapper
// around a whole page costs no more than a button.
export function boundedText(el) {
  if (el.firstElementChild === null) return cut(collapse(el.textContent));
  const acc = { parts: [], length: 0, check: ENOUGH };
  gatherText(el, acc);
  return cut(collapse(acc.parts.join("")));
}

const NO_TEXT = new Set(["script", "style", "template", "noscript"]);
const ENOUGH = TEXT_LIMIT * 4;

function gatherText(parent, acc) {
  for (let n = parent.firstChild; n !== null; n = n.nextSibling) {
    if (n.nodeType === 3) {
      acc.parts.push(n.data);
      acc.length += n.data.length;
      // Raw length over-counts whitespace: gather a margin, and look again each time it doubles.
      if (acc.length > acc.check) {
        if (collapse(acc.parts.join("")).length >= TEXT_LIMIT) return true;
        acc.check = acc.length * 2;
      }
    } else if (n.nodeType === 1 && !NO_TEXT.has(n.localName)) {
      if (gatherText(n, acc)) return true;
    }
  }
  return false;
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
