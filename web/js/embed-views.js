// The embed's view on show: mounting one of the app's view elements (imported when first shown),
// with the panels its `parts` keep; what it tells (bpe-state, bpe-answer, bpe-problem) passed to
// the host; the "Open in BPE Lab" link; and the state a view starts from when the host switches
// to another view (the same text and tokenizer). One view is mounted at a time.
import { APP_ROUTES, VIEW_TITLES } from "./embed-params.js";
import { VIEWS as APP_VIEWS, makeHash } from "./views.js";
import { STATES } from "./share/states.js";
import { compactParams } from "./share/link.js";
import { sameInput } from "./share/recipe.js";
import { defaultParts } from "./share/parts.js";
import { holdFieldsForState } from "./state-hold.js";

export class EmbedViews {
  /**
   * widget (embed.js): ui, host, config, samples, failures, reporting, setState(state, message) and
   * postState(message) (held while the widget is booting).
   */
  constructor(widget) {
    this.widget = widget;
    this.view = null;            // the mounted view element
    this.name = null;            // explorer | compare | train | encode
    this.carriedTraining = null; // the last training recipe a view of this widget had
    this.openTimer = 0;
  }

  /** Mount view `name` showing `state` (its state module's value), with `parts` of it (default: a lesson page's). */
  async mount(name, state, parts = null) {
    const { ui, failures, reporting, setState } = this.widget;
    const spec = APP_VIEWS.find((v) => v.route === APP_ROUTES[name]);
    await import(new URL(spec.module, new URL("./views.js", import.meta.url)).href).catch((error) => {
      throw new Error(`The ${name} view could not be loaded (${error.message}).`);
    });
    const next = document.createElement(spec.tag);
    next.classList.add("embed-view");
    next.dataset.parts = ` ${(parts || defaultParts(name, state, STATES[APP_ROUTES[name]].defaults())).join(" ")} `;
    next.addEventListener("bpe-state", (event) => this.onState(event));
    next.addEventListener("bpe-answer", (event) => this.onAnswer(event));
    next.addEventListener("bpe-params", () => this.updateOpenLink());
    next.addEventListener("bpe-problem", (event) => { if (event.target === this.view) failures.tell(event.detail.message); });
    this.view?.remove();
    this.view = next;
    this.name = name;
    ui.mount.append(next);
    if (!next.dataset.watched) { next.dataset.watched = "1"; failures.watch(next); }
    reporting.watchTyping(next);
    ui.preview.hidden = true; // the view has its own heading; the status line says what is loading
    setState("booting", `Preparing the ${VIEW_TITLES[name].toLowerCase()}…`);
    const release = holdFieldsForState(next);
    try {
      await next.setState(state);
    } finally {
      release();
    }
    this.updateOpenLink();
  }

  onState(event) {
    if (event.target !== this.view) return;
    const { view: _, ...detail } = event.detail || {};
    // While the view is being mounted or restored, only its last state is told, once it is ready.
    this.widget.postState(this.widget.reporting.filter({ type: "state", view: this.name, ...detail }, this.view));
  }

  onAnswer(event) {
    if (event.target !== this.view) return;
    const { step, correct } = event.detail || {};
    this.widget.host.post({ type: "answer", step, correct });
  }

  /** "Open in BPE Lab": the app at the same view and state, in a new tab. */
  updateOpenLink() {
    if (!this.view) return;
    clearTimeout(this.openTimer);
    this.openTimer = setTimeout(async () => {
      const { ui, samples } = this.widget;
      const route = APP_ROUTES[this.name];
      const url = new URL("../index.html", import.meta.url);
      url.hash = makeHash(route, await compactParams(STATES[route].toParams(this.view.state, { samples }).params));
      ui.open.href = url.href;
      ui.bar.hidden = false;
    }, 100);
  }

  /** The state for another view of this widget: its own keys from the address, then the same text and tokenizer. */
  carriedState(toName) {
    const { config, samples } = this.widget;
    const from = this.view?.state || config.state;
    const fromRoute = APP_ROUTES[this.name];
    const toRoute = APP_ROUTES[toName];
    const module = STATES[toRoute];
    const next = module.fromParams(Object.fromEntries(Object.entries(config.params).filter(([key]) => module.KEYS.includes(key))), { samples }).state;
    // What it is about: the text the view shows (compare, encode), or its training input (explorer, train).
    const own = fromRoute === "compare" || fromRoute === "encode" ? (from.sample ? { sample: from.sample } : { text: from.text }) : null;
    // A view without training (compare with no trained pane) keeps the recipe of the one before it, when it shows
    // the same input: explorer -> compare -> explorer comes back to the same tokenizer, not one of default settings.
    if (from.training) this.carriedTraining = structuredClone(from.training);
    const carried = this.carriedTraining;
    const training = from.training ?? (own && carried && sameInput(carried, own) ? structuredClone(carried) : null);
    const recipe = training ?? (own ? { ...own, settings: STATES.train.defaults().training.settings } : null);
    if (toRoute === "train" && recipe) next.training = structuredClone(recipe);
    if (toRoute === "explore" && recipe && (recipe.sample !== undefined || recipe.text || recipe.documents || recipe.counts)
        && (next.tok === "" || next.tok === "trained")) {
      Object.assign(next, { tok: "trained", training: structuredClone(recipe) });
    }
    if (toRoute === "compare" || toRoute === "encode") {
      const input = own ?? (recipe?.sample !== undefined ? { sample: recipe.sample } : recipe?.text !== undefined ? { text: recipe.text } : null);
      if (input?.sample !== undefined) Object.assign(next, { sample: input.sample, text: "" });
      else if (input) Object.assign(next, { sample: "", text: input.text });
      const trained = toRoute === "compare" ? next.panes.some((p) => /^(trained|alt_)/.test(p)) : next.tok === "trained";
      if (trained) next.training = structuredClone(recipe ?? { ...input, settings: STATES.train.defaults().training.settings });
    }
    return next;
  }
}
