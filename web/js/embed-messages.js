// The widget's side of the postMessage protocol with its host page (a public
// API: README, "Embed in a course page"). Out: ready, resize (+ Canvas's
// lti.frameResize), state, answer, error — each {source: "bpe-lab", id, type, …}.
// In: {target: "bpe-lab", type: "command", action, …} from the parent window only;
// a widget that is not framed (opened by window.open, or on its own) takes no commands.
// A command is checked here (checkCommand), a text's length too: what is wrong is answered with an
// `error` that says how to fix it, and never reaches the widget.
import { VIEWS } from "./embed-params.js";
import { DEFAULT_CHAR_LIMIT, countChars } from "./text-input.js";

// Bump when a message or command changes shape; adding a field is not a change.
// 2: the ids of what the reader typed are posted only with report=ids (privacy by default).
export const PROTOCOL_VERSION = 2;
export const ACTIONS = ["step", "play", "pause", "text", "view", "load"];
// A message quotes at most this many characters of a value; a message is at most MESSAGE_MAX long.
export const QUOTE_MAX = 60;
export const MESSAGE_MAX = 600;
// The widget's longest text, in characters (code points, as Python counts them): a longer
// `text` command is refused at once, before it reaches the view or the worker.
export const TEXT_LIMIT = DEFAULT_CHAR_LIMIT;

/** A value as JSON, cut to its first QUOTE_MAX characters (and its length) when longer. */
export function quote(value) {
  const long = typeof value === "string" && value.length > QUOTE_MAX;
  let text;
  try { text = JSON.stringify(long ? value.slice(0, QUOTE_MAX) : value) ?? String(value); } catch { text = String(value); }
  if (long) return `${text}… (${value.length.toLocaleString("en-US")} characters)`;
  return text.length > QUOTE_MAX + 2 ? `${text.slice(0, QUOTE_MAX)}…` : text;
}

/** A message cut to MESSAGE_MAX characters, saying so: no error echoes a huge value. */
export function shorten(message) {
  const text = String(message);
  if (text.length <= MESSAGE_MAX) return text;
  return `${text.slice(0, MESSAGE_MAX)}… (message cut at ${MESSAGE_MAX} of ${text.length.toLocaleString("en-US")} characters)`;
}

/**
 * A command as {action, args}, or an Error whose message says how to fix it.
 * @param {object} data  the message's data, already known to have target "bpe-lab"
 */
export function checkCommand(data) {
  if (data.type !== "command") {
    return new Error(`A message to the widget needs type: "command", got type: ${quote(data.type)}.`);
  }
  const { action } = data;
  if (!ACTIONS.includes(action)) {
    return new Error(`Unknown action ${quote(action)}: use ${ACTIONS.join(", ")}.`);
  }
  if (action === "step") {
    if (!Number.isInteger(data.step) || data.step < 0) {
      return new Error(`The step command needs step: a whole number of at least 0, got ${quote(data.step)}.`);
    }
    return { action, args: { step: data.step } };
  }
  if (action === "text") {
    if (typeof data.text !== "string") {
      return new Error(`The text command needs text: a string, got ${quote(data.text)}.`);
    }
    const tooLong = overLimit(data.text);
    if (tooLong) return tooLong;
    return { action, args: { text: data.text } };
  }
  if (action === "load") {
    // The object, or the file's text (which keeps a counts object's key order exactly).
    const text = typeof data.lesson === "string";
    if (!text && (!data.lesson || typeof data.lesson !== "object" || Array.isArray(data.lesson))) {
      return new Error(`The load command needs lesson: a lesson file's object (*.bpelab.json, parsed) or its text, got ${quote(data.lesson)}.`);
    }
    if (data.name !== undefined && typeof data.name !== "string") {
      return new Error(`The load command's name (the lesson file's name, for messages) must be a string, got ${quote(data.name)}.`);
    }
    return { action, args: { lesson: data.lesson, name: data.name ? data.name.slice(0, 200) : null } };
  }
  if (action === "view") {
    if (!VIEWS.includes(data.view)) {
      return new Error(`The view command needs view: one of ${VIEWS.join(", ")}, got ${quote(data.view)}.`);
    }
    return { action, args: { view: data.view } };
  }
  return { action, args: {} };
}

/** An Error saying a text command's text is over TEXT_LIMIT characters, or null (a huge text is counted only in part). */
function overLimit(text) {
  const n = text.length <= TEXT_LIMIT ? countChars(text) : countChars(text.slice(0, 2 * TEXT_LIMIT + 2));
  if (n <= TEXT_LIMIT) return null;
  const size = text.length > 2 * TEXT_LIMIT ? `over ${(2 * TEXT_LIMIT).toLocaleString("en-US")}` : n.toLocaleString("en-US");
  return new Error(`The text command failed: the text is ${size} characters, over the widget's limit of `
    + `${TEXT_LIMIT.toLocaleString("en-US")} characters; send a shorter text.`);
}

export class HostLink {
  /** @param {string|null} id  the id parameter, echoed in every message */
  constructor(id) {
    this.id = id;
    // A page opened on its own (not framed) has no host to tell.
    this.parent = window.parent !== window ? window.parent : null;
    this.height = -1;
    this.observer = null;
  }

  /** Post {source, id, ...message} to the host; a message that cannot be cloned becomes an error message. */
  post(message) {
    if (!this.parent) return;
    try {
      this.parent.postMessage({ source: "bpe-lab", id: this.id, ...message }, "*");
    } catch (error) {
      this.parent.postMessage({ source: "bpe-lab", id: this.id, type: "error",
        message: `A ${message.type} message could not be sent: ${error.message}` }, "*");
    }
  }

  error(message) {
    message = shorten(message);
    console.warn(`bpe-lab: ${message}`);
    this.post({ type: "error", message });
  }

  /** Post resize (and lti.frameResize) whenever `node`'s height changes, as an integer of CSS pixels. */
  watchSize(node) {
    const send = () => {
      const height = Math.ceil(node.getBoundingClientRect().height);
      if (height === this.height) return;
      this.height = height;
      this.post({ type: "resize", height });
      // Canvas LMS resizes its iframes on this message (it reads subject and height only).
      this.parent?.postMessage({ subject: "lti.frameResize", height }, "*");
    };
    this.observer = new ResizeObserver(send);
    this.observer.observe(node);
    send();
  }

  /**
   * Call onCommand({action, args}) for each well-formed command from the parent; answer the rest with errors.
   * Only the parent frame steers: an unframed widget (window.open) ignores every window, its opener too.
   */
  listen(onCommand) {
    window.addEventListener("message", (event) => {
      const data = event.data;
      // Not for us: other libraries on the page talk over postMessage too.
      if (!data || typeof data !== "object" || data.target !== "bpe-lab") return;
      if (!this.parent || event.source !== this.parent) return;
      const command = checkCommand(data);
      if (command instanceof Error) this.error(command.message);
      else onCommand(command);
    });
  }
}
