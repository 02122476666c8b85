// The notebook widgets' front end, as anywidget loads it: `export default {render}`.
// build_scripts/build_widget.mjs bundles this file, the views and the store into one
// module (py/bpelab/widgets/static/widget.js).
//
// anywidget imports the module once per widget (from a blob: URL each time), but custom
// elements and the store must exist once per page: the first copy evaluates
// widget-core.js (esbuild makes this import() lazy inside the bundle) and keeps the
// promise on globalThis; every later copy uses that one.
const KEY = Symbol.for("bpelab.widget-core");

function core() {
  globalThis[KEY] ??= import("./widget-core.js");
  return globalThis[KEY];
}

export default {
  async render({ model, el }) {
    const { render } = await core();
    return render({ model, el });
  },
};
