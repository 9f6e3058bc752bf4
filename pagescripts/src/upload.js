// File uploads: the file input behind a target (a drop zone, an "Attach" button, a label), and
// what the page received.

function isFileInput(n) {
  return !!n && n.localName === "input" && n.type === "file";
}

// The file input for `el`: itself, one inside it, the one its label or aria-controls names, or
// the only one in the nearest enclosing box (a drop zone's hidden input sits beside its text).
export function fileInputFor(el) {
  if (isFileInput(el)) return el;
  const doc = el.ownerDocument;
  const inside = el.querySelector && el.querySelector("input[type=file]");
  if (inside) return inside;
  const label = el.localName === "label" ? el : el.closest && el.closest("label");
  if (label && isFileInput(label.control)) return label.control;
  for (const id of (el.getAttribute("aria-controls") || "").split(/\s+/).filter(Boolean)) {
    const n = doc.getElementById(id);
    if (isFileInput(n)) return n;
    const deeper = n && n.querySelector("input[type=file]");
    if (deeper) return deeper;
  }
  for (let up = el.parentElement, depth = 0; up && depth < 3; up = up.parentElement, depth++) {
    const found = up.querySelectorAll("input[type=file]");
    if (found.length === 1) return found[0];
    if (found.length > 1) return null;
  }
  return null;
}

// {multiple, disabled, accept} of a file input.
export function fileInputInfo(input) {
  return { multiple: input.multiple, disabled: input.disabled, accept: input.accept || "" };
}

// The files a file input holds: [{name, size, type}].
export function fileList(input) {
  return Array.from(input.files || []).map((f) => ({ name: f.name, size: f.size, type: f.type }));
}
