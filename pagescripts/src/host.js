// Every function the host calls by name, and nothing else. The build (build.mjs) turns each into
// a self-contained function declaration in host/reins/_generated/functions.json, which the host sends
// with Runtime.callFunctionOn (an element as the first argument) or calls from Runtime.evaluate.

export {
  checkedState, elementReading, fieldValue, jsClick, keysGoTo, prepareField, probe, selectOptions,
} from "./actions.js";
export { enterField } from "./inputs.js";
export {
  chooseControl, chooseKind, findOption, optionAt, replacedBy, triggerShows, watchPopup,
} from "./choose.js";
export { armReceipt, readState, takeReceipt } from "./effects.js";
export {
  framesPassed, rowsAfterFrames, rowsShown, scrollOn, scrollRegions, shownInScrollerOf,
  shownInScrollers, sweepList, wheelPoint,
} from "./scroll.js";
export { dragAfter, dragBefore, dragStarted } from "./drag.js";
export { fileInputFor, fileInputInfo, fileList } from "./upload.js";
export { park, runOnParked, serializeParked, takeParked } from "./evaluate.js";
export {
  describeElement, findMatches, frameElementByChain, hasApi, innermostOf, matchAt, sameNode,
  storedElement, storedElements, storedIndexOf,
} from "./find.js";
export { findText, textHolder, textInside } from "./textmatch.js";
export { pressSame, probeSame, readHeld } from "./refcheck.js";
export { candidateList, handlerHints, listenerCandidates } from "./listeners.js";
export { captureTick, traceBox } from "./capture.js";
export { maskBoxes, maskedElement } from "./mask.js";
export { contentOrigin, pressReaches, viewportBox } from "./geometry.js";
export { documentIdentity, documentInfo, documentUrl, elementDocument, settle } from "./navigation.js";
