"""The examples in the library's docstrings run as tests (doctest), on the installed modules."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import nimmt.puzzles
import nimmt.solver

MODULES = sorted(m.name for package in (nimmt.solver, nimmt.puzzles)
                 for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
                 if not m.ispkg)


def test_every_module_is_collected():
    assert "nimmt.solver.search.analysis" in MODULES and "nimmt.puzzles.core" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0
