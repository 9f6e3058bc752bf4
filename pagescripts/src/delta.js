// The delta form of a compact collection (docs/element-record.md, "Only what changed"): each
// record as its JSON text without `i` and `box`, or, where the collection the host holds (`since`)
// had a record with the very same text, that record's index there; the boxes as one flat list of
// numbers. What this collection sent is what the next one can refer to (`sent`).

// result: the collection's answer with `elements` the records (without `i` and `box`);
// boxes: 4 numbers per record; since: the gen the host holds, or null;
// last: what the previous delta collection sent ({gen, index}), or undefined.
// Returns {text, sent}: the answer as one JSON string, and what to keep for the next.
export function deltaText(result, boxes, since, last) {
  const base = last && typeof since === "string" && last.gen === since ? last.index : null;
  const records = result.elements;
  const index = new Map();
  const items = new Array(records.length);
  for (let i = 0; i < records.length; i++) {
    const text = JSON.stringify(records[i]);
    if (!index.has(text)) index.set(text, i);
    const before = base === null ? undefined : base.get(text);
    items[i] = before === undefined ? text : String(before);
  }
  const head = JSON.stringify({ ...result, elements: null });
  // The records go beside the head, not inside it, so none is encoded twice.
  const text = head.slice(0, -1) + ',"delta":{"base":' + JSON.stringify(base === null ? null : since) +
    ',"boxes":' + JSON.stringify(boxes) + ',"items":[' + items.join(",") + "]}}";
  return { text, sent: { gen: result.gen, index } };
}
