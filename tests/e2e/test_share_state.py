"""One state per view, written and read in one place (web/js/share/states.js and the views' *-state.js).

share_roundtrip.mjs runs the site's own modules in Node: for every view and several states each (texts
with CR, tab and NUL; samples with a setting put back to the default; custom patterns; specials holding
a comma and a newline; references; trained@K), state -> params -> state, state -> address (z= where
shorter) -> state, and state -> lesson file -> state must give the same state. Params and lesson files
that cannot be honoured must each give one sentence naming the key or field and the fix.
"""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).with_name("share_roundtrip.mjs")


def _run():
    node = shutil.which("node")
    if node is None:
        pytest.fail("no node on PATH: the state round trips run the site's modules in Node.js (npm's)")
    done = subprocess.run([node, str(SCRIPT)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


RESULTS = _run()


@pytest.mark.parametrize("case", RESULTS["roundTrips"], ids=lambda c: f"{c['route']}: {c['name']}")
def test_a_state_comes_back_from_its_params_its_link_and_its_lesson_file(case):
    assert case["ok"], json.dumps(case["detail"], ensure_ascii=False)[:3000]


EXPECTED_PROBLEMS = {
    'explore {"tok":"o200k","text":"abc"}': "tok=o200k is OpenAI's tokenizer, which is not trained here",
    'explore {"tok":"gpt5"}': 'tok="gpt5" is not a tokenizer the explorer knows',
    'explore {"tok":"trained"}': "tok=trained needs the text it is trained on",
    'explore {"step":"-1","sample":"seed003-low-lower"}': 'step="-1" must be a whole number',
    'explore {"speed":"3","sample":"seed003-low-lower"}': 'speed="3" is not a speed',
    'explore {"size":"300"}': "need a sample= or text= to train on",
    'train {"sample":"no-such-sample"}': 'There is no sample "no-such-sample"',
    'train {"text":"x","size":"12"}': 'size="12" is not a vocabulary size',
    'train {"text":"x","limit":"2000000"}': "a link can only lower the limit",
    'train {"text":"x","special":"[1]"}': "must be a JSON list of strings",
    'train {"text":"x","pattern":"a+","pre":"gpt2"}': "pattern= is used only with pre=custom",
    'train {"text":"x","sample":"seed003-low-lower"}': "Give only one of sample, text and z; got sample and text.",
    'compare {"panes":"gpt2,gpt5"}': '"gpt5" is not a pane',
    'compare {"policy":"never"}': 'policy="never" is not known',
    'encode {"tok":"bert"}': 'tok="bert" is not a tokenizer',
    'vocab {"page":"0"}': 'page="0" must be a whole number of at least 1',
}


@pytest.mark.parametrize("case", RESULTS["problems"], ids=lambda c: c["name"])
def test_params_that_cannot_be_honoured_say_why(case):
    assert len(case["got"]) == 1 and EXPECTED_PROBLEMS[case["name"]] in case["got"][0], case["got"]


EXPECTED_LESSON_ERRORS = {
    "not JSON": "lesson.bpelab.json is not JSON",
    "an array": "a lesson is a JSON object, got list",
    "another format": '"format" must be "bpelab-lesson"',
    "a later version": '"version" 2 is not one this site reads',
    "an unknown field": 'unknown field "colour"',
    "an unknown view": '"view" must be one of explorer, compare, train, encode, vocab',
    "a state field of another view": "state.panes is not a field of the explorer view",
    "a field of the wrong type": "state.step must be a number, got string",
    "a setting of the wrong type": "settings.size must be a number",
    "an unknown setting": "settings.colour is not a setting",
    "two inputs": "the lesson gives sample and text: give only one",
    "a lone surrogate": "lone surrogate (U+D800)",
    "text for a view with no trained tokenizer": "would not be used",
}


@pytest.mark.parametrize("case", RESULTS["lessons"], ids=lambda c: c["name"])
def test_a_wrong_lesson_file_gets_one_line_naming_the_field(case):
    assert case["got"] is not None, "the lesson was accepted"
    assert "\n" not in case["got"] and EXPECTED_LESSON_ERRORS[case["name"]] in case["got"], case["got"]
    assert case["got"].startswith("lesson.bpelab.json")
