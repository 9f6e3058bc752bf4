// The names reins keeps on a page's global object, and the messages the host recognizes.
// Symbol.for keys: invisible to the page's own property enumeration, shared by every reins script
// that runs in the same window (the collection, the host's calls, the evaluate helpers).

// The elements of the latest collection, in record order (index = the record's position).
export const ELEMENTS = Symbol.for("reins.elements");
// Which collection ELEMENTS came from (a short random id per collection).
export const GENERATION = Symbol.for("reins.gen");
// What the latest delta collection sent ({gen, index: Map from a record's text to its index}),
// so the next one sends only what differs.
export const LAST_SENT = Symbol.for("reins.lastSent");
// Helpers installed by the collection for later single-element calls ({describe}).
export const API = Symbol.for("reins.api");
// The matches of the latest CSS/XPath query, for the host to take handles of.
export const MATCHES = Symbol.for("reins.matches");
// The mutation observer an action arms before it acts and reads after.
export const EFFECT = Symbol.for("reins.effect");
// The receipt guard of one press (effects.js armReceipt), in reins's world of the element's frame.
export const RECEIPT = Symbol.for("reins.receipt");
// A probe's box whose second look rides with the press (actions.js probe, opts.defer): a
// WeakMap from the element to {box, framed}.
export const STEADY = Symbol.for("reins.steady");
// Thrown by armReceipt when the element moved since its probe; the host answers not_stable.
export const MOVING = "reins: the element is moving";
// The popup a choose's press makes appear (choose.js watchPopup): what changed in the document.
export const POPUP = Symbol.for("reins.popup");
// `reins eval`'s parking slots: a Map from a per-call nonce to a value.
export const PARKED = Symbol.for("reins.eval");

// Thrown when a parked element cannot be found from the evaluating frame; the host answers
// frame_unreachable when it sees this message.
export const UNREACHABLE = "reins: the element is not reachable from its frame's main document";
// Thrown by keysGoTo when keyboard focus is not on the element (the host reads what follows).
export const FOCUS_ELSEWHERE = "reins: focus is on ";
// The page-side capture of resource timings
// (capture.js): ring buffers the host drains at the end of each command.
export const CAPTURE = Symbol.for("reins.capture");
// The dragstart watch a drag arms on the source's window (drag.js).
export const DRAG = Symbol.for("reins.drag");
// Listener detection (listeners.js): the candidates the host asks Chrome about, and the elements
// it found click listeners on ({candidates, marked: WeakSet}).
export const LISTENED = Symbol.for("reins.listened");
