// The explorer's playback: Play steps forward at the chosen speed (steps per second) until the
// last step or a pause; the Play button and data-playing on the view say whether it plays.
// The view (explorer-view.js) owns the step on show: this only asks it to go on.

export class Playback {
  /** view: the <bpe-explorer-view> (handle, k, steps, speed, go(k), ui.play, changed()). */
  constructor(view) {
    this.view = view;
    this.playing = false;
  }

  toggle() {
    return this.playing ? this.pause() : this.play();
  }

  async play() {
    const view = this.view;
    if (this.playing || !view.handle) return;
    if (view.k >= view.steps) await view.go(0);
    this.playing = true;
    view.ui.play.textContent = "⏸ Pause";
    view.ui.play.setAttribute("aria-pressed", "true");
    view.dataset.playing = "";
    while (this.playing && view.k < view.steps) {
      await new Promise((resolve) => setTimeout(resolve, 1000 / view.speed));
      if (!this.playing) break;
      await view.go(view.k + 1);
    }
    this.pause();
  }

  pause() {
    if (!this.playing) return;
    const view = this.view;
    this.playing = false;
    view.ui.play.textContent = "▶ Play";
    view.ui.play.setAttribute("aria-pressed", "false");
    delete view.dataset.playing;
    view.changed();
  }
}
