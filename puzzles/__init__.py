"""Puzzle sets: generate, rate, store (``records``, ``files``), render and check puzzles.

Its modules: ``core`` (generation and checks), ``records`` (the typed set file),
``files`` (load, save, the shipped sets) and ``render`` (text, Markdown, HTML).
"""
from __future__ import annotations

import importlib
from typing import Any

__all__ = ["core", "files", "records", "render"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'puzzles' has no attribute {name!r}")
    return importlib.import_module(f".{name}", __name__)
