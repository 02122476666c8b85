// The explorer's DOM, made once: controls, the step's sections (explorer-render.js), the text window
// (explorer-window.js) and the encode trace (explorer-trace.js). The view (explorer-view.js) wires them.
import { el, instanceIds } from "../../dom.js";
import { store } from "../../store.js";
import { StepRender } from "./explorer-render.js";
import { TextWindow } from "./explorer-window.js";
import { TraceBox } from "./explorer-trace.js";

/** Build the explorer into `view` (a <bpe-explorer-view>); sets view.ui, view.render, view.window, view.trace. */
export function buildExplorer(view, WINDOW, SPEEDS) {
  const ui = view.ui = {};
  const id = instanceIds("explorer", view);
  ui.select = el("select", { id: id("explorer-tokenizer"), onchange: () => view.choose(ui.select.value) });
  ui.source = el("span", { className: "meta" });
  ui.example = el("button", { type: "button", className: "primary", onclick: () => view.workedExample() }, "Explore the worked example (seed 003)");
  ui.empty = el("div", { className: "explorer-empty", hidden: true },
    el("p", {}, "Train a tokenizer in the Train view first, then come back here to watch it learn one merge at a time. Or:"), ui.example);
  ui.status = el("p", { className: "meta", role: "status" });
  const button = (label, aria, onclick) => el("button", { type: "button", className: "secondary", "aria-label": aria, onclick }, label);
  ui.first = button("⇤ First", "First step (Home)", () => view.go(0));
  ui.back = button("◀ Back", "Step back (left arrow)", () => view.go(view.k - 1));
  ui.play = el("button", { type: "button", className: "primary", "aria-pressed": "false", onclick: () => view.toggle() }, "▶ Play");
  ui.forward = button("Forward ▶", "Step forward (right arrow)", () => view.go(view.k + 1));
  ui.last = button("Last ⇥", "Last step (End)", () => view.go(view.steps));
  ui.slider = el("input", { type: "range", id: id("explorer-step"), min: "0", max: "0", value: "0", step: "1" });
  ui.slider.addEventListener("input", () => view.go(Number(ui.slider.value)));
  ui.out = el("output", { for: id("explorer-step"), className: "step-out" }, "0 of 0");
  ui.speed = el("select", { id: id("explorer-speed"), onchange: () => { view.speed = Number(ui.speed.value); view.changed(); } },
    SPEEDS.map((s) => el("option", { value: String(s) }, `${s} per second`)));
  ui.predict = el("input", { type: "checkbox", id: id("explorer-predict"), onchange: () => view.setPredict(ui.predict.checked) });
  ui.useStep = el("button", { type: "button", className: "link", onclick: () => view.useStepElsewhere() }, "Use this step in Encode and Compare");
  // The verdict on a guess, drawn under the pair table where the reader clicked (StepRender places it).
  ui.answerText = el("span", { className: "predict-verdict" });
  ui.answerNext = el("button", { type: "button", className: "secondary predict-next", onclick: () => view.go(view.k + 1) }, "Next step");
  ui.answer = el("div", { className: "predict-answer", role: "status", hidden: true }, ui.answerText, " ", ui.answerNext);
  ui.controls = el("div", { className: "explorer-controls", role: "group", "aria-label": "Step through training" },
    el("div", { className: "row wrap" }, ui.first, ui.back, ui.play, ui.forward, ui.last),
    el("div", { className: "row wrap slider-row" }, el("label", { for: id("explorer-step") }, "Step"), ui.slider, ui.out),
    el("div", { className: "row wrap" }, el("label", { for: id("explorer-speed") }, "Speed"), ui.speed,
      el("label", { className: "radio" }, ui.predict, " Predict mode: guess each merge before it is shown"), ui.useStep));
  ui.keys = el("p", { className: "hint shortcuts" },
    "Keys: ← and → step back and forward, Home and End go to the first and last step, Space plays or pauses, P turns predict mode on or off. "
    + "In the text, ← and → move between tokens and Enter shows where one came from.");
  view.render = new StepRender({ id, onPick: (row) => view.guess(row), onToken: (id) => view.provenance(id) });
  view.render.nextSection.insertBefore(ui.answer, view.render.nextRule);
  view.window = new TextWindow({ id, size: WINDOW, onSelect: (id) => view.provenance(id), onMove: (start) => { view.at = start; view.go(view.k, { force: true }); view.changed(); } });
  view.trace = new TraceBox({
    id,
    request: (text, atStep) => store.request("explore_trace", { handle: view.handle, text, merges: atStep ? view.k : null }),
    onToken: (id) => view.provenance(id), onChange: () => view.changed(),
    collapsed: view.classList.contains("embed-view"),
  });
  ui.main = el("div", { className: "explorer-main", hidden: true },
    ui.controls, ui.keys, view.render.summary, view.render.stats,
    el("div", { className: "explorer-grid" }, view.render.nextSection, view.render.mergeSection),
    view.window.node);
  view.append(el("section", { className: "panel explorer", "aria-labelledby": id("explorer-title") },
    el("h2", { id: id("explorer-title") }, "Merge explorer"),
    el("p", { className: "row wrap explorer-source" }, el("label", { for: id("explorer-tokenizer") }, "Tokenizer"), ui.select, ui.source),
    ui.status, ui.empty, ui.main), view.trace.node);
}
