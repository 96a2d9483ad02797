"""The words of a request to remember or forget, one module per language, and the
words of forgetting (docs/DESIGN.md §2.3; the grammar that reads them is memory/grammar.py)."""
