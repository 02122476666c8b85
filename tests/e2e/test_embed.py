"""The embed (issue 15) on two origins: widgets on one, the course page on another.

The built site is served twice: as the widget's site (`site_url`,
http://127.0.0.1:A/) and as the course page's (http://localhost:B/). The demo
lesson (web/demo/lesson.html?widget=http://127.0.0.1:A/) embeds seed 003's toy
corpus in the explorer, narrated by its buttons through postMessage commands,
and a <bpe-lab> compare view of "Xin chào thế giới". The expected numbers:

- Seed 003 (Sennrich's low/lower/widest/newest corpus, GPT-2 pattern,
  tie-break "greater", vocabulary 265 with <|endoftext|>): merge 3 joins
  o (111) + w (119) -> 258 with count 7 (a tie with l + o, the greater pair
  wins); merge 5 joins w (119) + est (257) -> 260 with count 6 (the six
  newest: ␣newest five times and newest once; widest has d before est).
- "Xin chào thế giới" is 15 tokens in GPT-2, 9 in cl100k and 5 in o200k, with
  tiktoken's ids.

Every message the widgets post to the page is recorded by an init script in
the top frame (window.__bpe), with its origin.
"""

import base64
import html
import json
import re
import time
import zlib
from pathlib import Path

import pytest
from playwright.sync_api import expect

from site_harness import BOOT_TIMEOUT_MS, TRAIN_TIMEOUT_MS

XIN_CHAO = "Xin chào thế giới"

RECORD_MESSAGES = """
if (window.top === window) {
  window.__bpe = [];
  addEventListener("message", (event) => {
    const data = event.data;
    if (data && typeof data === "object" && (data.source === "bpe-lab" || data.subject === "lti.frameResize")) {
      window.__bpe.push({origin: event.origin, data: JSON.parse(JSON.stringify(data))});
    }
  });
}
"""


@pytest.fixture(scope="module")
def host_url(site_dir):
    """The same site on a second origin (another host name and port): the course page's."""
    from bpelab.serve import serve_in_thread

    server, url = serve_in_thread(site_dir, host="localhost")
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """(folder, url): course pages the tests write, served on a third origin."""
    from bpelab.serve import serve_in_thread

    folder = tmp_path_factory.mktemp("course-pages")
    server, url = serve_in_thread(folder, host="localhost")
    yield folder, url
    server.shutdown()
    server.server_close()


class Host:
    """A course page on the host origin with widgets from the widget origin, and what it heard and fetched."""

    def __init__(self, page, host_url, widget_url, pages=None):
        self.page = page
        self.host = host_url.rstrip("/")
        self.widget = widget_url.rstrip("/")
        self.console = []
        self.requests = []  # (url, url of the frame that asked, or "" for a worker)
        self.outside = []
        self.pages = pages  # (folder, url) for pages a test writes

    def messages(self, type_=None, id_=None):
        out = [m["data"] for m in self.page.evaluate("window.__bpe || []")]
        return [m for m in out if (type_ is None or m.get("type") == type_) and (id_ is None or m.get("id") == id_)]

    def wait_message(self, type_, id_, predicate="true", timeout=BOOT_TIMEOUT_MS, since=0, watching=None):
        """The last message of this type and id for which the JS `predicate` (on m) holds, once one arrives
        (among the messages from index `since` on). `watching`: a selector the reader keeps in view meanwhile.

        Polled from Python: page.wait_for_function evaluates strings in the page, which a course page's
        CSP (no 'unsafe-eval') forbids.
        """
        return self.wait_for(
            f"(window.__bpe || []).slice({int(since)}).map(({{data: m}}) => m).filter((m) => m.type === {json.dumps(type_)} "
            f"&& m.id === {json.dumps(id_)} && ({predicate})).pop() || null", timeout,
            f"no {type_} message from {id_!r} with {predicate}", watching)

    def wait_for(self, expression, timeout=BOOT_TIMEOUT_MS, what=None, watching=None):
        """Poll a JS expression in the top frame until it is truthy; return its value.

        With `watching` (a selector), scroll that element back into view on every poll, as a reader
        who is looking at it would: a widget above it that grows as it draws can push it out of
        view a moment after it was scrolled to, and a widget that starts when visible then waits.
        """
        deadline = time.monotonic() + timeout / 1000
        while True:
            if watching:
                self.page.locator(watching).scroll_into_view_if_needed()
            value = self.page.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} ms: {what or expression}\n{self.diagnosis()}")
            time.sleep(0.1)

    def diagnosis(self):
        """What the page heard and printed, for a failure's report (fixtures get no report section)."""
        heard = json.dumps(self.messages(), ensure_ascii=False)[-3000:]
        printed = "\n".join(self.console[-40:]) or "(empty)"
        return f"messages: {heard}\nconsole:\n{printed}"

    def settled_height(self, id_, quiet_ms=1500):
        """The widget's height once no resize message has come for quiet_ms (the view has finished drawing)."""
        count = -1
        while True:
            sizes = self.messages("resize", id_)
            if len(sizes) == count:
                return sizes[-1]["height"]
            count = len(sizes)
            self.page.wait_for_timeout(quiet_ms)

    def press(self, name):
        """Click a button of the course page, as a reader would: scrolled into view, then clicked.

        Two animation frames pass between the scroll and the click. Without them Chromium may route
        the click by the hit-test data of the frame before the scroll, and a widget's frame of another
        origin that was out of view receives it: the button never hears it (seen in 12 of 12 trials
        when the explorer had been released out of view).
        """
        button = self.page.get_by_role("button", name=name, exact=True)
        button.scroll_into_view_if_needed()
        self.page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        button.click()

    def command(self, frame_selector, **fields):
        """Post a command to a widget frame, as a course page would."""
        self.page.evaluate(
            "([sel, msg, origin]) => document.querySelector(sel).contentWindow.postMessage(msg, origin)",
            [frame_selector, {"target": "bpe-lab", "type": "command", **fields}, self.widget])

    def serve(self, name, html):
        """Write a course page and return its address (on the pages' origin)."""
        folder, url = self.pages
        (folder / name).write_text(html, "utf-8")
        return url + name


