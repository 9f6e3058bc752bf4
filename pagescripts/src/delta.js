// The delta form of a compact collection (docs/element-record.md, "Only what changed"): each
// record as its JSON text without `i` and `box`, or, where the collection the host holds (`since`)
// had a record with the very same text, that record's index there; the boxes as one flat list of
// numbers. What this collection sent is what the next one can refer to (`sent`).

// An index j says the record is the same text as record j there and of the same node; -j-1, the
// same text of another node (what is derived from the node itself, such as what Chrome's
// accessibility tree says of it, is not carried over then).

// result: the collection's answer with `elements` the records (without `i` and `box`);
// boxes: 4 numbers per record; since: the gen the host holds, or null;
// last: what the previous delta collection sent ({gen, index, nodes}), or undefined;
// nodes: the records' elements, in order.
// Returns {text, sent}: the answer as one JSON string, and what to keep for the next.
export function deltaText(result, boxes, since, last, nodes) {
  const held = last && typeof since === "string" && last.gen === since;
  const base = held ? last.index : null;
  const before = held ? last.nodes : [];
  const records = result.elements;
  const index = new Map();
  const items = new Array(records.length);
  for (let i = 0; i < records.length; i++) {
    const text = JSON.stringify(records[i]);
    if (!index.has(text)) index.set(text, i);
    const j = base === null ? undefined : base.get(text);
    if (j === undefined) items[i] = text;
    else items[i] = String(before[j] === nodes[i] ? j : -j - 1);
  }
  const head = JSON.stringify({ ...result, elements: null });
  // The records go beside the head, not inside it, so none is encoded twice.
  const text = head.slice(0, -1) + ',"delta":{"base":' + JSON.stringify(base === null ? null : since) +
    ',"boxes":' + JSON.stringify(boxes) + ',"items":[' + items.join(",") + "]}}";
  return { text, sent: { gen: result.gen, index, nodes } };
}
