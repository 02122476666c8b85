// The Train view's export and import panels: files written by Python, each
// downloadable, plus one .zip; tokenizer files loaded back in.
import { ui, state, store } from "./train-context.js";
import { el, count, fmtBytes, show, showParts, hide, bdi } from "../../dom.js";
import { entriesText } from "../../components/tokenizer-choice.js";

// The controller's callbacks, given to initExport: a run's start and end (progress, Cancel, focus),
// and showing a tokenizer just imported as the current one.
let hooks = null;
const beginRun = (...args) => hooks.beginRun(...args);
const endRun = () => hooks.endRun();

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

/** An imported tokenizer is written in every format on request (GPT-2's 50,000 merges take seconds to check). */
function offerExport() {
  ui.exportPanel.hidden = false;
  ui.exportMake.hidden = false;
  ui.exportZip.hidden = true;
  ui.exportFiles.replaceChildren();
  hide(ui.selfCheck);
  ui.exportHint.textContent = "Write the imported tokenizer in every format, with its own ids: GPT-2's encoder.json + vocab.bpe, Hugging Face's tokenizer.json, tiktoken's ranks, and a manifest with its pre-tokenizer and special tokens (a .tiktoken file cannot hold them). Each is loaded back and checked.";
  ui.exportLayout.textContent = "";
}

export function updateZipButton() {
  ui.exportZip.disabled = store.phase === "busy" || !state.exported;
  ui.exportMake.disabled = store.phase !== "ready";
}

/** Another request ran while the layout changed: export when it ends so the files follow the chosen layout. */
export function exportAfterRun() {
  if (!state.exportAfterRun) return;
  state.exportAfterRun = false;
  if (state.exported && state.exported.layout !== state.settings.id_layout) setTimeout(() => exportCurrent({ keepFocus: true }), 0);
}

