// The embed's command queue: commands heard from the host page wait here until the widget has
// read its parameters (a command posted at the frame's load event comes before that), then run
// one after another, in the order they came. A run of `step` commands (with pauses among them)
// or of `text` commands runs only its last: only the final step (or text) is drawn.
// The widget's own tasks (release, restore, autoplay) join the same line with then().
// It knows nothing of what a command does: run(command) does it.

// Runs of these commands collapse to their last.
const COLLAPSING = new Set(["step", "text"]);

export class CommandQueue {
  /**
   * run({action, args}) -> promise: runs one command (and never rejects).
   * onTake(command): called as a command leaves the queue, just before it is put in line to run.
   */
  constructor({ run, onTake = () => {} }) {
    this.run = run;
    this.onTake = onTake;
    this.pending = [];   // commands heard and not yet run, in order
    this.open = false;   // the widget is ready: commands may run
    this.draining = false;
    this.drainTimer = 0;
    this.line = Promise.resolve();  // everything queued runs one after another
  }

  /** A command from the host: it runs after those before it, once the queue is open. */
  push(command) {
    this.pending.push(command);
    // On the next task, not now: a burst posted together is all queued by then, and its runs collapse.
    if (this.open && !this.drainTimer) this.drainTimer = setTimeout(() => this.drain(), 0);
  }

  /** The widget is ready: run what waited, and from now on what comes. */
  start() {
    this.open = true;
    this.drain();
  }

  /** Put a task in line after everything queued so far; returns the line's promise. */
  then(task) {
    this.line = this.line.then(task);
    return this.line;
  }

  /** Run the pending commands one after another; a run of step (or text) commands runs only its last. */
  async drain() {
    this.drainTimer = 0;
    if (this.draining) return;
    this.draining = true;
    const pending = this.pending;
    try {
      while (pending.length) {
        let command = pending.shift();
        // Pauses inside a run of steps (nothing plays between them) change nothing but to stop a play: one runs first.
        let paused = false;
        while (COLLAPSING.has(command.action) && pending.length
               && (pending[0].action === command.action || (command.action === "step" && pending[0].action === "pause"))) {
          const next = pending.shift();
          if (next.action === "pause") paused = true;
          else command = next;
        }
        if (paused) await this.then(() => this.run({ action: "pause", args: {} }));
        this.onTake(command);
        await this.then(() => this.run(command));
      }
    } finally {
      this.draining = false;
    }
  }
}
