"""The Train section in a real Chromium: boot, samples, pasted text, files, limits, cancel, crash.

Expected merges come from the seeds: seed 003's eight merges of the
low/lower/widest/newest corpus with counts 9, 9, 7, 7, 6, 6, 6, 5, and seed
004's walk corpus whose first merge is a + l with count 14.
"""

import json
import re

import pytest
from playwright.sync_api import expect

from site_harness import BOOT_TIMEOUT_MS, ROOT, TRAIN_TIMEOUT_MS


def merge_rows(page):
    """[(pair text, new token text, count text)] of the merge table's visible page."""
    rows = []
    for row in page.locator("#merge-body tr").all():
        cells = row.locator("td").all_inner_texts()
        rows.append((cells[2], cells[3], cells[4]))
    return rows


def test_boot_goes_through_named_stages_to_ready(fresh_site):
    page = fresh_site.page
    page.goto(fresh_site.url)
    fresh_site.wait_ready()
    assert page.evaluate("bpelab.state.bootStages") == ["config", "runtime", "package", "import"]
    expect(page.locator("#versions")).to_contain_text("Pyodide 314.0.7")
    expect(page.locator("#versions")).to_contain_text("Python 3.14")
    expect(page.locator("#status")).to_contain_text("ready")
    expect(page.locator("#train")).to_be_enabled()
    # Pyodide's files came from our own folder, and nothing else was asked for elsewhere.
    assert any(url.endswith("/pyodide/pyodide.asm.wasm") for url in fresh_site.requests)
    assert fresh_site.outside == []


def test_a_failed_boot_says_why_and_restart_recovers(fresh_site):
    page = fresh_site.page
    # build.json is the worker's first fetch, in a snapshot boot and in the full start-up alike.
    page.route("**/build.json*", lambda route: route.fulfill(status=404, body="gone"))
    page.goto(fresh_site.url)
    expect(page.locator("#app")).to_have_attribute("data-state", "error", timeout=60_000)
    expect(page.locator("#fatal")).to_contain_text("Python could not start: could not load /build.json: HTTP 404")
    expect(page.locator("#train")).to_be_disabled()
    page.unroute("**/build.json*")
    page.locator("#restart").click()
    fresh_site.wait_ready()
    expect(page.locator("#fatal")).to_be_hidden()
    assert fresh_site.outside == []


def test_seed003_sample_learns_the_seeds_eight_merges(site):
    page = site.page
    page.select_option("#sample", "seed003-low-lower")
    expect(page.locator("#sample-info")).to_contain_text("Licence")
    # The sample brings the seed's settings: vocabulary 265 with <|endoftext|>.
    expect(page.locator("#size")).to_have_value("265")
    site.train_and_wait()
    rows = merge_rows(page)
    assert [new for _, new, _ in rows] == ["st", "est", "ow", "low", "west", "ne", "newest", "␣newest"]
    assert [count for _, _, count in rows] == ["9", "9", "7", "7", "6", "6", "6", "5"]
    assert rows[-1][0] == "␣+newest"
    expect(page.locator("#results-summary")).to_contain_text("Vocabulary: 265 entries = 256 bytes + 8 merges + 1 special token")
    expect(page.locator("#self-check")).to_contain_text("Self-check passed")


def test_a_link_with_only_a_sample_brings_the_samples_settings(fresh_site):
    """Review finding: #/train?sample=seed003-low-lower left the size at 1000 (16 merges, not the seed's 8)."""
    site = fresh_site
    page = site.page
    site.open("#/train?sample=seed003-low-lower")
    expect(page.locator("#sample")).to_have_value("seed003-low-lower")
    expect(page.locator("#size")).to_have_value("265")
    expect(page.locator("#special_tokens")).to_have_value("<|endoftext|>")
    site.train_and_wait()
    expect(page.locator("#results-summary")).to_contain_text("Vocabulary: 265 entries = 256 bytes + 8 merges + 1 special token")
    # A setting the link spells out wins over the sample's; the rest still come from the sample.
    site.set_hash("#/train?sample=seed004-walk&size=3")
    expect(page.locator("#sample")).to_have_value("seed004-walk")
    expect(page.locator("#size")).to_have_value("3")
    expect(page.locator("#tie_break")).to_have_value("first-seen")
    expect(page.locator("#pretokenizer")).to_have_value("whitespace")
    expect(page.locator("input[name=size_mode][value=merges]")).to_be_checked()
    # A sample's setting changed back to the default stays in the link, so the link gives it back.
    page.locator("#pretokenizer").select_option("gpt2")
    expect(page).to_have_url(re.compile(r"pre=gpt2"))
    expect(page).to_have_url(re.compile(r"tie=first-seen"))
    link = page.evaluate("location.hash")
    site.set_hash("#/train?sample=seed000-abab")
    expect(page.locator("#pretokenizer")).to_have_value("bytes")
    site.set_hash(link)
    expect(page.locator("#sample")).to_have_value("seed004-walk")
    expect(page.locator("#tie_break")).to_have_value("first-seen")
    expect(page.locator("#pretokenizer")).to_have_value("gpt2")


