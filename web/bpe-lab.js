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
//   src="lesson.bpelab.json"  a lesson file on this page's own origin: the script fetches it (no CORS
//                 set-up needed), opens the widget at the lesson's view, and sends it a `load` command
//                 with the file's text; a file that cannot be read is named in a line under the frame
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
  const OWN_ATTRIBUTES = ["id", "class", "style", "height", "title", "base", "hidden", "lang", "dir", "src"];
  const MAX_LESSON = 16 * 1024 * 1024; // bytes, as the widget's own check
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
      this._load().catch((error) => this._problem(error.message));
    }

    /** A line under the frame (and a bpe-lab:error event) when the element cannot do what it was asked. */
    _problem(message) {
      console.error(`bpe-lab: ${message}`);
      if (!this._note) {
        this._note = document.createElement("p");
        this._note.setAttribute("role", "alert");
        this.append(this._note);
      }
      this._note.textContent = message;
      this.dispatchEvent(new CustomEvent("bpe-lab:error", { detail: { type: "error", message }, bubbles: true }));
    }

    /** The lesson file of src=, read from this page's own origin: {name, text, view}. */
    async _fetchLesson(src) {
      const url = new URL(src, location.href);
      const name = decodeURIComponent(url.pathname.split("/").pop() || src);
      if (url.origin !== location.origin) {
        throw new Error(`src="${src}" is on ${url.origin}; a lesson file must be on this page's own origin (${location.origin}): put it next to the page.`);
      }
      let response;
      try {
        response = await fetch(url, { credentials: "same-origin" });
      } catch (error) {
        throw new Error(`The lesson file ${name} could not be fetched (${error.message}).`);
      }
      if (!response.ok) throw new Error(`The lesson file ${name} could not be fetched: HTTP ${response.status}.`);
      const text = await response.text();
      if (text.length > MAX_LESSON) throw new Error(`The lesson file ${name} is over ${MAX_LESSON / 1048576} MB, the most a lesson file may be.`);
      let view = null;
      try {
        const lesson = JSON.parse(text);
        if (lesson && typeof lesson.view === "string" && /^(explorer|compare|train|encode)$/.test(lesson.view)) view = lesson.view;
      } catch {
        // The widget reads the text and says what is wrong with it.
      }
      return { name, text, view };
    }

    disconnectedCallback() {
      if (this._frame?.contentWindow) frames.delete(this._frame.contentWindow);
    }

    async _load() {
      const url = new URL("embed.html", new URL(this.getAttribute("base") || DEFAULT_BASE, location.href));
      this._origin = url.origin;
      const query = new URLSearchParams();
      const hash = new URLSearchParams();
      const src = this.getAttribute("src");
      let lesson = null;
      if (src) {
        lesson = await this._fetchLesson(src);
        // The widget opens at the lesson's view and waits for it (lesson=1): nothing else is shown first.
        query.set("lesson", "1");
        if (lesson.view && !this.hasAttribute("view")) query.set("view", lesson.view);
        if (!this.getAttribute("title") && lesson.view) this._frame.title = `BPE Lab: ${lesson.view}`;
      }
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
      if (lesson) this.command("load", { lesson: lesson.text, name: lesson.name });
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
