"""The site's explorer, compare and encode views as notebook widgets (anywidget).

    from bpelab.widgets import Explorer
    w = Explorer("low low low lower newest", vocab_size=265, step=5)
    w                                   # the last line of a cell: the explorer
    w.step = 3; w.result.tokenizer; w.export("out/")

The widgets need anywidget (`pip install bpelab[widgets]`), imported only when a
widget is asked for, so `import bpelab` and `bpelab.widgets.kernel` need nothing.
"""

__all__ = ["Explorer", "Compare", "Encode"]


def __getattr__(name):
    if name not in __all__:
        raise AttributeError(f"module 'bpelab.widgets' has no attribute {name!r}")
    try:
        from . import _widgets
    except ModuleNotFoundError as error:
        if error.name not in ("anywidget", "traitlets", "ipywidgets"):
            raise
        raise ModuleNotFoundError(
            f"bpelab.widgets.{name} needs anywidget, which is not installed: pip install 'bpelab[widgets]' "
            "(or pip install anywidget)", name=error.name) from None
    return getattr(_widgets, name)
