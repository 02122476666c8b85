// What the host page's commands do, once the queue (embed-queue.js) runs them: `view` switches
// to another view carrying the same text and tokenizer, `load` mounts a lesson's view and state,
// and the rest (step, play, pause, text) go to the view's own command(). A command starts Python
// first (or restarts it, when the widget gave it back); a failure is posted as an `error`.
import { readLesson } from "./share/lesson.js";

/** Run one command ({action, args}, checked by embed-messages.js); never rejects. */
export async function runCommand(widget, { action, args }) {
  const { root, host, config, views, life, setState, fail } = widget;
  try {
    if (root.dataset.state === "error") throw new Error("The widget stopped with an error; reload the page to try again.");
    await life.start();
    if (root.dataset.state === "released") await life.restore();
    if (action === "view") {
      if (args.view !== views.name) {
        await views.mount(args.view, views.carriedState(args.view));
        setState("ready");
      }
      return;
    }
    if (action === "load") {
      const lesson = readLesson(args.lesson, { samples: widget.samples, name: args.name || "The lesson" });
      if (lesson.view === "vocab") throw new Error("The lesson is for the vocabulary view, which has no widget: open it in BPE Lab.");
      await views.mount(lesson.view, lesson.state, config.parts);
      setState("ready");
      return;
    }
    const view = views.view;
    if (!view) throw new Error("The widget is waiting for its lesson: send a load command first.");
    if (typeof view.command !== "function") throw new Error(`The ${views.name} view takes no commands yet.`);
    if (action === "play") {
      // Playing lasts until the last step or a pause: the commands after it (pause) must not wait for it.
      view.command(action, args).catch((error) => { if (view === views.view) host.error(`The play command failed: ${error.message || error}`); });
      return;
    }
    await view.command(action, args);
  } catch (error) {
    // A lesson the widget waited for and cannot show: the reader sees why, not an empty frame.
    if (action === "load" && !views.view) { fail(`The lesson could not be loaded: ${error.message || error}`); return; }
    host.error(`The ${action} command failed: ${error.message || error}`);
    if (root.dataset.state === "booting" && views.view) setState("ready");
  }
  life.armRelease(); // a command may have restarted a widget that is out of view
}
