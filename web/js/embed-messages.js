// The widget's side of the postMessage protocol with its host page (a public
// API: README, "Embed in a course page"). Out: ready, resize (+ Canvas's
// lti.frameResize), state, answer, error — each {source: "bpe-lab", id, type, …}.
// In: {target: "bpe-lab", type: "command", action, …} from the parent window only.
import { VIEWS } from "./embed-params.js";

// Bump when a message or command changes shape; adding a field is not a change.
export const PROTOCOL_VERSION = 1;
export const ACTIONS = ["step", "play", "pause", "text", "view", "load"];

const quote = (value) => {
  try { return JSON.stringify(value) ?? String(value); } catch { return String(value); }
};

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
    return { action, args: { text: data.text } };
  }
  if (action === "load") {
    // The object, or the file's text (which keeps a counts object's key order exactly).
    const text = typeof data.lesson === "string";
    if (!text && (!data.lesson || typeof data.lesson !== "object" || Array.isArray(data.lesson))) {
      return new Error(`The load command needs lesson: a lesson file's object (*.bpelab.json, parsed) or its text, got ${quote(data.lesson)?.slice(0, 60)}.`);
    }
    if (data.name !== undefined && typeof data.name !== "string") {
      return new Error(`The load command's name (the lesson file's name, for messages) must be a string, got ${quote(data.name)?.slice(0, 40)}.`);
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

  /** Call onCommand({action, args}) for each well-formed command from the parent; answer the rest with errors. */
  listen(onCommand) {
    window.addEventListener("message", (event) => {
      const data = event.data;
      // Not for us: other libraries on the page talk over postMessage too.
      if (!data || typeof data !== "object" || data.target !== "bpe-lab") return;
      if (this.parent && event.source !== this.parent) return;
      const command = checkCommand(data);
      if (command instanceof Error) this.error(command.message);
      else onCommand(command);
    });
  }
}
