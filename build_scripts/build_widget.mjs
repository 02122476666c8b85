// Bundles the notebook widgets' front end into one ES module for anywidget:
// web/js/notebook/widget.js and everything it imports (the site's own view
// elements, store and components: no second copy of any view), plus the site's
// stylesheets scoped to the widget's root. Run by build_scripts/build_widget.py.
//
// Two things differ from the site, both done here so that no view needs to know:
// - anywidget imports the module from a blob: URL, which cannot be a base for
//   relative URLs, so each file's `import.meta.url` becomes a fixed
//   "bpelab-widget:/js/…" URL (the views only build asset URLs from it);
// - the site's CSS styles the whole page (:root, body, button …); in a notebook it
//   must style only the widget, so every rule is nested under `.bpelab-widget`
//   (`:root` becomes the widget's root itself) and esbuild flattens the nesting.
//
// Usage: node build_scripts/build_widget.mjs OUT_JS  → prints the metafile's inputs as JSON.
import * as esbuild from "esbuild";
import { readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const WEB = path.join(ROOT, "web");
const ENTRY = path.join(WEB, "js", "notebook", "widget.js");
const SCOPE = ".bpelab-widget";
// The site's page-level sheet first (palette, controls), then the views' own; embed.css is the iframe's chrome.
const SKIP_CSS = new Set(["embed.css"]);
const TARGET = ["chrome110", "firefox110", "safari16"];
// The site files the views fetch that travel in the bundle: the samples index, the aligned passages, and
// the toy corpora (the large real texts stay on the site; asking for one says it is not here).
const ASSET_MAX_BYTES = 16_384;

async function cssFiles() {
  const names = (await readdir(path.join(WEB, "css"))).filter((n) => n.endsWith(".css") && !SKIP_CSS.has(n)).sort();
  names.sort((a, b) => (a === "app.css" ? -1 : b === "app.css" ? 1 : 0));
  return names.map((n) => path.join(WEB, "css", n));
}

/** One sheet's rules, rewritten to apply inside the widget's root only. */
function scoped(css) {
  const hoisted = [];
  let body = css.replace(/@keyframes[^{]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}/g, (rule) => { hoisted.push(rule); return ""; });
  // Page-level selectors: html and body are the notebook's; :root is the widget's root here.
  body = body.replace(/^\s*(html|body)\b[^{]*\{[^}]*\}[ \t]*$/gm, "");
  body = body.replace(/:root/g, "&");
  return `${hoisted.join("\n")}\n${SCOPE} {\n${body}\n}\n`;
}

// What the site takes from the browser's own styles and a notebook may have reset (marimo's Tailwind
// preflight, inside the shadow root it draws widgets in, makes headings plain text and lists bare).
// :where() keeps these below every rule of the site's sheets.
const BROWSER_DEFAULTS = `
:where(h1, h2, h3, h4, th, b, strong) { font-weight: bold; }
:where(h1) { font-size: 2em; } :where(h2) { font-size: 1.5em; } :where(h3) { font-size: 1.17em; }
:where(ul) { list-style: disc; padding-left: 2.5em; } :where(ol) { list-style: decimal; padding-left: 2.5em; }
`;

// JupyterLab and Notebook 7 lay out description lists inside an output as a two-column table
// (.jp-OutputArea-output dt: float left, 20% wide, bold; dd: float left, 80%), which put every
// count's value on top of its label. Inside a widget the lists are the site's again; one class
// more than the notebook's rule, and first, so that every rule of the site's sheets still wins.
const NOTEBOOK_OUTPUT_RESETS = `
.jp-OutputArea-output ${SCOPE} dl { width: auto; overflow: visible; }
.jp-OutputArea-output ${SCOPE} dt, .jp-OutputArea-output ${SCOPE} dd { float: none; width: auto; }
.jp-OutputArea-output ${SCOPE} dt { font-weight: normal; }
`;

async function stylesheet() {
  const files = await cssFiles();
  const parts = [scoped(BROWSER_DEFAULTS), NOTEBOOK_OUTPUT_RESETS,
    ...await Promise.all(files.map(async (file) => scoped(await readFile(file, "utf8"))))];
  const { code } = await esbuild.transform(parts.join("\n"), { loader: "css", target: TARGET, minify: true });
  return { code, files };
}

async function assets() {
  const out = {};
  const add = async (relative) => { out[relative] = await readFile(path.join(WEB, relative), "utf8"); };
  await add("samples/index.json");
  for (const name of (await readdir(path.join(WEB, "samples", "aligned"))).sort()) await add(`samples/aligned/${name}`);
  for (const entry of (await readdir(path.join(WEB, "samples"), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!entry.isFile() || !entry.name.endsWith(".txt")) continue;
    const text = await readFile(path.join(WEB, "samples", entry.name), "utf8");
    if (Buffer.byteLength(text) <= ASSET_MAX_BYTES) out[`samples/${entry.name}`] = text;
  }
  return out;
}

const bundledAssets = {
  name: "assets",
  setup(build) {
    build.onResolve({ filter: /^bpelab-widget:assets$/ }, () => ({ path: "assets", namespace: "bpelab-assets" }));
    build.onLoad({ filter: /.*/, namespace: "bpelab-assets" }, async () => ({ contents: JSON.stringify(await assets()), loader: "json" }));
  },
};

// Each file's import.meta.url, as the site would have it, under a scheme of our own.
const siteURLs = {
  name: "site-urls",
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const relative = path.relative(WEB, args.path).split(path.sep).join("/");
      return { contents: source.replaceAll("import.meta.url", JSON.stringify(`bpelab-widget:/${relative}`)), loader: "js" };
    });
  },
};

const out = process.argv[2];
if (!out) throw new Error("usage: node build_scripts/build_widget.mjs OUT_JS");
const css = await stylesheet();
const result = await esbuild.build({
  entryPoints: [ENTRY],
  bundle: true,
  format: "esm",
  target: TARGET,
  minify: true,
  legalComments: "none",
  metafile: true,
  write: false,
  plugins: [siteURLs, bundledAssets],
  inject: [path.join(WEB, "js", "notebook", "assets.js")],
  define: { __BPELAB_WIDGET_CSS__: JSON.stringify(css.code) },
  logLevel: "warning",
});
await writeFile(out, result.outputFiles[0].contents);
const assetFiles = Object.keys(await assets()).map((p) => path.join(WEB, p));
const inputs = [...Object.keys(result.metafile.inputs).filter((p) => !p.startsWith("bpelab-assets:")).map((p) => path.resolve(ROOT, p)),
  ...css.files, ...assetFiles]
  .map((p) => path.relative(ROOT, p).split(path.sep).join("/")).sort();
process.stdout.write(JSON.stringify({ inputs, esbuild: esbuild.version }));
