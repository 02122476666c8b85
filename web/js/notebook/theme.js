// The notebook's theme, light or dark, as data-theme on the widget's root (app.css maps
// it to the palette): JupyterLab and Notebook 7 say it on <body data-jp-theme-light>,
// marimo with a "dark" or "dark-theme" class, VS Code with "vscode-dark" on <body>.
// A host that says nothing leaves data-theme unset, so the reader's system decides.

const DARK_CLASSES = ["dark", "dark-theme", "vscode-dark", "vscode-high-contrast"];
const LIGHT_CLASSES = ["light", "light-theme", "vscode-light", "vscode-high-contrast-light"];

/** The element's ancestors, crossing shadow roots (marimo draws widgets inside one). */
function* ancestors(node) {
  while (node) {
    yield node;
    node = node.parentElement || (node.getRootNode && node.getRootNode().host) || null;
  }
}

/** "light", "dark" or null (the host does not say). */
export function notebookTheme(node) {
  const light = document.body?.dataset.jpThemeLight;
  if (light === "true") return "light";
  if (light === "false") return "dark";
  for (const el of ancestors(node)) {
    if (DARK_CLASSES.some((c) => el.classList?.contains(c))) return "dark";
    if (LIGHT_CLASSES.some((c) => el.classList?.contains(c))) return "light";
    const theme = el.getAttribute?.("data-theme");
    if (theme === "dark" || theme === "light") return theme;
  }
  return null;
}

/** Keep data-theme on each of nodes() in step with the notebook; returns the function that stops. */
export function watchTheme(anchor, nodes) {
  const apply = () => {
    const theme = notebookTheme(anchor);
    for (const node of nodes()) {
      // Only a change is written: writing the same value would wake the observer again.
      if (theme && node.dataset.theme !== theme) node.dataset.theme = theme;
      else if (!theme && "theme" in node.dataset) delete node.dataset.theme;
    }
  };
  apply();
  // The theme's attribute may sit on any ancestor, some of them added after the widget renders.
  const observer = new MutationObserver(apply);
  observer.observe(document.documentElement, {
    subtree: true, attributes: true, attributeFilter: ["class", "data-theme", "data-jp-theme-light"],
  });
  return () => observer.disconnect();
}
