# BPE, one merge at a time: the marimo version of examples/lesson.ipynb.
# Open it with `marimo edit examples/lesson.py` (or `marimo run` for the app view);
# `python examples/lesson.py` runs it as a script.
import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")


@app.cell
def _():
    from pathlib import Path

    import marimo as mo

    from bpelab.artifacts import load_files
    from bpelab.widgets import Compare, Explorer

    # Seed 003's corpus: low ×5, lower ×2, widest ×3, newest ×6, as three lines of running text.
    CORPUS = ("low low low low low\n"
              "lower lower widest widest widest\n"
              "newest newest newest newest newest newest\n")
    return CORPUS, Compare, Explorer, Path, load_files, mo


@app.cell
def _(mo):
    mo.md("""
    # BPE, one merge at a time

    The toy corpus of seed 003, trained to vocabulary 265 (256 bytes, 8 merges, `<|endoftext|>`).
    The explorer opens at step 5, `w + est → west`; the number box below sets its `step` from Python.
    """)
    return


@app.cell
def _(mo):
    step = mo.ui.number(start=0, stop=8, value=5, label="Step, set from Python")
    step
    return (step,)


@app.cell
def _(CORPUS, Explorer, mo):
    widget = Explorer(CORPUS, vocab_size=265, step=5)
    explorer = mo.ui.anywidget(widget)
    explorer
    return explorer, widget


@app.cell
def _(step, widget):
    # A cell sets the trait; it reads `widget`, not `explorer`, so a click does not run it again.
    widget.step = step.value
    return


@app.cell
def _(explorer, mo):
    mo.md(f"The kernel reads step **{explorer.value['step']}** of {explorer.value['steps']}.")
    return


@app.cell
def _(Compare, mo):
    compare = mo.ui.anywidget(Compare("Xin chào thế giới", panes=["gpt2", "cl100k", "o200k"]))
    compare
    return (compare,)


@app.cell
def _(compare):
    counts = {pane: len(ids) for pane, ids in compare.widget.ids.items()}
    counts
    return


@app.cell
def _(Path, load_files, widget):
    paths = widget.export("lesson-tokenizer")
    back = load_files({name: path.read_bytes() for name, path in paths.items()})
    text = "lowest newest"
    read_back = (back.encode(text), back.encode(text) == widget.result.tokenizer.encode(text))
    assert read_back[1], read_back
    sorted(Path("lesson-tokenizer").iterdir()), read_back
    return


if __name__ == "__main__":
    app.run()
