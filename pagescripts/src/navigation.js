// What the host asks about the document as a whole: which one it is, and whether it has settled.
// performance.timeOrigin is unique per document: it tells a new document from the old one
// without writing anything into the page.

export function documentInfo() {
  return {
    origin: performance.timeOrigin, url: location.href, title: document.title,
    readyState: document.readyState,
  };
}

export function documentUrl() {
  return location.href;
}

// [document id, url]: enough to tell whether a cached interaction map still describes the page.
export function documentIdentity() {
  return [performance.timeOrigin, location.href];
}

// The document id of the frame an element lives in (it may differ from the evaluating frame's).
export function elementDocument(el) {
  return el.ownerDocument.defaultView.performance.timeOrigin;
}

// Resolves once the load event has fired and the DOM has then been quiet for `quietMs`, or after
// `capMs` whatever the page does, with documentInfo() and how long it took.
export function settle(quietMs, capMs) {
  return new Promise((resolve) => {
    const start = performance.now();
    let timer = null;
    let observer = null;
    const done = () => {
      if (observer) observer.disconnect();
      clearTimeout(timer);
      resolve({ ...documentInfo(), settledMs: Math.round(performance.now() - start) });
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(done, quietMs);
    };
    const begin = () => {
      observer = new MutationObserver(() => {
        if (performance.now() - start > capMs) done();
        else arm();
      });
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      arm();
    };
    setTimeout(done, capMs);
    if (document.readyState === "complete") begin();
    else addEventListener("load", begin, { once: true });
  });
}
