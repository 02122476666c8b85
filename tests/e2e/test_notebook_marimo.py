"""The widgets in marimo, through mo.ui.anywidget: examples/lesson.py served by `marimo run`, headless.

The same checks as in JupyterLab (test_notebook_jupyterlab.py), the marimo way: the app runs
every cell on load; the lesson's number box is the cell that sets `widget.step` from
Python, and a markdown cell reads the step back from the kernel. Seed 003: step 5 is
w + est → west (id 260, count 6), step 3 is o + w → ow (id 258, count 7); the Vietnamese
phrase is 15 / 9 / 5 tokens. marimo draws widgets in shadow roots: Playwright's CSS
locators reach into them, and the widget's keys and theme must too.

Set BPELAB_SCREENS to a folder to keep screenshots of each widget.
"""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from notebook_harness import axe_violations, lesson_folder, start_marimo

TRAIN_MS = 120_000
SCREENS = os.environ.get("BPELAB_SCREENS")


@pytest.fixture(scope="module")
def app(tmp_path_factory, browser):
    tmp = tmp_path_factory.mktemp("marimo")
    folder = lesson_folder(tmp)
    server = start_marimo(tmp, folder, mode="run")
    context = browser.new_context(viewport={"width": 1280, "height": 1200})
    page = context.new_page()
    page.goto(server.url)
    yield page, folder
    context.close()
    server.stop()


def explorer(page):
    return page.locator(".bpelab-widget[data-view='explorer'] bpe-explorer-view")


def readback(page):
    return page.get_by_text("The kernel reads step")


def test_the_explorer_opens_at_step_5(app):
    page, _ = app
    expect(explorer(page)).to_have_attribute("data-step", "5", timeout=TRAIN_MS)
    expect(explorer(page).locator(".explorer-summary")).to_contain_text(
        "Step 5 of 8: merged w + est into west (id 260), count 6")
    expect(readback(page)).to_contain_text("The kernel reads step 5 of 8", timeout=TRAIN_MS)


def test_the_cell_that_sets_step_moves_the_explorer(app):
    page, _ = app
    box = page.get_by_role("textbox", name="Step, set from Python")
    box.fill("3")
    box.press("Enter")
    expect(explorer(page)).to_have_attribute("data-step", "3", timeout=TRAIN_MS)
    expect(explorer(page).locator(".explorer-summary")).to_contain_text(
        "Step 3 of 8: merged o + w into ow (id 258), count 7")
    expect(readback(page)).to_contain_text("The kernel reads step 3 of 8", timeout=TRAIN_MS)


def test_forward_sets_step_in_the_kernel(app):
    page, _ = app
    explorer(page).get_by_role("button", name="Step forward (right arrow)").click()
    expect(explorer(page)).to_have_attribute("data-step", "4")
    expect(readback(page)).to_contain_text("The kernel reads step 4 of 8", timeout=TRAIN_MS)


def test_the_arrow_keys_work_inside_the_shadow_root(app):
    page, _ = app
    explorer(page).get_by_role("button", name="Step back (left arrow)").focus()
    page.keyboard.press("ArrowLeft")
    expect(explorer(page)).to_have_attribute("data-step", "3")
    expect(readback(page)).to_contain_text("The kernel reads step 3 of 8", timeout=TRAIN_MS)


def test_compare_shows_15_9_5_tokens_and_the_export_reads_back(app):
    page, folder = app
    compare = page.locator(".bpelab-widget[data-view='compare']")
    for spec, n in [("gpt2", 15), ("cl100k", 9), ("o200k", 5)]:
        expect(compare.locator(f".compare-pane[data-spec='{spec}']")).to_have_attribute(
            "data-tokens", str(n), timeout=TRAIN_MS)
    assert (Path(folder) / "lesson-tokenizer" / "vocab.bpe").is_file()
    expect(page.locator(".bpelab-widget .alert.error:not([hidden])")).to_have_count(0)


def check_theme(page, theme):
    expect(explorer(page)).to_have_attribute("data-step", "5", timeout=TRAIN_MS)
    expect(page.locator(".bpelab-widget[data-view='compare'] .compare-pane[data-spec='o200k']")).to_have_attribute(
        "data-tokens", "5", timeout=TRAIN_MS)
    for view in ("explorer", "compare"):
        expect(page.locator(f".bpelab-widget[data-view='{view}']")).to_have_attribute("data-theme", theme)
    assert axe_violations(page, ".bpelab-widget") == []
    if SCREENS:
        Path(SCREENS).mkdir(parents=True, exist_ok=True)
        page.set_viewport_size({"width": 1280, "height": 2400})
        for view in ("explorer", "compare"):
            page.locator(f".bpelab-widget[data-view='{view}']").screenshot(path=str(Path(SCREENS) / f"marimo-{view}-{theme}.png"))


def test_the_widgets_are_light_in_marimos_light_theme_and_pass_axe(app):
    page, _ = app
    page.reload()  # back to the lesson as it opens
    check_theme(page, "light")


def test_the_widgets_follow_marimos_dark_theme_and_pass_axe(tmp_path, browser):
    folder = lesson_folder(tmp_path)
    server = start_marimo(tmp_path, folder, mode="run", theme="dark")
    context = browser.new_context(viewport={"width": 1280, "height": 1200})
    try:
        page = context.new_page()
        page.goto(server.url)
        check_theme(page, "dark")
    finally:
        context.close()
        server.stop()
