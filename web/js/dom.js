// Small DOM helpers. Text only ever enters the page through textContent or
// createTextNode, so nothing a user types or loads can become markup.

/** el("li", {className: "x", onclick: f}, "text", child) */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "className") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

// The HTML parser puts <svg> in the SVG namespace; asking it keeps absolute URLs out of our files.
const SVG_NS = new DOMParser().parseFromString("<svg></svg>", "text/html").querySelector("svg").namespaceURI;

/** svg("line", {x1: 0, ...}) — SVG elements need their namespace. */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null) continue;
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat(Infinity)) if (child) node.append(child);
  return node;
}

export const numberFormat = new Intl.NumberFormat("en-US");
export const fmt = (n) => numberFormat.format(n);

/** A count with its noun: "1 merge", "2 merges"; plural defaults to the noun + "s". */
export const count = (n, noun, plural = `${noun}s`) => `${fmt(n)} ${n === 1 ? noun : plural}`;

export function fmtBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(2)} MB`;
}

export function show(node, message, kind) {
  node.textContent = message;
  node.className = `alert${kind ? " " + kind : ""}`;
  node.hidden = false;
}

/** Like show(), with parts that may be nodes: put user strings in bdi() so they cannot reorder the sentence. */
export function showParts(node, parts, kind) {
  node.replaceChildren();
  append(node, parts);
  node.className = `alert${kind ? " " + kind : ""}`;
  node.hidden = false;
}

/** A user string (a file name, a token, a tokenizer's name) isolated from the text around it. */
export const bdi = (text) => el("bdi", { text: String(text) });

/** A message as parts, with its first `subject` (a user string) isolated: "x.txt is empty" -> [bdi("x.txt"), " is empty"]. */
export function isolate(message, subject) {
  const at = subject ? message.indexOf(subject) : -1;
  return at < 0 ? [message] : [message.slice(0, at), bdi(subject), message.slice(at + subject.length)];
}

export function hide(node) {
  node.hidden = true;
  node.textContent = "";
}

const idHolders = new Map();  // a kind of view -> the host element holding each id suffix (index 0: no suffix)

/**
 * Ids for one view on the page: the first of its kind keeps the plain names (the site's links, styles
 * and tests use them), and another shown at the same time (two Compare widgets in one notebook) gets
 * name-2, name-3…, so its labels, aria references and radio groups stay its own. A suffix is free again
 * once its view has left the page.
 */
export function instanceIds(kind, host) {
  const holders = idHolders.get(kind) ?? [];
  idHolders.set(kind, holders);
  let n = holders.findIndex((holder) => holder === host || !holder.isConnected);
  if (n === -1) n = holders.length;
  holders[n] = host;
  return (name) => (n === 0 ? name : `${name}-${n + 1}`);
}