def test_seed004_walk_sample_merges_a_and_l_first(site):
    page = site.page
    page.select_option("#sample", "seed004-walk")
    expect(page.locator("#tie_break")).to_have_value("first-seen")
    site.train_and_wait()
    rows = merge_rows(page)
    assert rows[0] == ("a+l", "al", "14")
    assert [new for _, new, _ in rows] == ["al", "alk", "␣w", "␣walk", "␣walki", "␣walkin", "␣walking"]


def test_pasted_text_with_heldout_gives_report_and_chart(site):
    page = site.page
    page.locator("#clear-text").click()
    site.set_text("The quick brown fox jumps over the lazy dog. " * 20 + "Съешь же ещё этих мягких французских булок. " * 10)
    page.locator("input[name=size_mode][value=merges]").check()
    page.locator("#size").fill("40")
    page.select_option("#pretokenizer", "gpt2")
    page.locator("details.heldout summary").click()
    page.locator("#heldout").fill("A lazy dog and a quick fox. Этих булок.")
    site.train_and_wait()
    expect(page.locator("#results-summary")).to_contain_text("Learned 40 merges")
    expect(page.locator("#merge-body tr")).to_have_count(40)
    page.locator("#tab-vocab").click()
    expect(page.locator("#hist svg rect.bar").first).to_be_visible()
    expect(page.locator("#longest li")).to_have_count(12)
    page.locator("#tab-compression").click()
    expect(page.locator("#curve svg path.series-train")).to_have_count(1)
    expect(page.locator("#curve svg path.series-heldout")).to_have_count(1)
    expect(page.locator("#report-body")).to_contain_text("Characters per token")
    # A token that splits a Cyrillic letter's two bytes would show byte chips, never a lone U+FFFD.
    assert "\ufffd" not in page.locator("#merge-body").inner_text()
    page.locator("#tab-merges").click()


def test_result_tabs_work_from_the_keyboard(site):
    page = site.page
    page.locator("#tab-merges").focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#tab-vocab")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#tab-vocab")).to_be_focused()
    expect(page.locator("#pane-vocab")).to_be_visible()
    page.keyboard.press("Home")
    expect(page.locator("#pane-merges")).to_be_visible()


def test_enter_in_the_settings_form_trains(site):
    page = site.page
    page.select_option("#sample", "seed000-abab")
    expect(page.locator("#doc-count")).to_have_text("2 documents")
    before = site.runs()
    page.locator("#size").focus()
    page.keyboard.press("Enter")
    site.wait_run(before)
    # Seed 000: (a, b) occurs 3 times and becomes 256; min_count 2 stops before (a, c).
    assert merge_rows(page)[0] == ("a+b", "ab", "3")
    expect(page.locator("#results-summary")).to_contain_text("from 2 documents")


