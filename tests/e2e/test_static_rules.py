"""Rules the site's source must keep, checked on the files themselves (no browser).

User text never becomes markup, so the HTML-parsing DOM sinks are not used
at all; the page fetches nothing from elsewhere, so no absolute URL appears;
and a strict Content-Security-Policy allows only the site's own origin.
"""

import re
from html.parser import HTMLParser

import pytest

from site_harness import ROOT

WEB = ROOT / "web"
SOURCES = sorted(p for p in WEB.rglob("*") if p.suffix in (".js", ".mjs", ".html", ".css", ".json"))


def test_the_web_folder_has_sources():
    names = {p.relative_to(WEB).as_posix() for p in SOURCES}
    assert {"index.html", "js/app.js", "js/store.js", "js/views/train/train-view.js", "js/worker.js", "samples/index.json"} <= names


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(WEB).as_posix())
def test_no_html_sinks(path):
    text = path.read_text("utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in text, f"{path.name} uses {sink}"


@pytest.mark.parametrize("path", sorted(WEB.rglob("*.*")), ids=lambda p: p.relative_to(WEB).as_posix())
def test_no_absolute_urls(path):
    data = path.read_bytes()
    assert not re.search(rb"(?i)\b(?:https?|wss?)://", data), f"{path.name} holds an absolute URL"
    assert not re.search(rb"(?<![:\w])//[a-z0-9.-]+\.[a-z]{2,}/", data), f"{path.name} holds a protocol-relative URL"


class _Meta(HTMLParser):
    def __init__(self):
        super().__init__()
        self.csp = None
        self.scripts = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "meta" and (attrs.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp = attrs.get("content")
        if tag == "script":
            self.scripts.append(attrs)


def test_content_security_policy_allows_only_self():
    parser = _Meta()
    parser.feed((WEB / "index.html").read_text("utf-8"))
    assert parser.csp, "index.html has no Content-Security-Policy meta tag"
    directives = {part.split()[0]: part.split()[1:] for part in parser.csp.split(";") if part.strip()}
    assert directives["default-src"] == ["'self'"]
    assert directives["script-src"] == ["'self'", "'wasm-unsafe-eval'"]
    for name, sources in directives.items():
        assert set(sources) <= {"'self'", "'none'", "'wasm-unsafe-eval'"}, f"{name} allows {sources}"
    # Every script is an external module file: no inline code for the policy to allow.
    assert parser.scripts and all(s.get("src") and s.get("type") == "module" for s in parser.scripts)


def test_samples_index_lists_source_and_licence_for_each_file():
    import json

    index = json.loads((WEB / "samples" / "index.json").read_text("utf-8"))["samples"]
    scripts = set()
    for sample in index:
        assert sample["source"] and sample["licence"] and sample["title"] and sample["language"]
        text = (WEB / "samples" / sample["file"]).read_text("utf-8")
        assert len(text) == sample["chars"]
        if sample["group"] == "Real texts":
            assert 50_000 <= len(text.encode("utf-8")) <= 300_000
            scripts.add(sample["language"])
    assert len(scripts) >= 3


# ------------------------------------------------------------------ the module graph

_IMPORT = re.compile(
    r"""(?:^|\s)(?:import|export)\s[^"';]*?from\s+["'](\.[^"']+)["']"""
    r"""|import\s*\(\s*["'](\.[^"']+)["']\s*\)"""
    r"""|^import\s+["'](\.[^"']+)["']""",
    re.M,
)
JS = WEB / "js"


def _imports(path):
    """The web/js modules a module imports (static and dynamic with a literal path)."""
    found = set()
    for match in _IMPORT.finditer(path.read_text("utf-8")):
        target = (path.parent / next(g for g in match.groups() if g)).resolve()
        if target.is_relative_to(JS.resolve()):
            found.add(target)
    return found


def _graph():
    return {p.resolve(): _imports(p) for p in sorted(JS.rglob("*.js"))}


def _cycles(graph):
    """Every import cycle, each as a list of paths relative to web/js."""
    cycles, colour = [], {}

    def visit(node, stack):
        colour[node] = 1
        stack.append(node)
        for dep in sorted(graph.get(node, ())):
            if colour.get(dep) == 1:
                cycles.append([p.relative_to(JS.resolve()).as_posix() for p in stack[stack.index(dep):]])
            elif dep in graph and not colour.get(dep):
                visit(dep, stack)
        stack.pop()
        colour[node] = 2

    for node in graph:
        if not colour.get(node):
            visit(node, [])
    return cycles


def test_no_module_imports_itself_back():
    """Data flows one way: a view's controller imports its leaves, never the other way round."""
    assert _cycles(_graph()) == []


def test_the_cycle_check_finds_a_cycle():
    a, b, c = (JS / "a.js").resolve(), (JS / "b.js").resolve(), (JS / "c.js").resolve()
    assert _cycles({a: {b}, b: {c}, c: {a}}) == [["a.js", "b.js", "c.js"]]
    assert _cycles({a: {b}, b: {c}, c: set()}) == []


def test_each_view_has_a_folder_and_imports_no_other_view():
    views = JS / "views"
    assert not [p.name for p in views.glob("*.js")], "a view's modules live in views/<view>/"
    folders = sorted(p.name for p in views.iterdir() if p.is_dir())
    assert folders == ["compare", "encode", "explorer", "train", "vocab"]
    for folder in folders:
        for path in (views / folder).glob("*.js"):
            for target in _imports(path):
                rel = target.relative_to(JS.resolve()).parts
                assert not (rel[0] == "views" and rel[1] != folder), f"{folder}/{path.name} imports {'/'.join(rel)}"


def test_every_relative_import_names_a_file_that_exists():
    missing = [(p.relative_to(JS.resolve()).as_posix(), t.name) for p, deps in _graph().items() for t in deps if not t.exists()]
    assert missing == []
