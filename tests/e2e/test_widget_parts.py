"""Widgets sized for a lesson (issue 20): the `parts` parameter picks the panels a widget shows, and the
default parts fit a lesson page.

The widgets are framed by a page on another origin and their heights are what they report in their
`resize` messages (build_scripts/measure_widgets.py, which prints the README's table, measures them
the same way). Bounds at 800 px wide: the explorer on seed 003 at step 5 at most 760 px; compare with
three panes on a one-line text at most 520 px.
"""

import importlib.util

import pytest
from playwright.sync_api import expect

from site_harness import BOOT_TIMEOUT_MS, ROOT


def _measure_module():
    spec = importlib.util.spec_from_file_location("measure_widgets", ROOT / "build_scripts" / "measure_widgets.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


measure = _measure_module()


@pytest.fixture(scope="module")
def frame_host(tmp_path_factory):
    """The URL of a folder, on another origin than the widget's, holding measure_widgets' frame page."""
    from bpelab.serve import serve_in_thread

    folder = tmp_path_factory.mktemp("heights")
    measure.write_frame_page(folder)
    server, url = serve_in_thread(folder, host="localhost")
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def page(browser):
    context = browser.new_context()
    yield context.new_page()
    context.close()


HEIGHT_CASES = [
    ("explorer, seed 003 at step 5", {"view": "explorer", "step": "5"}, 760),
    ("explorer, seed 003 named, at step 5", {"view": "explorer", "sample": "seed003-low-lower", "step": "5"}, 760),
    ("compare, gpt2 cl100k o200k on Xin chao", {"view": "compare", "panes": "gpt2,cl100k,o200k", "text": "Xin chào thế giới"}, 520),
    ("compare, o200k gpt2 bytes on English", {"view": "compare", "panes": "o200k,gpt2,bytes", "text": "The lowest lanes flood first."}, 520),
    ("compare, cl100k o200k gpt2 on Russian", {"view": "compare", "panes": "cl100k,o200k,gpt2", "text": "Привет, мир!"}, 520),
]


@pytest.mark.parametrize("params,bound", [c[1:] for c in HEIGHT_CASES], ids=[c[0] for c in HEIGHT_CASES])
def test_default_parts_fit_a_lesson_page_at_800_px(page, site_url, frame_host, params, bound):
    height = measure.reported_height(page, frame_host, measure.widget_url(site_url, params), 800)
    assert 200 < height <= bound, f"{params}: the widget reports {height} px at 800 px wide; the bound is {bound}"


def test_every_part_shown_is_taller_than_the_defaults(page, site_url, frame_host):
    """parts=all shows what the defaults leave out (the explorer's window, compare's languages and charts)."""
    params = {"view": "compare", "panes": "gpt2,cl100k,o200k", "text": "Xin chào thế giới"}
    default = measure.reported_height(page, frame_host, measure.widget_url(site_url, params), 800)
    full = measure.reported_height(page, frame_host, measure.widget_url(site_url, {**params, "parts": "all"}), 800)
    assert full > default + 1000, (default, full)


# Each part's panel (a selector inside the widget) and the state that shows it.
PANELS = {
    "explorer": ({"view": "explorer", "step": "5"}, {
        "controls": ".explorer-controls", "pairs": ".explorer-next", "merge": ".explorer-merge", "rows": ".rows-table",
        "window": ".explorer-window", "trace": ".explorer-trace"}),
    "compare": ({"view": "compare", "panes": "gpt2,o200k", "text": "Xin chào thế giới"}, {
        "panes": ".compare-pane token-display", "counts": ".pane-counts", "ids": ".pane-ids", "policy": "#compare-policy",
        "languages": "#compare-languages .table-wrap", "charts": "#compare-languages .lang-charts"}),
    "encode": ({"view": "encode", "tok": "gpt2", "text": "Xin chào thế giới"}, {
        "controls": ".encode-controls", "text": ".encode-panel > textarea", "counts": ".encode-output .counts",
        "tokens": ".encode-output token-display", "ids": ".encode-output token-ids"}),
    "train": ({"view": "train"}, {"text": "#text-panel", "settings": "#settings-panel", "import": "#import-panel"}),
}
# A part drawn inside another part's panel is asked for with it.
WITH = {("explorer", "rows"): "merge"}


@pytest.mark.parametrize("view", list(PANELS))
def test_parts_shows_the_panels_it_names_and_no_other(page, site_url, view):
    state, panels = PANELS[view]
    for part in panels:
        parts = ",".join(p for p in (WITH.get((view, part)), part) if p)
        page.goto(measure.widget_url(site_url, {**state, "parts": parts}))
        page.wait_for_selector("#embed[data-state=ready]", timeout=BOOT_TIMEOUT_MS)
        page.locator(panels[part]).first.wait_for(state="visible", timeout=BOOT_TIMEOUT_MS)
        shown = {other: page.locator(selector).first.is_visible() for other, selector in panels.items()}
        wanted = {other: other in parts.split(",") for other in panels}
        assert shown == wanted, f"parts={parts}: {shown}"


def test_a_part_the_view_has_not_is_named_and_posted_as_an_error(page, site_url, frame_host):
    page.goto(frame_host.rstrip("/") + "/heights.html?src=" + measure.widget_url(site_url, {"view": "compare", "parts": "panes,pairs"}).replace("&", "%26").replace("#", "%23"))
    page.wait_for_function("(window.__errors || []).length > 0", timeout=BOOT_TIMEOUT_MS)
    error = page.evaluate("window.__errors[0]")
    assert '"pairs" is not a part of the compare widget' in error and "panes, counts, ids, policy, languages, charts" in error
    frame = page.frame_locator("iframe")
    assert '"pairs" is not a part of the compare widget' in frame.locator("#embed-errors").inner_text()


def test_the_readmes_iframe_snippets_are_as_tall_as_their_widgets_say(page, site_url, frame_host):
    """Each <iframe> snippet in the README gives the height its widget reports at 800 px (within 10 px)."""
    import html
    import re

    readme = (ROOT / "README.md").read_text("utf-8")
    snippets = re.findall(r'<iframe src="https://YOUR-SITE/bpe-lab/(embed\.html[^"]*)"[^>]*?height="(\d+)"', readme, re.S)
    assert snippets, "no iframe snippet in the README"
    for src, height in snippets:
        url = site_url.rstrip("/") + "/" + html.unescape(src)
        reported = measure.reported_height(page, frame_host, url, 800)
        assert abs(reported - int(height)) <= 10, f"{src}: README says height={height}, the widget reports {reported}"


def test_embed_codes_write_the_heights_the_widgets_report():
    """share.js's EMBED_HEIGHTS (what "Copy embed code" writes) against the README's measured table."""
    import re

    share = (ROOT / "web" / "js" / "share" / "share.js").read_text("utf-8")
    written = {k: int(v) for k, v in re.findall(r"(\w+): (\d+)", re.search(r"EMBED_HEIGHTS = \{([^}]*)\}", share).group(1))}
    readme = (ROOT / "README.md").read_text("utf-8")
    for view, height in written.items():
        row = re.search(rf"^\| {view} \| [^|]+ \| [\d,]+ px \| ([\d,]+) px \|", readme, re.M)
        assert row, f"no {view} row in the README's heights table"
        assert abs(int(row.group(1).replace(",", "")) - height) <= 10, (view, height, row.group(0))


# The Train widget's parts after a run (the results, their three tabs and the export appear only then):
# (parts, the tab selected once trained or None, the panels shown). The settings part holds the Train button.
TRAIN_PANELS = {"results": "#results", "merges": "#pane-merges", "vocab": "#pane-vocab", "report": "#pane-compression",
                "export": "#export-panel", "no tab": "#results-no-tab"}
TRAINED_CASES = [
    ("text,settings,results,merges", "tab-merges", {"results", "merges"}),
    ("settings,results,merges,vocab,report,export", "tab-merges", {"results", "merges", "export"}),
    ("settings,results,vocab", "tab-vocab", {"results", "vocab"}),
    ("settings,results,report,export", "tab-compression", {"results", "report", "export"}),
    ("settings,results,vocab,report", "tab-vocab", {"results", "vocab"}),
    ("settings,results", None, {"results", "no tab"}),
    ("settings,export", None, {"export"}),
]


@pytest.mark.parametrize("parts,selected,shown", TRAINED_CASES, ids=[c[0] for c in TRAINED_CASES])
def test_train_parts_after_a_run_show_a_tab_and_its_panel(page, site_url, parts, selected, shown):
    """Hiding the selected tab's part (merges) selected nothing: the results showed no panel. Now the first
    tab on show is selected, and with none on show a line says what the widget leaves out."""
    page.goto(measure.widget_url(site_url, {"view": "train", "sample": "seed003-low-lower", "parts": parts}))
    page.wait_for_selector("#embed[data-state=ready]", timeout=BOOT_TIMEOUT_MS)
    page.locator("#train").click()
    page.locator("#self-check").wait_for(state="attached", timeout=BOOT_TIMEOUT_MS)
    page.wait_for_function("() => document.querySelector('#results-summary').textContent.includes('merges')", timeout=BOOT_TIMEOUT_MS)
    page.wait_for_function("() => !document.querySelector('#export-panel').hidden", timeout=BOOT_TIMEOUT_MS)
    visible = {name for name, selector in TRAIN_PANELS.items() if page.locator(selector).is_visible()}
    assert visible == shown, f"parts={parts}"
    tabs = [t for t in ("tab-merges", "tab-vocab", "tab-compression") if page.locator(f"#{t}").is_visible()]
    chosen = page.evaluate("document.querySelector('[role=tab][aria-selected=true]').id")
    if selected:
        assert chosen == selected and chosen in tabs
        # The arrow keys move among the tabs on show only.
        page.locator(f"#{chosen}").focus()
        page.keyboard.press("ArrowRight")
        after = page.evaluate("document.activeElement.id")
        assert after == tabs[(tabs.index(chosen) + 1) % len(tabs)]
    else:
        assert tabs == []


@pytest.mark.parametrize("width", [375, 560, 760, 1280])
def test_every_compare_menu_shows_its_whole_choice(page, site_url, width):
    """Review finding: with six panes in a 760 px frame the panes' menus read "GPT-2 (r50k" and "Trained (all",
    and the add-pane menu "GPT-2 (r50k_base"."""
    page.set_viewport_size({"width": width, "height": 900})
    try:
        page.goto(measure.widget_url(site_url, {"view": "compare", "panes": "gpt2,cl100k,o200k,bytes,trained,trained@3",
                                                "text": "Xin chào thế giới"}))
        page.wait_for_selector("#embed[data-state=ready]", timeout=BOOT_TIMEOUT_MS)
        expect(page.locator(".compare-pane")).to_have_count(6)
        cut = page.evaluate("""() => {
            const canvas = document.createElement("canvas").getContext("2d");
            return [...document.querySelectorAll(".compare-view select")].filter((node) => node.offsetParent).flatMap((node) => {
                const style = getComputedStyle(node);
                canvas.font = `${style.fontSize} ${style.fontFamily}`;
                const shown = node.options[node.selectedIndex].textContent;
                return canvas.measureText(shown).width + 36 <= node.clientWidth ? [] : [`${shown} in ${node.clientWidth} px`];
            });
        }""")
        assert cut == []
    finally:
        page.set_viewport_size({"width": 1280, "height": 720})