def test_lone_surrogate_in_pasted_text_is_located(site):
    page = site.page
    page.locator("#clear-text").click()
    page.locator("#text").evaluate(
        "node => { node.value = 'ok\\nab' + String.fromCharCode(0xD800) + 'cd'; node.dispatchEvent(new Event('input')); }")
    page.locator("#train").click()
    error = page.locator("#text-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("lone surrogate (U+D800) at character 6 (line 2, column 3)")
    expect(page.locator("#app")).to_have_attribute("data-state", "ready")


def test_invalid_utf8_file_names_the_byte_offset(site):
    page = site.page
    page.locator("#file-input").set_input_files(
        files=[{"name": "latin1.txt", "mimeType": "text/plain", "buffer": "caf\u00e9\nna\u00efve".encode("latin-1")}])
    error = page.locator("#text-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("latin1.txt is not valid UTF-8: the byte at offset 3 (line 1)")
    expect(page.locator("#file-list li")).to_have_count(0)


def test_several_files_make_several_documents(site):
    page = site.page
    page.locator("#clear-text").click()
    page.locator("#file-input").set_input_files(files=[
        {"name": "one.txt", "mimeType": "text/plain", "buffer": "hello hello hello".encode()},
        {"name": "two.txt", "mimeType": "text/plain", "buffer": "héllo wörld wörld".encode()},
    ])
    expect(page.locator("#file-list li")).to_have_count(2)
    expect(page.locator("#doc-count")).to_have_text("2 documents")
    page.select_option("#separator", "none")
    page.locator("input[name=size_mode][value=merges]").check()
    page.locator("#size").fill("5")
    site.train_and_wait()
    expect(page.locator("#results-summary")).to_contain_text("from 2 documents (34 characters")
    page.locator("#clear-text").click()


def test_over_a_small_limit_the_user_chooses(site):
    page = site.page
    site.set_hash("#limit=50&mode=merges&size=3&pre=whitespace")
    expect(page.locator("#char-limit")).to_have_text("50")
    site.set_text("abcdefghij" * 8)
    expect(page.locator("#char-count")).to_have_text("80")
    expect(page.locator("#over-badge")).to_be_visible()
    summary_before = page.locator("#results-summary").inner_text()
    page.locator("#train").click()
    dialog = page.locator("#limit-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("The text has 80 characters, and the limit is 50")
    expect(page.locator("#limit-truncate")).to_be_focused()
    page.keyboard.press("Escape")  # the same as Go back
    expect(dialog).to_be_hidden()
    assert page.locator("#results-summary").inner_text() == summary_before  # nothing was trained
    before = site.runs()
    page.locator("#train").click()
    page.locator("#limit-truncate").click()
    site.wait_run(before)
    expect(page.locator("#results-summary")).to_contain_text("(50 characters, 50 bytes)")
    expect(page.locator("#run-message")).to_contain_text("Trained on the first 50 of 80 characters")
    with page.expect_download() as info:
        page.locator("#export-files button[data-file='manifest.json']").click()
    manifest = json.loads(info.value.path().read_bytes())
    assert manifest["char_limit"] == 50
    assert manifest["truncation"] == {"original_characters": 80, "kept_characters": 50}
    assert manifest["corpus"]["characters"] == 50


def test_over_the_default_limit_of_a_million(site):
    page = site.page
    site.set_hash("")
    expect(page.locator("#char-limit")).to_have_text("1,000,000")
    expect(page.locator("#size")).to_have_value("1000")  # the default, not a missing value read as 0
    page.locator("#text").evaluate(
        "node => { node.value = 'a'.repeat(1000001); node.dispatchEvent(new Event('input')); }")
    expect(page.locator("#char-count")).to_have_text("1,000,001")
    page.locator("#train").click()

    expect(page.locator("#limit-dialog")).to_contain_text("1,000,001 characters, and the limit is 1,000,000")
    expect(page.locator("#limit-truncate")).to_have_text("Train on the first 1,000,000 characters")
    page.locator("#limit-back").click()
    page.locator("#clear-text").click()


def test_settings_round_trip_through_the_url(site):
    page = site.page
    site.set_hash("#mode=merges&size=7&pre=custom&pattern=%20%3F%5Cw%2B&tie=smaller-id&min=2"
                  "&special=%5B%22%3C%7Cx%7C%3E%22%2C%22%3Cpad%3E%22%5D&sep=custom&septext=%3D%3D&layout=gpt2")
    expect(page.locator("#size")).to_have_value("7")
    expect(page.locator("#pretokenizer")).to_have_value("custom")
    expect(page.locator("#pattern")).to_have_value(" ?\\w+")
    expect(page.locator("#tie_break")).to_have_value("smaller-id")
    expect(page.locator("#min_count")).to_have_value("2")
    expect(page.locator("#special_tokens")).to_have_value("<|x|>\n<pad>")
    expect(page.locator("#separator_text")).to_have_value("==")
    expect(page.locator("input[name=id_layout][value=gpt2]")).to_be_checked()
    page.select_option("#tie_break", "first-seen")
    page.locator("#size").fill("9")
    expect(page).to_have_url(re.compile(r"tie=first-seen"))
    expect(page).to_have_url(re.compile(r"size=9"))
    assert "layout=gpt2" in page.url and "pre=custom" in page.url
    page.reload()
    site.wait_ready()
    expect(page.locator("#tie_break")).to_have_value("first-seen")
    expect(page.locator("#size")).to_have_value("9")
    expect(page.locator("#special_tokens")).to_have_value("<|x|>\n<pad>")
    site.set_hash("")


def test_short_pasted_text_travels_in_the_link(site):
    page = site.page
    site.set_hash("#mode=merges&size=5")
    page.locator("#clear-text").click()
    site.set_text("naïve café, naïve café")
    expect(page).to_have_url(re.compile(r"text=na%C3%AFve%20caf%C3%A9"))
    page.reload()
    site.wait_ready()
    expect(page.locator("#text")).to_have_value("naïve café, naïve café")
    expect(page.locator("#size")).to_have_value("5")
    site.set_text("x" * 1001)  # longer texts stay out of the URL
    expect(page).not_to_have_url(re.compile(r"text="))
    page.locator("#clear-text").click()
    site.set_hash("")


def test_invalid_settings_are_reported_before_training(site):
    page = site.page
    site.set_text("some text")
    page.locator("input[name=size_mode][value=vocab]").check()
    page.locator("#size").fill("100")
    page.locator("#train").click()
    expect(page.locator("#size-error")).to_contain_text("at least 256 + 1 special token = 257, got 100")  # at the field
    expect(page.locator("#size")).to_be_focused()
    page.locator("#size").fill("300")


def test_a_bad_custom_pattern_gets_a_clear_error(site):
    page = site.page
    site.set_text("some text here")
    page.select_option("#pretokenizer", "custom")
    page.locator("#pattern").fill("(unclosed")
    page.locator("#train").click()
    expect(page.locator("#run-message")).to_contain_text("Training failed:")
    expect(page.locator("#run-message")).to_contain_text("(unclosed")
    site.wait_ready()
    page.select_option("#pretokenizer", "gpt2")


def drop_files(page, target, files):
    """Drop files on an element the way a drag from the desktop does."""
    transfer = page.evaluate_handle(
        """(files) => {
            const transfer = new DataTransfer();
            for (const [name, text] of files) transfer.items.add(new File([text], name, {type: "text/plain"}));
            return transfer;
        }""", files)
    page.locator(target).dispatch_event("dragover", {"dataTransfer": transfer})
    page.locator(target).dispatch_event("drop", {"dataTransfer": transfer})


def test_dropped_files_become_documents(site):
    page = site.page
    page.locator("#clear-text").click()
    drop_files(page, "#text-drop", [["a.txt", "one two"], ["b.txt", "three"]])
    expect(page.locator("#file-list li")).to_have_count(2)
    expect(page.locator("#file-list")).to_contain_text("a.txt · 7 characters")
    expect(page.locator("#doc-count")).to_have_text("2 documents")
    page.locator("#clear-text").click()
    expect(page.locator("#file-list li")).to_have_count(0)


def test_dropped_tokenizer_files_are_imported(site):
    page = site.page
    drop_files(page, "#import-drop", [["vocab.bpe", "#version: 0.2\n"]])
    message = page.locator("#import-message")
    expect(message).to_contain_text("Could not import: ")
    expect(message).to_contain_text("encoder.json")
    site.wait_ready()


def test_every_control_has_an_accessible_name(site):
    unnamed = site.page.evaluate(
        """() => [...document.querySelectorAll("input, select, textarea, button")]
            .filter((node) => node.type !== "file")
            .filter((node) => !(node.labels && node.labels.length) && !node.getAttribute("aria-label")
                              && !node.getAttribute("aria-labelledby") && !node.textContent.trim())
            .map((node) => node.id || node.outerHTML.slice(0, 60))""")
    assert unnamed == []


def test_cancel_stops_at_once_and_training_works_again(site):
    page = site.page
    page.locator("#clear-text").click()
    # 900,000 characters of pseudo-random words: tens of thousands of distinct pre-tokens and a
    # 200,000-token target keep Python busy far longer than any machine needs to click Cancel.
    page.locator("#text").evaluate(
        """node => {
            let seed = 12345;
            const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) >>> 8;
            const words = [];
            let length = 0;
            while (length < 900000) {
                let word = " ";
                for (let i = 2 + next() % 8; i > 0; i--) word += String.fromCharCode(97 + next() % 26);
                words.push(word);
                length += word.length;
            }
            node.value = words.join("").slice(0, 900000);
            node.dispatchEvent(new Event("input"));
        }""")
    page.locator("input[name=size_mode][value=vocab]").check()
    page.locator("#size").fill("200000")
    page.locator("#train").click()
    # Wait until merges are being learned (at least one done, not all), then cancel.
    expect(page.locator("#progress-text")).to_have_text(
        re.compile(r"^[1-9][\d,]* / 199,743 merges · "), timeout=TRAIN_TIMEOUT_MS)
    expect(page.locator("#app")).to_have_attribute("data-state", "busy")
    done_before = page.locator("#train-progress").evaluate("node => node.value")
    page.locator("#cancel").click()
    expect(page.locator("#progress-panel")).to_be_hidden(timeout=1000)
    assert 0 < done_before < 199_743
    expect(page.locator("#run-message")).to_contain_text("Training was cancelled")
    # The page stays usable while Python restarts; the text is still there.
    expect(page.locator("#text")).to_have_value(re.compile(r"^ [a-z]+ [a-z]+"))
    site.wait_ready(BOOT_TIMEOUT_MS)
    page.select_option("#sample", "seed003-low-lower")
    site.train_and_wait()
    assert [new for _, new, _ in merge_rows(page)][:2] == ["st", "est"]


def test_a_crashed_worker_is_restarted_with_a_message(site):
    page = site.page
    page.evaluate("bpelab.client.worker.dispatchEvent(new ErrorEvent('error', {message: 'simulated crash'}))")
    expect(page.locator("#run-message")).to_contain_text("The Python worker stopped unexpectedly (simulated crash)")
    expect(page.locator("#run-message")).to_contain_text("It was restarted")
    site.wait_ready()
    site.train_and_wait()
    expect(page.locator("#status")).to_contain_text("learned 8 merges")


@pytest.mark.parametrize("width", [320, 360, 480])
def test_narrow_layout_fits_without_horizontal_scroll(site, width):
    page = site.page
    page.set_viewport_size({"width": width, "height": 800})
    try:
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})


def test_reference_vocabularies_load_in_the_worker_with_tiktokens_ids(site):
    """RESOURCES.md: 'hello world' is [31373, 995] in GPT-2, [15339, 1917] in cl100k, [24912, 2375] in o200k."""
    page = site.page
    site.wait_ready()
    result = page.evaluate(
        """async () => {
            const out = {};
            for (const name of ["gpt2", "cl100k", "o200k"]) {
                const info = await bpelab.client.request("reference", {name});
                const reply = await bpelab.client.request("encode", {handle: info.handle, text: "hello world"});
                out[name] = reply.results[0].ids;
            }
            return out;
        }""")
    assert result == {"gpt2": [31373, 995], "cl100k": [15339, 1917], "o200k": [24912, 2375]}


def test_multilingual_text_encodes_in_the_worker_as_in_cpython(site):
    """Pyodide's Python gives the ids CPython gives, on eight languages, in all three reference vocabularies."""
    from bpelab.openai_vocab import load_reference

    text = (ROOT / "tests" / "data" / "multilingual_edge.txt").read_text("utf-8")
    site.wait_ready()
    result = site.page.evaluate(
        """async (text) => {
            const out = {};
            for (const name of ["gpt2", "cl100k", "o200k"]) {
                const info = await bpelab.client.request("reference", {name});
                const reply = await bpelab.client.request("encode", {handle: info.handle, text});
                out[name] = reply.results[0].ids;
            }
            return out;
        }""", text)
    for name in ("gpt2", "cl100k", "o200k"):
        assert result[name] == load_reference(name).encode_ordinary(text), name


def test_no_request_left_the_origin(site):
    assert site.outside == []
    assert site.requests and all(url.startswith(site.url) for url in site.requests)


def test_a_cancel_while_writing_the_files_leaves_none_from_before(site):
    """The files on offer always belong to the tokenizer on show: never the previous run's."""
    page = site.page
    page.select_option("#sample", "seed003-low-lower")
    site.train_and_wait()
    expect(page.locator("#export-files li")).not_to_have_count(0)  # the small tokenizer's files
    page.select_option("#sample", "kjv-genesis")
    page.locator("input[name=size_mode][value=vocab]").check()
    page.locator("#size").fill("600")
    # Press Cancel the moment the page asks for the files: writing them can take less than a
    # polling interval, so waiting to see "Writing the files…" would race.
    page.evaluate("""() => {
        const client = bpelab.client, request = client.request;
        client.request = (type, ...rest) => {
            const reply = request.call(client, type, ...rest);
            if (type === "export") {
                client.request = request;
                setTimeout(() => document.getElementById("cancel").click(), 0);
            }
            return reply;
        };
    }""")
    page.locator("#train").click()
    expect(page.locator("#results-summary")).to_contain_text("Learned 343 merges", timeout=TRAIN_TIMEOUT_MS)  # the new one...
    expect(page.locator("#export-files li")).to_have_count(0)  # ...and the old files are gone
    expect(page.locator("#export-zip")).to_be_disabled()
    expect(page.locator("#self-check")).to_contain_text("Writing the files was cancelled, so there are none to download")
    site.wait_ready(BOOT_TIMEOUT_MS)
    expect(page.locator("#train")).to_be_focused()  # Cancel had the focus; it went back to Train
    page.locator("#tab-compression").click()
    expect(page.locator("#report-body")).to_contain_text("Not measured: Python was restarted")
    page.locator("#tab-merges").click()


def test_the_over_limit_question_is_about_the_text_as_it_is(site):
    page = site.page
    site.set_hash("#limit=50&mode=merges&size=3")
    expect(page.locator("#char-limit")).to_have_text("50")  # the hash is applied on hashchange, after set_hash returns
    site.set_text("x" * 66)
    page.locator("#train").click()
    expect(page.locator("#limit-dialog")).to_contain_text("The text has 66 characters")
    site.set_text("y" * 78)  # changing the text withdraws the question about the old one
    expect(page.locator("#limit-dialog")).to_be_hidden()
    page.locator("#train").click()
    expect(page.locator("#limit-dialog")).to_contain_text("The text has 78 characters")
    before = site.runs()
    page.locator("#limit-truncate").click()
    site.wait_run(before)
    expect(page.locator("#run-message")).to_contain_text("Trained on the first 50 of 78 characters")
    # A setting typed just before Enter is committed as the question opens: the question stays.
    page.locator("#size").fill("4")
    page.locator("#size").press("Enter")
    expect(page.locator("#limit-truncate")).to_be_focused()
    expect(page.locator("#limit-dialog")).to_be_visible()
    page.keyboard.press("Escape")
    page.locator("#clear-text").click()
    site.set_hash("")


def test_copy_link_carries_the_pasted_text_like_the_address_bar(site):
    page = site.page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    site.set_hash("#mode=merges&size=5")
    expect(page.locator("#size")).to_have_value("5")
    page.locator("#clear-text").click()
    site.set_text("my pasted text")
    share = page.locator("#train-share")
    share.get_by_role("button", name="Copy link").click()
    expect(share.get_by_role("status")).to_have_text("Link copied. It reopens exactly this view.")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.endswith("#/train?mode=merges&size=5&text=my%20pasted%20text"), copied
    page.locator("#clear-text").click()
    site.set_hash("")


def test_no_merges_and_one_merge_are_worded_right(site):
    page = site.page
    site.set_hash("#mode=merges&size=0")
    expect(page.locator("#size")).to_have_value("0")
    site.set_text("aaaa bbbb")
    site.train_and_wait()
    expect(page.locator("#results-summary")).to_contain_text("Learned 0 merges in")
    expect(page.locator("#merge-body")).to_have_text("No merges were learned: the requested size was reached.")
    site.set_hash("#mode=merges&size=1")
    expect(page.locator("#size")).to_have_value("1")
    site.train_and_wait()
    expect(page.locator("#results-summary")).to_contain_text("Learned 1 merge in")
    expect(page.locator("#results-summary")).to_contain_text("+ 1 merge + 1 special token.")
    page.locator("#size").fill("")
    page.locator("#train").click()
    expect(page.locator("#size-error")).to_contain_text("got an empty field")
    page.locator("#clear-text").click()
    site.set_hash("")


def test_a_toy_samples_settings_go_when_another_sample_is_picked(site):
    page = site.page
    site.set_hash("")
    page.select_option("#sample", "seed000-abab")
    expect(page.locator("#pretokenizer")).to_have_value("bytes")
    expect(page.locator("#size")).to_have_value("4")
    page.locator("#tie_break").select_option("first-seen")  # changed by the user: it stays
    page.select_option("#sample", "handbook-ja")
    expect(page.locator("#pretokenizer")).to_have_value("gpt2")
    expect(page.locator("input[name=size_mode][value=vocab]")).to_be_checked()
    expect(page.locator("#size")).to_have_value("1000")
    expect(page.locator("#min_count")).to_have_value("1")
    expect(page.locator("#separator")).to_have_value("none")
    expect(page.locator("#special_tokens")).to_have_value("<|endoftext|>")
    expect(page.locator("#tie_break")).to_have_value("first-seen")
    page.locator("#clear-text").click()
    site.set_hash("")


def hold_sample_text(page, sample_file):
    """Hold back the sample file's fetch until window.releaseSample() (a slow network, on cue)."""
    page.evaluate("""(file) => {
        const real = window.fetch;
        const held = new Promise((resolve) => { window.releaseSample = resolve; });
        window.fetch = async (url, ...rest) => {
            if (String(url).endsWith("/" + file)) { window.fetch = real; await held; }
            return real(url, ...rest);
        };
    }""", sample_file)


@pytest.mark.parametrize("field, typed", [
    ("#size", "600"),  # CI's flake: the field was rewritten between select-all and the typing, making 1000600
    ("#min_count", "3"),
    ("#special_tokens", "<s>"),
])
def test_a_sample_arriving_mid_edit_leaves_the_field_being_typed_in_alone(site, field, typed):
    """Seed 000's 4 merges, min count 2 and no special token go back to the defaults when another sample
    arrives, but not in the field the user has in hand: its select-all must still be there for the typing."""
    page = site.page
    site.set_hash("")
    page.select_option("#sample", "seed000-abab")
    expect(page.locator("#size")).to_have_value("4")
    hold_sample_text(page, "kjv-genesis.txt")
    page.select_option("#sample", "kjv-genesis")
    page.locator(field).focus()
    page.locator(field).evaluate("node => node.select()")
    page.evaluate("window.releaseSample()")
    expect(page.locator("#sample-info")).to_contain_text("Genesis")
    expect(page.locator("#pretokenizer")).to_have_value("gpt2")  # the fields not in hand did go back
    page.keyboard.insert_text(typed)
    expect(page.locator(field)).to_have_value(typed)
    page.locator("#clear-text").click()
    site.set_hash("")


def test_a_setting_changed_while_a_sample_loads_is_kept(site):
    page = site.page
    site.set_hash("")
    page.select_option("#sample", "seed000-abab")
    expect(page.locator("#pretokenizer")).to_have_value("bytes")
    hold_sample_text(page, "handbook-ru.txt")
    page.select_option("#sample", "handbook-ru")
    page.locator("#size").fill("7")
    page.locator("#pretokenizer").select_option("whitespace")
    page.locator("#text").focus()  # nothing of the form in hand when the sample arrives
    page.evaluate("window.releaseSample()")
    expect(page.locator("#sample-info")).to_contain_text("Russian")
    expect(page.locator("#size")).to_have_value("7")
    expect(page.locator("#pretokenizer")).to_have_value("whitespace")
    expect(page.locator("input[name=size_mode][value=vocab]")).to_be_checked()  # the toy's merges mode is gone
    page.locator("#clear-text").click()
    site.set_hash("")


@pytest.mark.parametrize("mode, what", [("vocab", "vocabulary size"), ("merges", "number of merges")])
def test_a_size_over_what_a_link_can_carry_is_refused(site, mode, what):
    page = site.page
    site.set_text("some text")
    page.locator(f"input[name=size_mode][value={mode}]").check()
    page.locator("#size").fill("1000600")
    page.locator("#train").click()
    expect(page.locator("#size-error")).to_have_text(f"The {what} must be at most 1,000,000, got 1,000,600.")
    expect(page.locator("#size")).to_be_focused()
    page.locator("input[name=size_mode][value=vocab]").check()
    page.locator("#size").fill("1000")
    page.locator("#clear-text").click()


def test_a_custom_pattern_is_checked_as_it_is_typed(site):
    page = site.page
    site.set_text("Hello world, 2024!")
    page.select_option("#pretokenizer", "custom")
    page.locator("#pattern").fill("(unclosed")
    check = page.locator("#pattern-check")
    expect(check).to_contain_text("This pattern cannot be used:")
    expect(check).to_contain_text("missing ')'")
    expect(page.locator("#pattern")).to_have_attribute("aria-invalid", "true")
    page.locator("#pattern").fill(r"\p{L}+|\p{N}+|\s+|.")
    expect(check).to_contain_text("Splits the start of your text into:")
    assert check.locator(".tok").all_inner_texts()[:4] == ["Hello", "␣", "world", ","]
    expect(page.locator("#pattern")).not_to_have_attribute("aria-invalid", "true")
    page.select_option("#pretokenizer", "gpt2")
    expect(check).to_have_text("")
    page.locator("#clear-text").click()


def test_a_pattern_that_backtracks_for_ever_restarts_python_with_a_message(site):
    page = site.page
    site.set_text("a" * 40)
    page.select_option("#pretokenizer", "custom")
    page.locator("#pattern").fill("(a+)+b|a")  # exponential in re on a run of a's with no b
    check = page.locator("#pattern-check")
    # Python either refuses the pattern after a short probe, or the page restarts it after 3 s.
    expect(check).to_contain_text(re.compile(r"took over 3 s, so Python was restarted|backtracks catastrophically"), timeout=15_000)
    expect(page.locator("#pattern")).to_have_attribute("aria-invalid", "true")
    site.wait_ready(BOOT_TIMEOUT_MS)
    page.locator("#pattern").fill("a+")
    expect(check).to_contain_text("Splits the start of your text into:")
    page.select_option("#pretokenizer", "gpt2")
    page.locator("#clear-text").click()


def test_on_a_phone_the_merge_table_fits_count_column_included(site):
    page = site.page
    site.set_hash("")
    page.select_option("#sample", "seed000-qx")  # tokens of up to 40 characters
    site.train_and_wait()
    page.set_viewport_size({"width": 360, "height": 800})
    try:
        wrap = page.locator("#pane-merges .table-wrap")
        assert wrap.evaluate("node => node.scrollWidth <= node.clientWidth")  # nothing scrolled off sideways
        count_right = page.locator("#merge-body tr").first.locator("td").last.evaluate(
            "node => node.getBoundingClientRect().right")
        assert count_right <= 360
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})
        page.locator("#clear-text").click()