def _new_host(browser, site_url, host_url, pages=None, release_ms=None):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    host = Host(page, host_url, site_url, pages)
    allowed = (host.host + "/", host.widget + "/", "blob:", "data:") + ((pages[1],) if pages else ())
    context.add_init_script(RECORD_MESSAGES)
    if release_ms:
        context.add_init_script(f"window.__bpeLabReleaseMs = {int(release_ms)};")

    def route(route_):
        request = route_.request
        url = request.url
        try:
            frame_url = request.frame.url
        except Exception:  # a worker's request has no frame
            frame_url = ""
        host.requests.append((url, frame_url))
        if url.startswith(allowed):
            route_.continue_()
        else:
            host.outside.append(url)
            route_.abort()

    context.route("**/*", route)
    page.on("console", lambda message: host.console.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: host.console.append(f"pageerror: {error}"))
    return context, host


@pytest.fixture(scope="module")
def lesson(browser, site_url, host_url):
    """The demo lesson on the host origin, its widgets from the widget origin, both booted."""
    context, host = _new_host(browser, site_url, host_url)
    host.page.goto(f"{host.host}/demo/lesson.html?widget={site_url}")
    host.wait_message("ready", "merges", watching="#explorer")
    host.wait_message("ready", "compare", watching="bpe-lab#compare")
    yield host
    context.close()


@pytest.fixture
def fresh_host(browser, site_url, host_url, pages):
    context, host = _new_host(browser, site_url, host_url, pages)
    yield host
    context.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        for value in getattr(item, "funcargs", {}).values():
            if isinstance(value, Host):
                report.sections.append(("browser console", "\n".join(value.console[-200:]) or "(empty)"))
                report.sections.append(("messages", json.dumps(value.messages(), ensure_ascii=False)[-4000:]))


def test_explorer_widget_boots_at_step_5_of_seed_003(lesson):
    ready = lesson.messages("ready", "merges")
    assert len(ready) == 1 and ready[0]["version"] == 2 and ready[0]["source"] == "bpe-lab"
    state = lesson.wait_message("state", "merges", "m.step === 5")
    assert state["view"] == "explorer"
    assert state["steps"] == 8
    assert state["pair"] == [119, 257]
    assert state["merged"] == 260
    assert state["count"] == 6
    assert state["tokens"] == 57  # 95 bytes, then 86, 77, 70, 63 and 57 tokens after merges 1-5


def test_step_command_from_the_lessons_prose(lesson):
    lesson.press("Show merge 3")
    state = lesson.wait_message("state", "merges", "m.step === 3")
    assert (state["pair"], state["merged"], state["count"], state["tokens"]) == ([111, 119], 258, 7, 70)
    expect(lesson.page.locator("#narrator")).to_contain_text("Merge 3 of 8: tokens 111 and 119 become the new token 258")
    # The widget draws the step it reports.
    frame = lesson.page.frame_locator("#explorer")
    expect(frame.locator("bpe-explorer-view")).to_contain_text("258")
    since = len(lesson.page.evaluate("window.__bpe"))  # the boot's own step-5 state must not count
    lesson.press("Show merge 5")
    lesson.wait_message("state", "merges", "m.step === 5 && m.merged === 260", since=since)


