// The demo lesson's page script: where the widgets live (?widget=…), and the
// narration that drives the explorer through postMessage commands, as any
// course page could. It reads the widgets' messages; it computes nothing.

function widgetBase() {
  const given = new URLSearchParams(location.search).get("widget");
  if (given) {
    try {
      const url = new URL(given, location.href);
      if (url.protocol === "http:" || url.protocol === "https:") return new URL(url.pathname.endsWith("/") ? url : `${url.href}/`);
    } catch { /* fall through to the default */ }
    console.warn(`lesson: ?widget=${JSON.stringify(given)} is not an http(s) address; using this site's widget`);
  }
  return new URL("../", location.href);
}

const base = widgetBase();
const explorer = document.getElementById("explorer");
const narrator = document.getElementById("narrator");
let explorerReady = false;

explorer.src = new URL(explorer.dataset.src, base).href;

function send(command) {
  // Commands go to the widget's origin only, never "*": the text of a lesson may be private.
  explorer.contentWindow.postMessage({ target: "bpe-lab", type: "command", ...command }, base.origin);
  if (!explorerReady) narrator.textContent = "Starting the widget…";
}

for (const button of document.querySelectorAll(".narration button")) {
  button.addEventListener("click", () => {
    if (button.dataset.step) send({ action: "step", step: Number(button.dataset.step) });
    else send({ action: button.dataset.action });
  });
}

function narrate(state) {
  if (state.step === 0) {
    narrator.textContent = `Before any merge: the corpus is ${state.tokens ?? "a list of"} byte tokens; ${state.steps} merges follow.`;
    return;
  }
  const [a, b] = state.pair;
  narrator.textContent = `Merge ${state.step} of ${state.steps}: tokens ${a} and ${b} become the new token ${state.merged}. `
    + `The pair occurred ${state.count} times; the corpus is now ${state.tokens} tokens.`;
}

window.addEventListener("message", (event) => {
  if (event.source !== explorer.contentWindow || event.origin !== base.origin) return;
  const message = event.data;
  if (!message || message.source !== "bpe-lab") return;
  if (message.type === "resize") explorer.style.height = `${message.height}px`;
  else if (message.type === "ready") { explorerReady = true; narrator.textContent = "The widget is ready."; }
  else if (message.type === "state") narrate(message);
  else if (message.type === "error") narrator.textContent = `The widget says: ${message.message}`;
});

// <bpe-lab> elements: point them at the widget's site, then let bpe-lab.js turn them into frames.
for (const element of document.querySelectorAll("bpe-lab")) element.setAttribute("base", base.href);
document.addEventListener("bpe-lab:state", (event) => {
  if (event.target.id !== "compare" || !Array.isArray(event.detail.panes)) return;
  document.getElementById("compare-caption").textContent = event.detail.panes
    .map((pane) => `${pane.tokenizer}: ${pane.tokens} tokens`).join(" · ");
});
const script = document.createElement("script");
script.src = new URL("../bpe-lab.js", import.meta.url).href;
document.head.append(script);