def test_train_is_in_reach_on_a_laptop_screen(site):
    """The settings run past the bottom of a 1280x800 window; Train stays on screen with them."""
    page = site.page
    page.set_viewport_size({"width": 1280, "height": 800})
    try:
        page.evaluate("window.scrollTo(0, 0)")
        expect(page.locator("#train")).to_be_in_viewport(ratio=1)
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})


def test_chart_axis_labels_show_their_ticks_exactly(site):
    labels = site.page.evaluate("""async () => {
        const { lineChart } = await import(new URL("js/chart.js", location.href));
        const chart = lineChart({ series: [{ name: "t", className: "train", points: [[0, 1.0], [10, 2.0]] }],
                                  xLabel: "x", yLabel: "y", title: "t" });
        return [...chart.querySelectorAll("text[text-anchor=end]")].map((node) => node.textContent);
    }""")
    assert labels[:5] == ["1.00", "1.25", "1.50", "1.75", "2.00"]  # a step of 0.25: not 1.3 on the 1.25 line


def _contrast(page, selector):
    return page.locator(selector).evaluate("""node => {
        const rgb = (c) => c.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number);
        const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
            .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
        const style = getComputedStyle(node);
        const [a, b] = [lum(rgb(style.color)), lum(rgb(style.backgroundColor))].sort((x, y) => y - x);
        return (a + 0.05) / (b + 0.05);
    }""")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_cancel_is_readable_in_both_colour_schemes(site, scheme):
    site.page.emulate_media(color_scheme=scheme)
    try:
        assert _contrast(site.page, "#cancel") >= 4.5  # WCAG AA for its text (dark mode had 2.28)
    finally:
        site.page.emulate_media(color_scheme="light")


