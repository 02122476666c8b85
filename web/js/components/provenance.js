// Where a token came from: its merge tree down to bytes (each merge with its number), the step
// that made it, the pair's count then, the runners-up and whether it was a tie. Python builds it
// (explore.py Explorer.provenance, worker request "explore_token"); this draws it in a dialog.
//
//   showProvenance(store, handle, id)   opens the dialog (one per page) for token `id` of tokenizer `handle`
//   renderProvenance(info, {onToken})   the same content as a node, for pages that place it themselves
import { el } from "../dom.js";
import { tokenChip, pairNode } from "./pair-table.js";

let dialog = null;
let body = null;
let opener = null;

function ensureDialog() {
  if (dialog) return dialog;
  const title = el("h2", { id: "provenance-title" }, "Where this token came from");
  body = el("div", { className: "provenance-body" });
  const close = el("button", { type: "button", className: "secondary", onclick: () => dialog.close() }, "Close");
  dialog = el("dialog", { className: "provenance-dialog panel", "aria-labelledby": "provenance-title" },
    el("div", { className: "row provenance-head" }, title, close), body);
  dialog.addEventListener("close", () => {
    if (opener && opener.isConnected) opener.focus();
    opener = null;
  });
  // A click on the backdrop (outside the dialog's box) closes it, as Escape does.
  dialog.addEventListener("click", (event) => { if (event.target === dialog) dialog.close(); });
  document.body.append(dialog);
  return dialog;
}

/** Open the provenance dialog for token `id` of the tokenizer `handle`. */
export async function showProvenance(store, handle, id) {
  ensureDialog();
  if (!dialog.open) {
    opener = document.activeElement;
    dialog.showModal();
  }
  body.replaceChildren(el("p", { className: "meta" }, `Looking up token ${id}…`));
  try {
    const info = await store.request("explore_token", { handle, id });
    body.replaceChildren(renderProvenance(info, { onToken: (child) => showProvenance(store, handle, child) }));
    dialog.dataset.id = String(id);
  } catch (error) {
    body.replaceChildren(el("p", { className: "alert error" }, `Token ${id}: ${error.message || error}`));
  }
}

/** The provenance of one token as a node: summary, what made it, the runners-up, the merge tree. */
export function renderProvenance(info, { onToken = null } = {}) {
  const out = el("div", { className: "provenance" });
  out.append(el("p", { className: "provenance-token" }, tokenChip(info.token, "tok big"),
    el("span", { className: "meta" }, ` id ${info.id}${info.bytes ? ` · bytes ${info.bytes.match(/../g).join(" ").toUpperCase()}` : ""}`)));
  if (info.special || !info.made) {
    out.append(el("p", {}, info.text));
    if (info.tree) out.append(treeSection(info.tree, onToken));
    return out;
  }
  const made = info.made;
  out.append(el("p", { className: "provenance-made" }, made.text));
  if (made.runners_up && made.runners_up.length) {
    const rows = made.runners_up.map((row) => el("tr", { className: row.tied ? "tied" : "" },
      el("td", {}, pairNode(row)), el("td", { className: "num" }, row.count.toLocaleString("en-US")),
      el("td", {}, row.tied ? "tie" : "")));
    out.append(el("table", { className: "pair-table runners-up" },
      el("caption", {}, `Runners-up at step ${made.step}${made.tie ? " (a tie)" : ""}`),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Pair"), el("th", { scope: "col", className: "num" }, "Count"),
        el("th", { scope: "col" }, "Note"))),
      el("tbody", {}, rows)));
  }
  out.append(treeSection(info.tree, onToken));
  return out;
}

function treeSection(tree, onToken) {
  return el("section", { className: "merge-tree", "aria-label": "Merge tree" },
    el("h3", {}, "Merge tree, down to bytes"),
    el("ul", { className: "tree" }, treeNode(tree, onToken)));
}

function treeNode(node, onToken) {
  const label = node.rank === null || node.rank === undefined
    ? `byte ${node.id}`
    : `id ${node.id} · merge ${node.step}${node.count !== undefined ? ` · count ${node.count.toLocaleString("en-US")}` : ""}`;
  const chip = tokenChip(node.token, "tok");
  const head = onToken && node.rank !== null && node.rank !== undefined
    ? el("button", { type: "button", className: "link tree-token", onclick: () => onToken(node.id) }, chip,
      el("span", { className: "sr-only" }, ", open where it came from"))
    : chip;
  const item = el("li", {}, head, el("span", { className: "meta" }, ` ${label}`));
  if (node.children) item.append(el("ul", {}, node.children.map((child) => treeNode(child, onToken))));
  return item;
}