def test_compare_widget_matches_tiktoken(lesson, tiktoken_encoding):
    state = lesson.wait_message("state", "compare", "Array.isArray(m.panes) && m.panes.length === 3")
    panes = state["panes"]
    assert [p["tokenizer"] for p in panes] == ["gpt2", "cl100k", "o200k"]
    assert [p["tokens"] for p in panes] == [15, 9, 5]
    for pane, name in zip(panes, ["gpt2", "cl100k_base", "o200k_base"]):
        assert pane["ids"] == tiktoken_encoding(name).encode(XIN_CHAO), pane["tokenizer"]
    expect(lesson.page.locator("#compare-caption")).to_have_text("gpt2: 15 tokens · cl100k: 9 tokens · o200k: 5 tokens")


def test_frame_height_follows_resize(lesson):
    element = lesson.page.locator("bpe-lab#compare")
    frame = element.locator("iframe")
    # Chromium does not render a cross-origin frame out of view (no layout, no ResizeObserver): keep it in view.
    element.scroll_into_view_if_needed()
    before = lesson.settled_height("compare")
    long_text = "\n".join(f"{XIN_CHAO} {i}: the frame grows with its content." for i in range(40))
    element.evaluate("(node, text) => node.setText(text)", long_text)
    lesson.wait_message("state", "compare", "m.panes && m.panes[0].tokens > 500", timeout=TRAIN_TIMEOUT_MS)
    deadline = time.monotonic() + 30
    while not lesson.messages("resize", "compare")[-1]["height"] > before + 100 and time.monotonic() < deadline:
        element.scroll_into_view_if_needed()
        lesson.page.wait_for_timeout(200)
    grown = lesson.messages("resize", "compare")[-1]
    assert grown["height"] > before + 100, [m["height"] for m in lesson.messages("resize", "compare")]
    expect(frame).to_have_attribute("style", re.compile(rf"height: {grown['height']}px"))
    # The same message in Canvas's form.
    heights = [m["height"] for m in lesson.page.evaluate("window.__bpe.map((m) => m.data)") if m.get("subject") == "lti.frameResize"]
    assert grown["height"] in heights
    assert all(isinstance(m["height"], int) for m in lesson.messages("resize"))
    # The lesson's plain iframe follows too (its own script does what <bpe-lab> does).
    last = lesson.messages("resize", "merges")[-1]["height"]
    assert lesson.page.locator("#explorer").evaluate("(f) => f.clientHeight") == last
    element.evaluate("(node, text) => node.setText(text)", XIN_CHAO)
    lesson.wait_message("state", "compare", "m.panes && m.panes[0].tokens === 15", timeout=TRAIN_TIMEOUT_MS)


def test_malformed_commands_are_answered_with_errors(lesson):
    before = len(lesson.messages("error", "merges"))
    lesson.command("#explorer", action="jump")
    lesson.command("#explorer", action="step", step="three")
    lesson.command("#explorer", action="view", view="nowhere")
    lesson.page.evaluate("""(origin) => document.querySelector('#explorer').contentWindow.postMessage(
        {target: 'bpe-lab', type: 'hello'}, origin)""", lesson.widget)
    lesson.page.evaluate("""(origin) => document.querySelector('#explorer').contentWindow.postMessage(
        {type: 'command', action: 'step', step: 1}, origin)""", lesson.widget)  # no target: ignored
    lesson.wait_for(f"window.__bpe.filter(({{data: m}}) => m.type === 'error' && m.id === 'merges').length >= {before + 4}")
    errors = [m["message"] for m in lesson.messages("error", "merges")[before:]]
    assert 'Unknown action "jump"' in errors[0]
    assert 'step: a whole number of at least 0, got "three"' in errors[1]
    assert 'view: one of explorer, compare, train, encode, got "nowhere"' in errors[2]
    assert 'needs type: "command", got type: "hello"' in errors[3]
    # Still alive, and the untargeted message moved nothing.
    lesson.command("#explorer", action="step", step=4)
    state = lesson.wait_message("state", "merges", "m.step === 4")
    assert state["merged"] == 259
    assert not any(m.get("step") == 1 for m in lesson.messages("state", "merges")[-2:])


