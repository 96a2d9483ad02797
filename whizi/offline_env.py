"""Make tiktoken and litellm work with no network, set once at start-up.

tiktoken downloads its BPE files on first use; litellm ships the ones we need
(`o200k_base`, `cl100k_base`) in its package, so we point tiktoken's cache there.
litellm fetches a model cost map on import unless told to use its bundled copy.
Both are found without importing litellm, which costs ~2.5 s.
"""

import importlib.util
import os
from pathlib import Path


def litellm_tokenizer_dir() -> Path | None:
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"


def configure_offline_env() -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        tokenizer_dir = litellm_tokenizer_dir()
        if tokenizer_dir is not None and tokenizer_dir.is_dir():
            os.environ["TIKTOKEN_CACHE_DIR"] = str(tokenizer_dir)
