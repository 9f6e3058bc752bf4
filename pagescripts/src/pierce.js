// CSS that pierces open shadow roots, with the semantics of Playwright's css engine: the light
// DOM's matches come first, exactly as querySelectorAll finds them (same meaning, same order),
// then the matches of each open shadow root, in the order their hosts come, nested roots after
// their host's root. Inside a shadow root the descendant and child combinators cross the shadow
// boundary: the parent of a shadow root's top-level element is its host, so `my-panel button`
// finds a button in my-panel's shadow tree. Closed roots stay closed (page JS cannot reach them).

// A selector list split into complex selectors, each as compounds and the combinators between
// them ({compounds: ["div.a", "button"], combinators: [" "]}); null when it cannot be split.
// Brackets, parentheses, strings and escapes are kept whole: `:is(a b)` is one compound.
export function splitSelector(selector) {
  const list = [];
  let compounds = [];
  let combinators = [];
  let current = "";
  let pending = null; // a combinator seen since the last compound
  let depth = 0;
  let quote = null;
  const endCompound = () => {
    if (current === "") return true;
    if (compounds.length > 0) combinators.push(pending === null ? " " : pending);
    else if (pending !== null && pending !== " ") return false; // a leading > + ~
    compounds.push(current);
    current = "";
    pending = null;
    return true;
  };
  for (let i = 0; i < selector.length; i++) {
    const ch = selector[i];
    if (ch === "\\") {
      current += selector.slice(i, i + 2);
      i++;
      continue;
    }
    if (quote !== null) {
      current += ch;
      if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
      continue;
    }
    if (ch === "(" || ch === "[") depth++;
    if (ch === ")" || ch === "]") depth--;
    if (depth > 0 || ch === ")" || ch === "]") {
      current += ch;
      continue;
    }
    if (ch === ",") {
      if (!endCompound() || compounds.length === 0 || (pending !== null && pending !== " ")) return null;
      list.push({ compounds, combinators });
      compounds = [];
      combinators = [];
      pending = null;
      continue;
    }
    if (ch === ">" || ch === "+" || ch === "~" || /\s/.test(ch)) {
      if (!endCompound()) return null;
      if (ch !== " " && !/\s/.test(ch)) {
        if (pending !== null && pending !== " ") return null; // two combinators in a row
        pending = ch;
      } else if (pending === null && compounds.length > 0) {
        pending = " ";
      }
      continue;
    }
    current += ch;
  }
  if (quote !== null || depth !== 0 || !endCompound() || compounds.length === 0) return null;
  if (pending !== null && pending !== " ") return null; // a trailing combinator
  list.push({ compounds, combinators });
  return list;
}

// The element's parent in the composed tree: a shadow root's top-level elements have their host.
function composedParent(el) {
  if (el.parentElement !== null) return el.parentElement;
  const parent = el.parentNode;
  return parent !== null && parent.host ? parent.host : null;
}

function matchesAt(el, complex, k) {
  if (!el.matches(complex.compounds[k])) return false;
  if (k === 0) return true;
  const combinator = complex.combinators[k - 1];
  if (combinator === ">") {
    const parent = composedParent(el);
    return parent !== null && matchesAt(parent, complex, k - 1);
  }
  if (combinator === " ") {
    for (let p = composedParent(el); p !== null; p = composedParent(p)) {
      if (matchesAt(p, complex, k - 1)) return true;
    }
    return false;
  }
  // Siblings stay siblings: + and ~ never cross a boundary.
  for (let s = el.previousElementSibling; s !== null; s = s.previousElementSibling) {
    if (matchesAt(s, complex, k - 1)) return true;
    if (combinator === "+") return false;
  }
  return false;
}

// Every open shadow root under root, hosts in document order, each followed by the roots inside it.
export function shadowRoots(root, out) {
  for (const el of root.querySelectorAll("*")) {
    if (el.shadowRoot) {
      out.push(el.shadowRoot);
      shadowRoots(el.shadowRoot, out);
    }
  }
  return out;
}

// The elements of `root` (a document) and of its open shadow roots that match `selector`.
// Throws as querySelectorAll does on a selector it cannot parse.
export function queryPiercing(root, selector) {
  const found = Array.from(root.querySelectorAll(selector));
  const roots = shadowRoots(root, []);
  if (roots.length === 0) return found;
  const list = splitSelector(selector);
  if (list === null) return found; // valid for the browser, beyond this splitter: light DOM only
  for (const shadow of roots) {
    for (const el of shadow.querySelectorAll("*")) {
      if (list.some((complex) => matchesAt(el, complex, complex.compounds.length - 1))) found.push(el);
    }
  }
  return found;
}
