"""Seed 003's worked example "What a tokenizer costs Vietnamese", copied from the seed.

Shared by tests/test_compare.py (Python's seed_lines) and tests/e2e/test_compare_view.py
(the page's copied text); pyproject's pytest `pythonpath` puts tests/ on the path.
"""

XIN_CHAO = "Xin chào thế giới"

SEED003_BLOCK = """\
'Xin chào thế giới': 17 characters, 22 bytes
  gpt2         15 tokens  X | in | ␣ch | à | o | ␣th | <E1> | <BA> | <BF> | ␣g | i | <E1> | <BB> | <9B> | i
  cl100k_base   9 tokens  X | in | ␣ch | à | o | ␣th | ế | ␣gi | ới
  o200k_base    5 tokens  Xin | ␣ch | ào | ␣thế | ␣giới"""
