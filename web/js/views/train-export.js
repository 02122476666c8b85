// The Train view's export and import panels: files written by Python, each
// downloadable, plus one .zip; tokenizer files loaded back in.
import { ui, state, store } from "./train-context.js";
import { el, count, fmtBytes, show, hide } from "../dom.js";
import { makeZip } from "../zip.js";
import { beginRun, endRun } from "./train-run.js";
import { replaceCurrent, renderResults } from "./train-results.js";

const IMPORT_MAX_BYTES = 64 * 1024 * 1024;
const MIME = { ".json": "application/json", ".bpe": "text/plain", ".tiktoken": "text/plain", ".zip": "application/zip" };

export function base64ToBytes(b64) {
  const raw = atob(b64);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

export function bytesToBase64(bytes) {
  let raw = "";
  for (let i = 0; i < bytes.length; i += 0x8000) raw += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(raw);
}

export function updateZipButton() {
  ui.exportZip.disabled = store.phase === "busy" || !state.exported;
}

/** Another request ran while the layout changed: export when it ends so the files follow the chosen layout. */
export function exportAfterRun() {
  if (!state.exportAfterRun) return;
  state.exportAfterRun = false;
  if (state.exported && state.exported.layout !== state.settings.id_layout) setTimeout(() => exportCurrent({ keepFocus: true }), 0);
}

/** Write the current tokenizer's files with the chosen id layout (keepFocus: the layout radio keeps the keyboard). */
export async function exportCurrent({ keepFocus = false } = {}) {
  const info = state.current;
  if (!info || info.source !== "trained") return;
  if (state.running) {
    state.exportAfterRun = true;
    return;
  }
  const layout = state.settings.id_layout;
  if (info.detached) {
    show(ui.selfCheck, `Python was restarted since this tokenizer was trained, so it cannot be exported again with the ${layout} layout. Train again to export it that way; the files below are still the ${state.exported?.layout ?? "earlier"} layout.`, "warn");
    return;
  }
  ui.exportPanel.hidden = false;
  ui.exportLayout.textContent = `Preparing files (${layout} id layout)…`;
  // The list may hold another tokenizer's files (or the other layout's): never offer them for this one.
  state.exported = null;
  ui.exportFiles.replaceChildren();
  updateZipButton();
  hide(ui.selfCheck);
  beginRun("export", "Writing the files and checking them…", { focusCancel: !keepFocus });
  try {
    const reply = await store.request("export", { handle: info.handle, id_layout: layout });
    state.exported = {
      layout,
      files: reply.files.map((f) => ({ name: f.name, size: f.size, sha256: f.sha256, data: base64ToBytes(f.base64) })),
      selfCheck: reply.self_check,
    };
    endRun();
    renderExport();
  } catch (error) {
    endRun();
    ui.exportLayout.textContent = "No files";
    show(ui.selfCheck, error.type === "Cancelled"
      ? "Writing the files was cancelled, so there are none to download. Train again to write them."
      : `Export failed: ${error.message}`, error.type === "Cancelled" ? "warn" : "error");
  }
}

export function download(name, data) {
  const ext = name.slice(name.lastIndexOf("."));
  const url = URL.createObjectURL(new Blob([data], { type: MIME[ext] || "application/octet-stream" }));
  const a = el("a", { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function renderExport() {
  const exported = state.exported;
  updateZipButton();
  ui.exportLayout.textContent = `${exported.files.length} files, ${exported.layout} id layout`;
  ui.exportFiles.replaceChildren(...exported.files.map((file) =>
    el("li", {},
      el("span", { className: "name", title: `sha256 ${file.sha256}` }, file.name, el("span", { className: "size", text: fmtBytes(file.size) })),
      el("button", { type: "button", className: "secondary", "aria-label": `Download ${file.name}`, dataset: { file: file.name },
        onclick: () => download(file.name, file.data) }, "Download"))));
  const check = exported.selfCheck;
  if (check.ok) {
    show(ui.selfCheck, `Self-check passed: ${(check.checked || []).join(", ")}, loaded back, encode a ${check.sample_chars.toLocaleString("en-US")}-character ` +
      `sample of the training text to the same ${check.tokens.toLocaleString("en-US")} ids as the trained tokenizer${exported.layout === "gpt2" ? " (renumbered to GPT-2's id layout)" : ""}.`, "ok");
  } else {
    show(ui.selfCheck, `${check.message || "Self-check FAILED: the files, loaded back, encode the sample differently."} Please report this.`, "error");
  }
}

function downloadZip() {
  if (!state.exported) return;
  const base = (state.current?.name || "tokenizer").replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 40) || "tokenizer";
  download(`bpelab-${base}.zip`, makeZip(state.exported.files.map((f) => ({ name: f.name, data: f.data }))));
}

// ------------------------------------------------------------------ import

export async function importFiles(fileList) {
  const files = [...fileList];
  if (!files.length) return;
  hide(ui.importMessage);
  if (store.phase !== "ready") {
    show(ui.importMessage, "Python is busy or starting; try again in a moment.", "error");
    return;
  }
  for (const file of files) {
    if (file.size > IMPORT_MAX_BYTES) {
      show(ui.importMessage, `${file.name} is too large to import: ${fmtBytes(file.size)}, and the limit is ${fmtBytes(IMPORT_MAX_BYTES)}.`, "error");
      return;
    }
  }
  beginRun("import", `Loading ${files.map((f) => f.name).join(", ")}…`);
  try {
    const payload = [];
    for (const file of files) payload.push({ name: file.name, base64: bytesToBase64(new Uint8Array(await file.arrayBuffer())) });
    const info = await store.request("import", { files: payload });
    store.add(info);
    store.setCurrent(info.handle);
    endRun();
    replaceCurrent(info);
    renderResults();
    ui.exportPanel.hidden = true;
    store.countRun();
    // Entries that are neither bytes nor made by a merge are read as special tokens: name them, so a
    // damaged file (an ordinary token whose merge is missing) does not pass unnoticed.
    const specials = Object.keys(info.special_tokens);
    const named = specials.slice(0, 6).map((t) => JSON.stringify(t)).join(", ") + (specials.length > 6 ? ", …" : "");
    show(ui.importMessage, `Imported ${info.name}: ${count(info.n_vocab, "token")}, ${count(info.n_merges, "merge")}, ` +
      `${count(specials.length, "special token")}${specials.length ? ` (${named})` : ""}, pre-tokenizer ${info.pretokenizer.name}. Its merges are shown above.`, "ok");
    ui.importMessage.setAttribute("role", "status");
  } catch (error) {
    endRun();
    ui.importMessage.setAttribute("role", "alert");
    if (error.type !== "Cancelled") show(ui.importMessage, `Could not import: ${error.message}`, "error");
  }
}

export function initExport() {
  ui.exportZip.addEventListener("click", downloadZip);
  ui.importOpen.addEventListener("click", () => ui.importInput.click());
  ui.importInput.addEventListener("change", () => { importFiles(ui.importInput.files); ui.importInput.value = ""; });
}