def test_play_and_pause_commands(lesson):
    # A reader presses the buttons with the widget in view (Chromium does not render an off-screen frame of another origin).
    lesson.page.locator("#explorer").scroll_into_view_if_needed()
    mark = lambda: len(lesson.page.evaluate("window.__bpe"))  # noqa: E731
    since = mark()
    lesson.press("Show merge 1")
    lesson.wait_message("state", "merges", "m.step === 1", since=since)
    since = mark()
    lesson.press("Play all merges")
    last = lesson.wait_message("state", "merges", "m.step === 8", timeout=TRAIN_TIMEOUT_MS, since=since)
    assert (last["pair"], last["merged"], last["count"]) == ([32, 262], 263, 5)
    steps = [m["data"]["step"] for m in lesson.page.evaluate("window.__bpe")[since:]
             if m["data"].get("type") == "state" and m["data"].get("id") == "merges"]
    assert steps == sorted(steps) and len(set(steps)) >= 3, steps
    # Pause stops a play midway.
    since = mark()
    lesson.command("#explorer", action="step", step=1)
    lesson.wait_message("state", "merges", "m.step === 1", since=since)
    since = mark()
    lesson.command("#explorer", action="play")
    lesson.wait_message("state", "merges", "m.step === 2", since=since)
    lesson.command("#explorer", action="pause")
    lesson.page.wait_for_timeout(1000)
    paused = lesson.messages("state", "merges")[-1]["step"]
    lesson.page.wait_for_timeout(2000)
    assert lesson.messages("state", "merges")[-1]["step"] == paused < 8, "pause did not stop the play"


def test_view_command_switches_the_view(fresh_host, tiktoken_encoding):
    url = fresh_host.serve("switch.html", f"""<!doctype html><title>switch</title>
<iframe id="w" title="widget" style="width:900px;height:700px"
  src="{fresh_host.widget}/embed.html?view=compare&panes=gpt2,o200k&tok=o200k&id=s#text=Xin%20ch%C3%A0o%20th%E1%BA%BF%20gi%E1%BB%9Bi"></iframe>""")
    fresh_host.page.goto(url)
    fresh_host.wait_message("ready", "s")
    state = fresh_host.wait_message("state", "s", "m.view === 'compare' && m.panes && m.panes.length === 2")
    assert [p["tokens"] for p in state["panes"]] == [15, 5]
    fresh_host.command("#w", action="view", view="encode")
    state = fresh_host.wait_message("state", "s", "m.view === 'encode'", timeout=TRAIN_TIMEOUT_MS)
    assert (state["tokenizer"], state["tokens"]) == ("o200k", 5), "the text and the settings carry over"
    frame = fresh_host.page.frame_locator("#w")
    expect(frame.locator("bpe-encode-view")).to_be_visible()
    expect(frame.locator("bpe-compare-view")).to_have_count(0)
    fresh_host.command("#w", action="text", text="hello world")
    expected = tiktoken_encoding("o200k_base").encode("hello world")
    state = fresh_host.wait_message("state", "s", f"m.view === 'encode' && m.tokens === {len(expected)}", timeout=TRAIN_TIMEOUT_MS)
    assert state["ids"] == expected


def test_train_widget_reports_merges_and_retrains_on_text(fresh_host):
    url = fresh_host.serve("train.html", f"""<!doctype html><title>train</title>
<iframe id="w" title="widget" style="width:1000px;height:900px"
  src="{fresh_host.widget}/embed.html?view=train&sample=seed003-low-lower&id=t"></iframe>""")
    fresh_host.page.goto(url)
    fresh_host.wait_message("ready", "t")
    frame = fresh_host.page.frame_locator("#w")
    frame.locator("#train").click()
    state = fresh_host.wait_message("state", "t", "m.merges === 8", timeout=TRAIN_TIMEOUT_MS)
    assert (state["view"], state["merges"], state["vocab_size"]) == ("train", 8, 265)  # seed 003's eight merges
    since = len(fresh_host.page.evaluate("window.__bpe"))
    fresh_host.command("#w", action="text", text="aaaa bbbb aaaa")
    state = fresh_host.wait_message("state", "t", "m.merges !== 8", timeout=TRAIN_TIMEOUT_MS, since=since)
    assert state["vocab_size"] == 256 + state["merges"] + 1


def test_start_on_click_shows_a_preview_until_clicked(fresh_host):
    url = fresh_host.serve("click.html", f"""<!doctype html><title>click</title>
<iframe id="w" title="widget" style="width:800px;height:400px"
  src="{fresh_host.widget}/embed.html?view=compare&panes=o200k&start=click&theme=auto&id=c#text=Xin%20ch%C3%A0o"></iframe>""")
    fresh_host.page.goto(url)
    frame = fresh_host.page.frame_locator("#w")
    expect(frame.get_by_role("heading", name="Compare tokenizers: “Xin chào”")).to_be_visible()
    expect(frame.locator("html")).not_to_have_attribute("data-theme", re.compile("."))  # auto: the system decides
    fresh_host.page.wait_for_timeout(1500)
    assert fresh_host.messages("ready") == [], "start=click started Python without a click"
    assert not any("pyodide" in url for url, _ in fresh_host.requests), "the preview loaded Python"
    frame.get_by_role("button", name="Start the widget").click()
    fresh_host.wait_message("ready", "c")
    state = fresh_host.wait_message("state", "c", "m.panes && m.panes[0].tokens > 0")
    assert state["panes"][0]["tokenizer"] == "o200k"


