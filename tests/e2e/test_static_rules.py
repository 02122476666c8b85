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
    assert {"index.html", "js/app.js", "js/store.js", "js/views/train-view.js", "js/worker.js", "samples/index.json"} <= names


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
