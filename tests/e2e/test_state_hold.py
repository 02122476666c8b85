"""What a reader types while a link's state is still on its way is not silently lost.

A link's (or an embed's) state reaches its view after the samples' list, a sample's text or a z= text have loaded.
Before, a reader who clicked into the view's box in that moment and typed saw the typing, then saw it
replaced by the link's text. Now the view's text fields are read-only until they show the state (and
`aria-busy`): the keys do nothing, and once the state is shown the box holds the link's text and
takes typing again. The network is slowed on cue: one file's fetch is held until the test lets it go.
"""

import pytest
from playwright.sync_api import expect

from share_harness import new_context
from site_harness import BOOT_TIMEOUT_MS

HOLD_FETCH = """(file) => {
    const real = window.fetch;
    const held = new Promise((resolve) => { window.releaseHeld = resolve; });
    window.fetch = async (url, ...rest) => {
        if (String(url).endsWith("/" + file)) await held;
        return real(url, ...rest);
    };
}"""

# (id, address, the file held back, the field, what it shows once the state is applied: the text of a
# sample, or a value)
CASES = [
    ("compare, a sample's text", "#/compare?sample=seed004-walk&panes=gpt2,o200k", "seed004-walk.txt",
     "[data-route=compare] textarea.compare-text", {"sample": "seed004-walk.txt"}),
    ("encode, a sample's text", "#/encode?sample=seed003-low-lower&tok=cl100k", "seed003-low-lower.txt",
     "[data-route=encode] textarea", {"sample": "seed003-low-lower.txt"}),
    ("compare, its own text (the samples' list held)", "#/compare?text=Wir+lesen+langsam.&panes=gpt2",
     "index.json", "[data-route=compare] textarea.compare-text", {"value": "Wir lesen langsam."}),
    ("vocabulary, a search (the samples' list held)", "#/vocab?tok=gpt2&q=ing", "index.json",
     "[data-route=vocab] input[type=search]", {"value": "ing"}),
    ("explorer, a traced word (the samples' list held)", "#/explore?sample=seed003-low-lower&trace=newest",
     "index.json", "[data-route=explore] input[type=text]", {"value": "newest"}),
    ("an embedded compare, a sample's text", "embed.html?view=compare&sample=seed004-walk&panes=gpt2,bytes",
     "seed004-walk.txt", "textarea.compare-text", {"sample": "seed004-walk.txt"}),
    ("an embedded encode, a sample's text", "embed.html?view=encode&sample=seed003-low-lower&tok=o200k",
     "seed003-low-lower.txt", ".embed-view textarea", {"sample": "seed003-low-lower.txt"}),
]


@pytest.mark.parametrize("address, held, field, shows", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_typing_before_a_links_state_arrives_is_refused_not_lost(browser, site_url, address, held, field, shows):
    context = new_context(browser, site_url)
    try:
        page = context.new_page()
        page.add_init_script(f"({HOLD_FETCH})({held!r})")
        page.goto(site_url + (address if address.startswith("embed.html") else "index.html" + address))
        box = page.locator(field).first
        expect(box).to_be_visible(timeout=BOOT_TIMEOUT_MS)
        expect(box).to_have_attribute("readonly", "")
        busy_view = box.locator("xpath=ancestor::*[@aria-busy='true']")
        expect(busy_view).to_have_count(1)
        before = box.input_value()
        box.click()
        page.keyboard.type("typed too soon")
        assert box.input_value() == before, "the keys reached a box that the link's state will overwrite"

        page.evaluate("window.releaseHeld()")
        if "sample" in shows:
            expected = page.evaluate("(file) => fetch('samples/' + file).then((r) => r.text())", shows["sample"])
            # The box shows the text whole (its line ends as the textarea keeps them).
            expected = expected.replace("\r\n", "\n")
        else:
            expected = shows["value"]
        expect(box).to_have_value(expected, timeout=BOOT_TIMEOUT_MS)
        expect(box).not_to_have_attribute("readonly", "")
        expect(busy_view).to_have_count(0)
        box.click()
        page.keyboard.press("Control+End")
        page.keyboard.type("!")
        assert box.input_value().endswith("!"), "the box does not take typing once the state is shown"
    finally:
        context.close()
