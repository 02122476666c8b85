// The explorer's commands (the embed's and the notebook's): "step" {step}, "play", "pause" and
// "text" {text} (train on that text with the settings on show, from step 0). Arguments are checked
// here; a command the explorer cannot do throws, saying what it supports.
import { loneSurrogateProblem } from "../../components/exact-text.js";
import { baseSettings } from "../../share/recipe.js";

/** Do `action` with `args` on the explorer `view` (already built). */
export function explorerCommand(view, action, args) {
  if (action === "step") {
    if (!Number.isInteger(args.step) || args.step < 0) throw new Error(`step needs args.step, a whole number of at least 0; got ${JSON.stringify(args.step)}`);
    if (!view.handle) throw new Error("there is no tokenizer to step through yet");
    if (args.step > view.steps) throw new Error(`step ${args.step} is past the last step, ${view.steps}`);
    return view.go(args.step);
  }
  if (action === "play") return view.play();
  if (action === "pause") return view.pause();
  if (action === "text") {
    if (typeof args.text !== "string" || !args.text) throw new Error(`text needs args.text, a non-empty string; got ${JSON.stringify(args.text)}`);
    const bad = loneSurrogateProblem(args.text);
    if (bad) throw new Error(bad);
    const settings = view.state.training?.settings ?? baseSettings();
    return view.setState({ ...view.state, tok: "trained", training: { text: args.text, settings }, step: 0 });
  }
  throw new Error(`the explorer does not support ${JSON.stringify(action)}; it supports "step", "play", "pause" and "text"`);
}
