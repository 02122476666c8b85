// <bpe-lab>: a BPE Lab widget as a self-sizing iframe, for course pages that allow scripts.
//
//   <script src="(the site's address)/bpe-lab.js" defer></script>
//   <bpe-lab id="intro" view="compare" panes="gpt2,cl100k,o200k" text="Xin chào thế giới"></bpe-lab>
//
// Every attribute but the ones below becomes a widget parameter (README,
// "Embed in a course page"); the element's id is the widget's id= parameter.
//   height="480"  the frame's height until the widget reports its own (CSS px)
//   title="…"     the frame's accessible name (default: "BPE Lab: <view>")
//   base="…"      where embed.html lives (default: next to this script)
// Events on the element, each a CustomEvent whose detail is the widget's message:
//   bpe-lab:ready, bpe-lab:resize, bpe-lab:state, bpe-lab:answer, bpe-lab:error
// Methods: el.command(action, fields), el.step(k), el.play(), el.pause(), el.setText(t), el.setView(v).
//
// A classic script (no import/export), so a page of another origin can load it
// without CORS headers; it also works as a module when given base=.
(() => {
  if (customElements.get("bpe-lab")) return;
  const script = document.currentScript
    || [...document.querySelectorAll("script[src]")].find((s) => /\/bpe-lab\.js(\?|$)/.test(s.src));
  const DEFAULT_BASE = script ? new URL(".", script.src).href : new URL(".", location.href).href;
  const OWN_ATTRIBUTES = ["id", "class", "style", "height", "title", "base", "hidden", "lang", "dir"];
  const LONG_TEXT = 1500; // characters; longer texts travel compressed (z=)
  const frames = new Map(); // contentWindow -> element

  window.addEventListener("message", (event) => {
    const element = frames.get(event.source);
    const data = event.data;
    if (!element || !data || typeof data !== "object" || data.source !== "bpe-lab") return;
    if (event.origin !== element._origin) return;
    element._receive(data);
  });

  async function compress(text) {
    const stream = new Blob([new TextEncoder().encode(text)]).stream().pipeThrough(new CompressionStream("deflate-raw"));
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  class BpeLab extends HTMLElement {
    connectedCallback() {
      if (this._frame) return;
      const frame = document.createElement("iframe");
      frame.title = this.getAttribute("title") || `BPE Lab: ${this.getAttribute("view") || "explorer"}`;
      frame.loading = "lazy";
      frame.allow = "clipboard-write";
      frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-downloads allow-popups");
      frame.style.cssText = "display:block;width:100%;border:0;";
      frame.style.height = `${Number(this.getAttribute("height")) || 480}px`;
      this._frame = frame;
      this._pending = [];
      this.style.display ||= "block";
      this.append(frame);
      this._load().catch((error) => console.error(`bpe-lab: ${error.message}`));
    }

    disconnectedCallback() {
      if (this._frame?.contentWindow) frames.delete(this._frame.contentWindow);
    }

    async _load() {
      const url = new URL("embed.html", new URL(this.getAttribute("base") || DEFAULT_BASE, location.href));
      this._origin = url.origin;
      const query = new URLSearchParams();
      const hash = new URLSearchParams();
      for (const { name, value } of this.attributes) {
        if (OWN_ATTRIBUTES.includes(name)) continue;
        // The text goes after "#": it never reaches the widget's server.
        if (name === "text" && value.length > LONG_TEXT && "CompressionStream" in window) hash.set("z", await compress(value));
        else if (name === "text") hash.set("text", value);
        else query.set(name, value);
      }
      if (this.id) query.set("id", this.id);
      url.search = query.toString();
      url.hash = hash.toString();
      this._frame.src = url.href;
      frames.set(this._frame.contentWindow, this);
    }

    _receive(message) {
      if (message.type === "ready" && this._pending) {
        // Commands sent before the widget could hear them go now, in order.
        const pending = this._pending;
        this._pending = null;
        for (const command of pending) this._post(command);
      }
      if (message.type === "resize" && Number.isInteger(message.height) && message.height > 0) {
        this._frame.style.height = `${message.height}px`;
      }
      this.dispatchEvent(new CustomEvent(`bpe-lab:${message.type}`, { detail: message, bubbles: true }));
    }

    /** Send a command: el.command("step", {step: 3}). */
    command(action, fields = {}) {
      const message = { ...fields, target: "bpe-lab", type: "command", action };
      if (this._pending) this._pending.push(message);
      else this._post(message);
    }

    _post(message) {
      this._frame?.contentWindow?.postMessage(message, this._origin);
    }

    step(step) { this.command("step", { step }); }
    play() { this.command("play"); }
    pause() { this.command("pause"); }
    setText(text) { this.command("text", { text }); }
    setView(view) { this.command("view", { view }); }

    get frame() { return this._frame; }
  }

  customElements.define("bpe-lab", BpeLab);
})();