def test_the_over_limit_question_keeps_the_keyboard_until_answered(site):
    page = site.page
    site.set_hash("#limit=5&mode=merges&size=3")
    expect(page.locator("#char-limit")).to_have_text("5")  # the hash is applied on hashchange, after set_hash returns
    site.set_text("x" * 9)
    page.locator("#train").click()
    expect(page.locator("#limit-dialog")).to_have_attribute("aria-modal", "true")
    expect(page.locator("#limit-truncate")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#limit-back")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#limit-truncate")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#limit-dialog")).to_be_hidden()
    page.locator("#clear-text").click()
    site.set_hash("")


@pytest.mark.parametrize("name, data, message", [
    ("vocab.bpe", "#version: 0.2\na b\n", "vocab.bpe looks like a tokenizer file, not training text: drop it on Import"),
    ("empty.txt", "", "empty.txt is empty"),
])
def test_files_that_are_not_training_text_are_refused_with_a_reason(site, name, data, message):
    page = site.page
    page.locator("#clear-text").click()
    drop_files(page, "#text-drop", [["good.txt", "some words"], [name, data]])
    expect(page.locator("#text-error")).to_contain_text("No file was added. " + message)
    expect(page.locator("#doc-count")).to_have_text("0 documents")


def test_a_utf16_file_is_named_as_such(site):
    page = site.page
    page.locator("#file-input").set_input_files(files=[
        {"name": "wide.txt", "mimeType": "text/plain", "buffer": "hi".encode("utf-16")}])
    expect(page.locator("#text-error")).to_contain_text("wide.txt is UTF-16")


def test_a_pattern_from_a_changed_link_is_checked_too(site):
    page = site.page
    site.set_hash("#pre=custom&pattern=(")
    expect(page.locator("#pattern-check")).to_contain_text("missing ')'")
    expect(page.locator("#pattern")).to_have_attribute("aria-invalid", "true")
    site.set_hash("")


def test_editing_the_held_out_text_after_training_measures_again(site):
    page = site.page
    site.set_hash("")
    page.select_option("#sample", "seed003-low-lower")
    site.train_and_wait()
    page.locator("#tab-compression").click()
    expect(page.locator("#heldout-head")).to_have_text("Held-out text (none given)")
    if not page.locator("#heldout").is_visible():
        page.locator("details.heldout summary").click()
    page.locator("#heldout").fill("the lowest newest widest")
    expect(page.locator("#heldout-head")).to_have_text("Held-out text", timeout=TRAIN_TIMEOUT_MS)
    row = page.locator("#report-body tr").filter(has=page.locator("th", has_text=re.compile(r"^Characters$")))
    expect(row.locator("td").last).to_have_text("24")  # counted on the new held-out text
    page.locator("#heldout").fill("")
    page.locator("#tab-merges").click()