/** Write the current tokenizer's files: a trained one with the chosen id layout and its manifest, an imported one with its own ids. */
export async function exportCurrent({ keepFocus = false } = {}) {
  const info = state.current;
  if (!info) return;
  if (state.running) {
    state.exportAfterRun = true;
    return;
  }
  const trained = info.source === "trained";
  const layout = trained ? state.settings.id_layout : "own";
  if (info.detached) {
    if (trained) show(ui.selfCheck, `Python was restarted since this tokenizer was trained, so it cannot be exported again with the ${layout} layout. Train again to export it that way; the files below are still the ${state.exported?.layout ?? "earlier"} layout.`, "warn");
    return;
  }
  ui.exportPanel.hidden = false;
  ui.exportMake.hidden = true;
  ui.exportZip.hidden = false;
  ui.exportHint.textContent = trained
    ? "GPT-2's encoder.json + vocab.bpe, a manifest of how it was made, Hugging Face's tokenizer.json and tiktoken's ranks. The files use the id layout chosen in the settings."
    : "The imported tokenizer in every format, with its own ids: GPT-2's encoder.json + vocab.bpe, Hugging Face's tokenizer.json, tiktoken's ranks, and a manifest with its pre-tokenizer and special tokens (a .tiktoken file cannot hold them).";
  ui.exportLayout.textContent = trained ? `Preparing files (${layout} id layout)…` : "Preparing files…";
  // The list may hold another tokenizer's files (or the other layout's): never offer them for this one.
  state.exported = null;
  ui.exportFiles.replaceChildren();
  updateZipButton();
  hide(ui.selfCheck);
  beginRun("export", "Writing the files and checking them…", { focusCancel: !keepFocus });
  try {
    const reply = trained
      ? await store.request("export", { handle: info.handle, id_layout: layout })
      : await store.request("bundle", { handle: info.handle });
    state.exported = {
      layout, trained,
      files: reply.files.map((f) => ({ name: f.name, size: f.size, sha256: f.sha256, base64: f.base64, data: base64ToBytes(f.base64) })),
      selfCheck: reply.self_check,
    };
    endRun();
    renderExport();
  } catch (error) {
    endRun();
    ui.exportLayout.textContent = "No files";
    show(ui.selfCheck, error.type === "Cancelled"
      ? `Writing the files was cancelled, so there are none to download. ${trained ? "Train again" : "Import the files again"} to write them.`
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
  ui.exportLayout.textContent = exported.trained ? `${exported.files.length} files, ${exported.layout} id layout` : `${exported.files.length} files, the imported tokenizer's own ids`;
  ui.exportFiles.replaceChildren(...exported.files.map((file) =>
    el("li", {},
      el("span", { className: "name", title: `sha256 ${file.sha256}` }, file.name, el("span", { className: "size", text: fmtBytes(file.size) })),
      el("button", { type: "button", className: "secondary", "aria-label": `Download ${file.name}`, dataset: { file: file.name },
        onclick: () => download(file.name, file.data) }, "Download"))));
  const check = exported.selfCheck;
  if (!exported.trained) {
    show(ui.selfCheck, check.ok ? `Self-check passed: ${check.checked.join(", ")}, loaded back, encode a ${check.sample_chars}-character multilingual sample to the same ${check.tokens} ids as the imported tokenizer.`
      : `${check.message}`, check.ok ? "ok" : "warn");
  } else if (check.ok) {
    show(ui.selfCheck, `Self-check passed: ${(check.checked || []).join(", ")}, loaded back, encode a ${check.sample_chars.toLocaleString("en-US")}-character ` +
      `sample of the training text to the same ${check.tokens.toLocaleString("en-US")} ids as the trained tokenizer${exported.layout === "gpt2" ? " (renumbered to GPT-2's id layout)" : ""}.`, "ok");
  } else {
    show(ui.selfCheck, `${check.message || "Self-check FAILED: the files, loaded back, encode the sample differently."} Please report this.`, "error");
  }
}

/** "Download all": Python's zipfile packs the files (DEFLATE); the same files give the same bytes. */
async function downloadZip() {
  const exported = state.exported;
  if (!exported) return;
  const base = (state.current?.name || "tokenizer").replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 40) || "tokenizer";
  ui.exportZip.disabled = true;
  const before = ui.exportLayout.textContent;
  ui.exportLayout.textContent = "Packing the .zip…";
  try {
    const reply = await store.request("zip", { files: exported.files.map((f) => ({ name: f.name, base64: f.base64 })) });
    download(`bpelab-${base}.zip`, base64ToBytes(reply.base64));
    ui.exportLayout.textContent = `${before} · .zip ${fmtBytes(reply.size)} (the files are ${fmtBytes(reply.files_size)})`;
  } catch (error) {
    ui.exportLayout.textContent = before;
    show(ui.selfCheck, `The .zip could not be written: ${error.message}. The files can still be downloaded one by one.`, "error");
  }
  updateZipButton();
}

// ------------------------------------------------------------------ import

export async function importFiles(fileList) {
  const files = [...fileList];
  if (!files.length) return;
  hide(ui.importMessage);
  ui.importAsk.hidden = true;
  if (store.phase !== "ready") {
    show(ui.importMessage, "Python is busy or starting; try again in a moment.", "error");
    return;
  }
  for (const file of files) {
    if (file.size > IMPORT_MAX_BYTES) {
      showParts(ui.importMessage, [bdi(file.name), ` is too large to import: ${fmtBytes(file.size)}, and the limit is ${fmtBytes(IMPORT_MAX_BYTES)}.`], "error");
      return;
    }
  }
  const payload = { files: [] };
  for (const file of files) payload.files.push({ name: file.name, base64: bytesToBase64(new Uint8Array(await file.arrayBuffer())) });
  await sendImport(payload, files.map((f) => f.name));
}

/** Send an import request; a .tiktoken file without its pattern brings up the question, then comes back here. */
async function sendImport(payload, names) {
  beginRun("import", `Loading ${names.join(", ")}…`);
  try {
    const info = await store.request("import", payload);
    store.add(info);
    store.setCurrent(info.handle);
    endRun();
    state.pendingImport = null;
    ui.importAsk.hidden = true;
    hooks.showTokenizer(info);
    // Entries that are neither bytes nor made by a merge are read as special tokens: name them, so a
    // damaged file (an ordinary token whose merge is missing) does not pass unnoticed.
    const specials = Object.keys(info.special_tokens);
    const named = [];
    for (const [i, token] of specials.slice(0, 6).entries()) named.push(i ? ", " : "", bdi(JSON.stringify(token)));
    if (specials.length > 6) named.push(", …");
    showParts(ui.importMessage, ["Imported ", bdi(info.name), `: ${entriesText(info)}, ${count(info.n_merges, "merge")}, `,
      `${count(specials.length, "special token")}`, ...(specials.length ? [" (", ...named, ")"] : []),
      `, pre-tokenizer ${info.pretokenizer.name}. Its merges are shown above; Export writes it in every format.`], "ok");
    ui.importMessage.setAttribute("role", "status");
    offerExport();
    store.countRun();
  } catch (error) {
    endRun();
    if (error.type === "PretokenizerNeeded") {
      askPretokenizer(payload, names);
      return;
    }
    ui.importMessage.setAttribute("role", "alert");
    if (error.type !== "Cancelled") showParts(ui.importMessage, ["Could not import: ", bdi(error.message)], "error");
    if (state.pendingImport) ui.importAsk.hidden = false;  // a wrong custom pattern: the question stays open
  }
}

/** A .tiktoken file holds ranks, not the pattern that split the text: ask for it, then import again. */
function askPretokenizer(payload, names) {
  state.pendingImport = { payload, names };
  // Python's message names the CLI's flag; here the choice is the menu below.
  const file = names.find((name) => name.endsWith(".tiktoken")) || names[0];
  ui.importAskText.replaceChildren(bdi(file), " holds ranks only, not the pre-tokenizer pattern they were trained with, "
    + "and it is not one of OpenAI's published files. Choose its pre-tokenizer in the menu below (a custom one takes its pattern), "
    + "then press \u201cImport with this pre-tokenizer\u201d; or drop it together with the manifest.json exported with it.");
  ui.importAsk.hidden = false;
  ui.importPatternRow.hidden = ui.importPre.value !== "custom";
  ui.importPre.focus();
}

function importWithPretokenizer() {
  const pending = state.pendingImport;
  if (!pending) return;
  const choice = ui.importPre.value;
  if (choice === "custom" && !ui.importPattern.value) {
    show(ui.importMessage, "Give the custom pattern the tokenizer was trained with.", "error");
    ui.importPattern.focus();
    return;
  }
  hide(ui.importMessage);
  const pretokenizer = choice === "custom" ? { name: "custom", pattern: ui.importPattern.value } : choice;
  sendImport({ ...pending.payload, pretokenizer }, pending.names);
}

export function initExport({ beginRun: begin, endRun: end, showTokenizer }) {
  hooks = { beginRun: begin, endRun: end, showTokenizer };
  ui.exportZip.addEventListener("click", downloadZip);
  ui.exportMake.addEventListener("click", () => exportCurrent());
  ui.importOpen.addEventListener("click", () => ui.importInput.click());
  ui.importInput.addEventListener("change", () => { importFiles(ui.importInput.files); ui.importInput.value = ""; });
  ui.importPre.addEventListener("change", () => { ui.importPatternRow.hidden = ui.importPre.value !== "custom"; });
  ui.importAgain.addEventListener("click", importWithPretokenizer);
  ui.importAskCancel.addEventListener("click", () => {
    state.pendingImport = null;
    ui.importAsk.hidden = true;
    show(ui.importMessage, "Nothing was imported.", "");
    ui.importOpen.focus();
  });
}