def test_compare_with_trained_panes_trains_on_its_own_text(fresh_host):
    """Seed 003's corpus is 95 bytes: 77 tokens after 2 merges, 40 after all 8 (bpelab's train token_counts)."""
    url = fresh_host.serve("trained.html", f"""<!doctype html><title>trained</title>
<iframe id="w" title="widget" style="width:1000px;height:700px"
  src="{fresh_host.widget}/embed.html?view=compare&panes=bytes,trained@2,trained&sample=seed003-low-lower&id=tr"></iframe>""")
    fresh_host.page.goto(url)
    fresh_host.wait_message("ready", "tr", timeout=TRAIN_TIMEOUT_MS)
    state = fresh_host.wait_message("state", "tr", "m.panes && m.panes.length === 3 && m.panes.every((p) => p.tokens > 0)")
    assert [(p["tokenizer"], p["tokens"]) for p in state["panes"]] == [("bytes", 95), ("trained@2", 77), ("trained", 40)]


def test_predict_mode_posts_answers(fresh_host):
    url = fresh_host.serve("predict.html", f"""<!doctype html><title>predict</title>
<iframe id="w" title="widget" style="width:900px;height:900px"
  src="{fresh_host.widget}/embed.html?view=explorer&step=2&predict=1&id=p"></iframe>""")
    fresh_host.page.goto(url)
    fresh_host.wait_message("ready", "p")
    frame = fresh_host.page.frame_locator("#w")
    frame.get_by_role("button", name="This one").first.click()
    answer = fresh_host.wait_message("answer", "p", timeout=TRAIN_TIMEOUT_MS)
    assert answer["step"] == 3 and isinstance(answer["correct"], bool)
    expect(frame.locator(".predict-answer")).to_have_attribute("data-correct", str(answer["correct"]).lower())


def test_encode_trace_starts_folded_in_a_widget_and_trace_opens_it(fresh_host):
    """A widget keeps the explorer short: its encode trace is a part left out by default, folded when
    parts= asks for it until the reader opens it, and open when `trace` is given."""
    src = f"{fresh_host.widget}/embed.html?view=explorer&sample=seed003-low-lower&step=3"
    url = fresh_host.serve("trace.html", f"""<!doctype html><title>trace</title>
<iframe id="a" title="folded" style="width:900px;height:900px" src="{src}&parts=controls,pairs,merge,trace&id=a"></iframe>
<iframe id="b" title="open" style="width:900px;height:900px" src="{src}&trace=lower&id=b"></iframe>
<iframe id="c" title="default" style="width:900px;height:900px" src="{src}&id=c"></iframe>""")
    fresh_host.page.goto(url)
    fresh_host.wait_message("state", "a", "m.step === 3", watching="#a")
    folded = fresh_host.page.frame_locator("#a")
    expect(folded.locator("#explorer-trace-text")).to_be_hidden()
    expect(folded.locator(".trace-details > summary")).to_contain_text("Encode trace")
    folded_height = fresh_host.settled_height("a")
    fresh_host.wait_message("state", "b", "m.step === 3", watching="#b")
    opened = fresh_host.page.frame_locator("#b")
    expect(opened.locator("#explorer-trace-text")).to_have_value("lower")
    expect(opened.locator(".trace-output")).to_contain_text("lower")
    assert fresh_host.settled_height("b") > folded_height + 150
    # The reader opens the folded one: the trace of the default text is there.
    fresh_host.page.locator("#a").scroll_into_view_if_needed()
    folded.locator(".trace-details > summary").click()
    expect(folded.locator("#explorer-trace-text")).to_have_value("lowest")
    expect(folded.locator(".trace-output")).to_contain_text("lowest")
    # Without parts= nor trace=, the trace is not drawn at all.
    fresh_host.wait_message("state", "c", "m.step === 3", watching="#c")
    expect(fresh_host.page.frame_locator("#c").locator(".explorer-trace")).to_be_hidden()


def test_no_request_leaves_its_origin(lesson):
    assert lesson.outside == []
    widget_requests = [(url, frame) for url, frame in lesson.requests if frame.startswith(lesson.widget + "/")]
    assert widget_requests, "the widgets' requests were not seen"
    assert all(url.startswith(lesson.widget + "/") for url, _ in widget_requests), widget_requests
    page_requests = [(url, frame) for url, frame in lesson.requests if frame.startswith(lesson.host + "/")]
    # The course page fetches its own files and the widgets' documents, nothing else.
    for url, _ in page_requests:
        assert url.startswith(lesson.host + "/") or re.match(re.escape(lesson.widget) + r"/embed\.html\?", url), url
    # Python (the worker's requests carry no frame) loads from the widget's origin only.
    assert any("pyodide" in url for url, frame in lesson.requests)
    assert all(url.startswith(lesson.widget + "/") for url, frame in lesson.requests if "pyodide" in url)


