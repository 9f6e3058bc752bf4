// Detection policy as data: which tags, roles and handler props make an element interactive.

export const SVG_NS = "http://www.w3.org/2000/svg";

// Native controls, reported even when disabled or pointer-events:none.
export const NATIVE_TAGS = new Set(["input", "button", "select", "textarea", "summary"]);

export const WIDGET_ROLES = new Set([
  "button", "checkbox", "combobox", "gridcell", "link", "listbox", "menuitem",
  "menuitemcheckbox", "menuitemradio", "option", "radio", "scrollbar", "searchbox", "slider",
  "spinbutton", "switch", "tab", "textbox", "treeitem",
]);

// Elements that show a document of their own (a frame owner): whatever role a page gives one, it is
// a frame — a press on it is a press in the framed document, maybe another site's. An <object>
// counts when it holds a document (walk.js, isFrameOwner); an <embed> always, as the page cannot
// tell a document in it from an image (the host asks the browser before any input).
export const FRAME_OWNER_TAGS = new Set(["iframe", "frame", "fencedframe", "embed"]);

// React keeps a node's props on an expando: `__reactProps$<random>` (17+) or
// `__reactEventHandlers$<random>` (16).
export const REACT_PROP_PREFIXES = ["__reactProps$", "__reactEventHandlers$"];
export const REACT_HANDLERS = [
  "onClick", "onClickCapture", "onDoubleClick", "onMouseDown", "onMouseUp", "onPointerDown",
  "onPointerUp", "onTouchStart", "onTouchEnd",
];

// Subtrees that never hold anything to interact with.
export const SKIP_TAGS = new Set([
  "head", "script", "style", "template", "noscript", "meta", "link", "title", "base",
]);

// Roles whose accessible name comes from the element's content.
export const NAME_FROM_CONTENT = new Set([
  "button", "cell", "checkbox", "columnheader", "gridcell", "heading", "link", "menuitem",
  "menuitemcheckbox", "menuitemradio", "option", "radio", "row", "rowheader", "switch", "tab",
  "tooltip", "treeitem",
]);

// Implicit roles of common ancestors, for parent_role; cheaper than a full role computation on
// every element of the page.
export const ANCESTOR_ROLES = {
  article: "article", aside: "complementary", dialog: "dialog", fieldset: "group",
  details: "group", footer: "contentinfo", form: "form", header: "banner", li: "listitem",
  main: "main", menu: "list", nav: "navigation", ol: "list", optgroup: "group", table: "table",
  tbody: "rowgroup", td: "cell", tfoot: "rowgroup", th: "columnheader", thead: "rowgroup",
  tr: "row", ul: "list", datalist: "listbox", h1: "heading", h2: "heading", h3: "heading",
  h4: "heading", h5: "heading", h6: "heading",
};

// Roles that name a region of the page for `context.section`.
export const SECTION_ROLES = new Set([
  "alertdialog", "banner", "complementary", "contentinfo", "dialog", "form", "grid", "listbox",
  "main", "menu", "menubar", "navigation", "region", "search", "tablist", "toolbar", "tree",
]);

// Input types a user types into.
export const TEXT_INPUT_TYPES = new Set([
  "text", "search", "email", "url", "tel", "password", "number", "date", "datetime-local",
  "month", "week", "time",
]);
