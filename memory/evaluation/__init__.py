"""memory_eval: scenarios run through the real pass and scored (docs/DESIGN.md §6).

The files on disk (scenarios, recorded answers, prompts) are files.py, the two litellm
providers that replay or record a model's answers are providers.py, and running and
scoring the scenarios is scoring.py.
"""