def test_bad_parameter_shows_its_message_and_posts_error(fresh_host):
    url = fresh_host.serve("bad.html", f"""<!doctype html><title>bad</title>
<iframe id="w" title="widget" src="{fresh_host.widget}/embed.html?view=explorer&sample=no-such-sample&size=12&id=bad"
  style="width:600px;height:300px"></iframe>""")
    fresh_host.page.goto(url)
    error = fresh_host.wait_message("error", "bad", "m.message.includes('no-such-sample')")
    assert error["message"].startswith('There is no sample "no-such-sample". The bundled samples are: seed003-low-lower')
    frame = fresh_host.page.frame_locator("#w")
    expect(frame.locator("#embed")).to_have_attribute("data-state", "error")
    expect(frame.locator("#embed-errors")).to_contain_text('There is no sample "no-such-sample"')
    expect(frame.locator("#embed-errors")).to_contain_text('size="12" is not a vocabulary size')
    assert any("size=\"12\"" in m["message"] for m in fresh_host.messages("error", "bad"))
    assert fresh_host.messages("ready") == []
    # Never a blank frame: the host heard its height too.
    assert fresh_host.messages("resize", "bad")[-1]["height"] > 100


def test_unknown_view_and_bad_values(fresh_host):
    cases = {
        "view=timeline": 'view="timeline" is not known: use explorer, compare, train or encode.',
        "view=compare&panes=gpt2,gpt5": 'panes="gpt2,gpt5": "gpt5" is not a pane',
        "theme=blue": 'theme="blue" is not known: use light, dark or auto.',
        "special=<|endoftext|>": "must be a JSON list of strings",
        "sample=seed003-low-lower&text=low": "Give only one of sample, text and z; got sample and text.",
        "view=encode&z=%%%": "z= could not be read",
    }
    frames = "".join(f'<iframe title="case {i}" src="{fresh_host.widget}/embed.html?{query}&id=c{i}"></iframe>'
                     for i, query in enumerate(cases))
    fresh_host.page.goto(fresh_host.serve("cases.html", f"<!doctype html><title>cases</title>{frames}"))
    for i, expected in enumerate(cases.values()):
        message = fresh_host.wait_message("error", f"c{i}")
        assert expected in message["message"]
        expect(fresh_host.page.frame_locator(f'iframe[title="case {i}"]').locator("#embed-errors")).to_contain_text(expected)


def test_bpe_lab_element_from_the_widgets_own_script(fresh_host, tiktoken_encoding):
    """A page that loads bpe-lab.js from the widget's site: the frame's src comes from the script's URL."""
    url = fresh_host.serve("element.html", f"""<!doctype html><title>element</title>
<script src="{fresh_host.widget}/bpe-lab.js"></script>
<p id="log"></p>
<bpe-lab id="enc" view="encode" tok="gpt2" text="hello world" theme="dark" height="200" title="BPE Lab: encode hello world"></bpe-lab>
<script>
  const el = document.getElementById("enc");
  el.addEventListener("bpe-lab:state", (e) => {{ document.getElementById("log").textContent = e.detail.tokens + " tokens"; }});
  el.setText("hello world, again");  // before ready: it waits for the widget
</script>""")
    fresh_host.page.goto(url)
    frame = fresh_host.page.locator("bpe-lab#enc iframe")
    expect(frame).to_have_attribute("src", re.compile(re.escape(fresh_host.widget) + r"/embed\.html\?view=encode&tok=gpt2&theme=dark&id=enc#text=hello"))
    expect(frame).to_have_attribute("sandbox", "allow-scripts allow-same-origin allow-downloads allow-popups")
    expect(frame).to_have_attribute("title", "BPE Lab: encode hello world")
    fresh_host.wait_message("ready", "enc")
    expected = tiktoken_encoding("gpt2").encode("hello world, again")
    state = fresh_host.wait_message("state", "enc", f"m.ids && m.ids.length === {len(expected)}")
    assert (state["tokenizer"], state["tokens"], state["ids"]) == ("gpt2", len(expected), expected)
    expect(fresh_host.page.locator("#log")).to_have_text(f"{state['tokens']} tokens")
    expect(fresh_host.page.frame_locator("bpe-lab#enc iframe").locator("html")).to_have_attribute("data-theme", "dark")
    height = fresh_host.messages("resize", "enc")[-1]["height"]
    expect(frame).to_have_attribute("style", re.compile(rf"height: {height}px"))


def test_out_of_view_widget_gives_its_worker_back_and_restores(browser, site_url, host_url, pages):
    """The 30 s of the issue, shortened to 1.5 s through the test hook window.__bpeLabReleaseMs."""
    context, host = _new_host(browser, site_url, host_url, pages, release_ms=1500)
    try:
        url = host.serve("release.html", f"""<!doctype html><title>release</title>
<div style="height:1400px">above</div>
<iframe id="w" title="widget" style="width:900px;height:600px" src="{host.widget}/embed.html?view=explorer&step=2&id=r"></iframe>
<div style="height:2400px">below</div>""")
        host.page.goto(url)
        frame = host.page.frame_locator("#w")
        expect(frame.locator("#embed")).to_have_attribute("data-state", "preview")
        host.page.wait_for_timeout(500)
        assert host.messages("ready") == [], "a widget out of view started Python"
        host.page.locator("#w").scroll_into_view_if_needed()
        host.wait_message("ready", "r")
        host.wait_message("state", "r", "m.step === 2")
        host.command("#w", action="step", step=4)
        host.wait_message("state", "r", "m.step === 4 && m.merged === 259")
        height = host.settled_height("r")
        host.page.evaluate("window.scrollTo(0, 0)")
        expect(frame.locator("#embed")).to_have_attribute("data-state", "released", timeout=10_000)
        # What was drawn stays (dimmed): the host page's layout does not jump while the widget is away.
        expect(frame.locator("bpe-explorer-view")).to_contain_text("Step 4 of 8")
        host.page.wait_for_timeout(500)
        assert host.messages("resize", "r")[-1]["height"] == height, [m["height"] for m in host.messages("resize", "r")]
        # A command to a released widget out of view restarts it, and it is released again later.
        since = len(host.page.evaluate("window.__bpe"))
        host.command("#w", action="step", step=3)
        state = host.wait_message("state", "r", "m.step === 3", since=since)
        assert (state["pair"], state["merged"], state["count"]) == ([111, 119], 258, 7)
        expect(frame.locator("#embed")).to_have_attribute("data-state", "released", timeout=10_000)
        count = len(host.messages("state", "r"))
        host.page.locator("#w").scroll_into_view_if_needed()
        expect(frame.locator("#embed")).to_have_attribute("data-state", "ready", timeout=BOOT_TIMEOUT_MS)
        state = host.wait_message("state", "r", "m.step === 3")
        assert (state["pair"], state["merged"]) == ([111, 119], 258)
        assert len(host.messages("ready", "r")) == 1, "ready is told once"
        assert len(host.messages("state", "r")) > count
        assert host.outside == []
    finally:
        context.close()


def test_share_link_reopens_the_same_view(browser, site_url):
    """"Copy link" in the app: a new page at that link shows the same view and state."""
    record = """window.__states = []; document.addEventListener("bpe-state", (e) => window.__states.push(e.detail));"""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url.rstrip("/"))
    context.add_init_script(record)
    try:
        page = context.new_page()
        page.goto(site_url + "#/explore?sample=seed003-low-lower&step=3")
        poll = lambda expr: Host(page, site_url, site_url).wait_for(expr, TRAIN_TIMEOUT_MS)
        first = poll("window.__states.filter((s) => s.view === 'explorer' && s.step === 3).pop()")
        share = page.locator("bpe-share-link#app-share")
        share.get_by_role("button", name="Copy link").click()
        expect(share.get_by_role("status")).to_contain_text("Link copied.")
        link = share.get_attribute("data-href")
        assert link.startswith(site_url) and "#/explore?" in link and "step=3" in link
        assert page.evaluate("navigator.clipboard.readText()") == link
        other = context.new_page()
        other.goto(link)
        again = Host(other, site_url, site_url).wait_for(
            "window.__states.filter((s) => s.view === 'explorer' && s.step === 3).pop()", TRAIN_TIMEOUT_MS)
        assert again == first
    finally:
        context.close()


def test_share_link_carries_a_long_text_compressed(browser, site_url):
    """A long text that compresses well goes in the link as z=, and the link says it holds everything."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url.rstrip("/"))
    try:
        page = context.new_page()
        page.goto(site_url + "#/compare?panes=gpt2")
        # The link's state is applied once the view is built: text typed before that would be replaced.
        expect(page.locator("#app")).to_have_attribute("data-applied", "1", timeout=BOOT_TIMEOUT_MS)
        text_box = page.locator("#compare-text")
        long_text = "Xin chào thế giới. " * 600
        text_box.fill(long_text)
        share = page.locator("bpe-share-link#app-share")
        share.get_by_role("button", name="Copy link").click()
        expect(share.get_by_role("status")).to_have_text("Link copied. It reopens exactly this view.")
        link = share.get_attribute("data-href")
        assert "#/compare?" in link and "panes=gpt2" in link and "z=" in link and "text=" not in link
        other = context.new_page()
        other.goto(link)
        expect(other.locator("#compare-text")).to_have_value(long_text)
        # A short text travels as it is.
        text_box.fill("Xin chào")
        share.get_by_role("button", name="Copy link").click()
        expect(share.get_by_role("status")).to_have_text("Link copied. It reopens exactly this view.")
        assert "text=Xin%20ch%C3%A0o" in share.get_attribute("data-href")
        expect(share.get_by_role("button", name="Download the lesson file")).to_be_hidden()
        # "Copy embed code": an iframe for a course page, the text after "#".
        share.get_by_role("button", name="Copy embed code").click()
        snippet = page.evaluate("navigator.clipboard.readText()")
        assert snippet.startswith(f'<iframe src="{site_url}embed.html?view=compare&amp;panes=gpt2')
        assert '#text=Xin%20ch%C3%A0o" title="BPE Lab: compare"' in snippet and 'loading="lazy"' in snippet
    finally:
        context.close()


def test_compressed_text_parameter(fresh_host, tiktoken_encoding):
    """z= (deflate-raw + base64url), made here by zlib; and <bpe-lab> compresses a long text attribute itself."""
    text = "Der schnelle braune Fuchs springt über den faulen Hund. " * 60 + "終わり"
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    z = base64.urlsafe_b64encode(packer.compress(text.encode()) + packer.flush()).decode().rstrip("=")
    expected = tiktoken_encoding("cl100k_base").encode(text)
    url = fresh_host.serve("z.html", f"""<!doctype html><title>z</title>
<script src="{fresh_host.widget}/bpe-lab.js"></script>
<iframe id="w" title="widget" style="width:900px;height:500px" src="{fresh_host.widget}/embed.html?view=encode&tok=cl100k&id=z#z={z}"></iframe>
<bpe-lab id="el" view="encode" tok="cl100k" text="{html.escape(text)}"></bpe-lab>""")
    fresh_host.page.goto(url)
    for selector, id_ in (("#w", "z"), ("bpe-lab#el", "el")):
        state = fresh_host.wait_message("state", id_, f"m.tokens === {len(expected)}", timeout=TRAIN_TIMEOUT_MS,
                                        watching=selector)
        assert state["ids"] == expected, id_
    assert "#z=" in fresh_host.page.locator("bpe-lab#el iframe").get_attribute("src")


def test_embed_links_the_apps_stylesheets():
    """The embed mounts the app's views, so it must load every stylesheet the app does."""
    from site_harness import ROOT

    def sheets(name):
        return re.findall(r'<link rel="stylesheet" href="([^"]+)"', (ROOT / "web" / name).read_text("utf-8"))

    assert set(sheets("index.html")) <= set(sheets("embed.html"))


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_embed(browser, site_url, theme):
    """No serious or critical axe-core violations in the widget: preview, error, explorer and compare, light and dark."""
    from site_harness import Site

    context = browser.new_context(viewport={"width": 900, "height": 900})
    try:
        site = Site(context.new_page(), site_url)
        found = {}
        for name, query, state in [
            ("preview", "view=compare&start=click", "preview"),
            ("error", "view=explorer&size=12", "error"),
            ("explorer", "view=explorer&step=3", "ready"),
            ("explorer with its trace open", "view=explorer&step=3&trace=lower", "ready"),
            ("compare", "view=compare&panes=gpt2,o200k&text=Xin%20ch%C3%A0o", "ready"),
        ]:
            site.page.goto(f"{site_url}embed.html?{query}&theme={theme}")
            expect(site.page.locator("#embed")).to_have_attribute("data-state", state, timeout=TRAIN_TIMEOUT_MS)
            expect(site.page.locator("html")).to_have_attribute("data-theme", theme)
            site.page.emulate_media(color_scheme="dark" if theme == "light" else "light")
            background = site.page.evaluate("getComputedStyle(document.body).backgroundColor")
            assert background == {"light": "rgb(255, 255, 255)", "dark": "rgb(30, 34, 39)"}[theme], (name, background)
            # The other scheme as the system's: the widget's own theme must win.
            found[name] = site.axe(scheme="dark" if theme == "light" else "light")
        assert found == {name: [] for name in found}
    finally:
        context.close()


def test_axe_demo_lesson(lesson):
    from site_harness import Site

    site = Site(lesson.page, lesson.host)
    assert site.axe() == []
