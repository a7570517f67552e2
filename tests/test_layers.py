"""The house's layers, checked from the source.

* The layers are folders (``FOLDERS``, bottom up: base, kernels, positions, search, players,
  faces, then puzzles and cli); imports go one way, down or within a folder, with no cycle
  (function-level imports included: they hide a cycle, they do not remove it).
* No module imports another's underscore names, except the kernels on the allow-list below
  (being rewritten into one module of turn kernels; the list is to be emptied).
* Library messages name parameters (``max_nodes``), the command line spells them as its flags
  (``--max-nodes``), in one place: ``cli.cli_message``.
* Render options are arguments of the renderer, never fields of a result or its JSON.
* Model, variant, placement and method names come from ``solver.base.names``.
* Every module has a curated ``__all__``; ``import solver`` exposes the entry points and
  loads no numba.
"""
from __future__ import annotations

import ast
import functools
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import click
import networkx as nx
import pytest

from nimmt import cli
from nimmt.solver.base import names, rules
from nimmt.solver.base.errors import NimmtError, param
from nimmt.solver.base.names import Method, Model, Placement, Variant
from nimmt.solver.faces import report

from cli_checks import assert_one_line_error, invoke

ROOT = Path(__file__).resolve().parent.parent

# The layers are folders. A module imports only from its own folder or one below it, and
# never in a cycle; the order, bottom up (docs/ARCHITECTURE.md says what each holds):
FOLDERS = ["solver.base", "solver.kernels", "solver.positions", "solver.search",
           "solver.players", "solver.faces", "puzzles", "cli"]
# Declared exceptions: the package's curated API (``import solver``) sits on top, beside cli:
# it names entry points of every layer, loaded lazily.
ON_TOP = {"solver": len(FOLDERS) - 1}

# Underscore names still imported across modules: the kernels being rewritten into one
# module of turn kernels. (importer, module, name); empty it as they go.
UNDERSCORE_ALLOWED: set[tuple[str, str, str]] = set()  # empty: keep it so


def source_modules() -> dict[str, Path]:
    """Every module of the distribution: cli, solver.*.*, puzzles.* (a package's
    ``__init__`` under the package's name)."""
    found = {"cli": ROOT / "cli.py"}
    for package in ("solver", "puzzles"):
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


MODULES = source_modules()


@functools.cache
def syntax_tree(module: str) -> ast.Module:
    """The module's parsed source, parsed once for every test here (none changes it)."""
    return ast.parse(MODULES[module].read_text(encoding="utf-8"))


def layer_of(module: str) -> int | None:
    """The module's layer: the index of its folder in FOLDERS, or a declared exception."""
    if module in ON_TOP:
        return ON_TOP[module]
    for index, folder in enumerate(FOLDERS):
        if module == folder or module.startswith(folder + "."):
            return index
    return None


LAYERS = {module: layer_of(module) for module in MODULES}


def resolve(module: str, node: ast.ImportFrom) -> str:
    """The absolute module an ``from X import ...`` names (relative ones resolved; the
    package ``nimmt`` is the checkout's root, so ``from .solver`` in cli is ``solver``)."""
    if not node.level:  # the installed name nimmt.solver.x is the module solver.x here
        return (node.module or "").removeprefix("nimmt.")
    package = module if MODULES[module].stem == "__init__" else module.rpartition(".")[0]
    if module == "cli":
        package = ""
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    if not package:
        return node.module or ""
    return f"{package}.{node.module}" if node.module else package


def imports(module: str):
    """(imported module, name or None, node) for every import anywhere in ``module``; a
    name that is itself a module (``from . import exact``) counts as that module."""
    tree = syntax_tree(module)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.removeprefix("nimmt."), None, node
        elif isinstance(node, ast.ImportFrom):
            base = resolve(module, node)
            for alias in node.names:
                if f"{base}.{alias.name}" in MODULES:
                    yield f"{base}.{alias.name}", None, node
                else:
                    yield base, alias.name, node


def import_graph() -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(MODULES)
    for module in MODULES:
        for target, _, _ in imports(module):
            if target in MODULES and target != module:
                graph.add_edge(module, target)
    return graph


# ---------------------------------------------------------------- layers

def test_every_module_lives_in_a_layer_folder():
    assert sorted(m for m, layer in LAYERS.items() if layer is None) == []


def test_pyproject_lists_every_package():
    """A folder with an ``__init__.py`` and no line in pyproject.toml is left out of a wheel."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    packages = {"nimmt"} | {"nimmt." + ".".join(p.parent.relative_to(ROOT).parts)
                            for top in ("solver", "puzzles")
                            for p in (ROOT / top).rglob("__init__.py")}
    assert listed == packages


def test_no_import_cycle():
    graph = import_graph()
    cycles = list(nx.simple_cycles(graph))
    assert cycles == [], f"import cycles: {cycles}"


def test_imports_go_down_the_layers():
    upward = [(a, b) for a, b in import_graph().edges if LAYERS[a] < LAYERS[b]]
    assert upward == [], "modules importing a layer above them: " + ", ".join(
        f"{a} ({LAYERS[a]}) -> {b} ({LAYERS[b]})" for a, b in upward)


def test_searches_never_import_analysis():
    graph = import_graph()
    for search in ("solver.search.exact", "solver.search.montecarlo", "solver.search.nash"):
        assert not nx.has_path(graph, search, "solver.search.analysis"), search


def test_the_solver_never_imports_puzzles_or_cli():
    graph = import_graph()
    for module in MODULES:
        if module.startswith("solver"):
            reach = nx.descendants(graph, module)
            assert not {m for m in reach if m == "cli" or m.startswith("puzzles")}, module


# ---------------------------------------------------------------- underscore names

def underscore_imports() -> set[tuple[str, str, str]]:
    found = set()
    for module in MODULES:
        modules_bound = {}  # local name -> module, for `engine._name`
        for target, name, node in imports(module):
            if name is None and target in MODULES:
                for alias in node.names:
                    local = alias.asname or alias.name.rpartition(".")[2]
                    modules_bound[local] = target
            elif (name and name.startswith("_") and not name.startswith("__")
                  and target in MODULES and target != module):
                found.add((module, target, name))
        tree = syntax_tree(module)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in modules_bound and node.attr.startswith("_")
                    and not node.attr.startswith("__")
                    and modules_bound[node.value.id] != module):
                found.add((module, modules_bound[node.value.id], node.attr))
    return found


def test_no_module_imports_another_modules_underscore_names():
    extra = underscore_imports() - UNDERSCORE_ALLOWED
    assert not extra, f"underscore names imported across modules: {sorted(extra)}"


def test_the_underscore_allow_list_has_no_stale_entries():
    """An entry whose import is gone comes off the list (the list only shrinks)."""
    stale = UNDERSCORE_ALLOWED - underscore_imports()
    assert not stale, f"remove from UNDERSCORE_ALLOWED: {sorted(stale)}"


# ---------------------------------------------------------------- declared interfaces

def declared_names(module: str) -> set[str] | None:
    """The module's ``__all__`` as written (None when it has none)."""
    tree = syntax_tree(module)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__"
                                                for t in node.targets):
            return set(ast.literal_eval(node.value))
    return None


def test_imports_take_only_declared_names():
    """A name one module takes from another is in that module's ``__all__``: what a module
    offers the others is declared, and a name left out of ``__all__`` is its own."""
    undeclared = []
    for module in MODULES:
        for target, name, _ in imports(module):
            if name and name != "*" and target in MODULES and target != module:
                declared = declared_names(target)
                if declared is not None and name not in declared:
                    undeclared.append(f"{module} takes {target}.{name}")
    assert undeclared == []


def test_import_graph_depth():
    """At most 12 floors from cli down to a module that imports none of nimmt: the exact
    search's kernel is a kernel (Monte Carlo's continuation reads it without the search
    from a position), and a game's win is part of the one objective module."""
    assert nx.dag_longest_path_length(import_graph()) + 1 <= 12


# ---------------------------------------------------------------- messages

def docstring_ids(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


@pytest.mark.parametrize("module", [m for m in MODULES if m != "cli"])
def test_library_strings_spell_no_flags(module):
    """The library names parameters (``param``); only cli.py spells ``--flags``."""
    tree = syntax_tree(module)
    docs = docstring_ids(tree)
    flags = [(node.lineno, node.value[:60]) for node in ast.walk(tree)
             if isinstance(node, ast.Constant) and isinstance(node.value, str)
             and id(node) not in docs and re.search(r"(?<![\w-])--[a-z]", node.value)]
    assert flags == []


def named_parameters() -> set[str]:
    """Every parameter the library names in a message: param('x') and command(.., x=...)."""
    found = set()
    for module, path in MODULES.items():
        if module == "cli":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id == "param" and node.args and isinstance(node.args[0],
                                                                         ast.Constant):
                    found.add(node.args[0].value)
                elif node.func.id == "command":
                    found.update(k.arg for k in node.keywords)
    return found


def cli_options() -> set[str]:
    options = set()

    def walk(command: click.Command) -> None:
        for p in command.params:
            options.update(o for o in p.opts if o.startswith("--"))
        for sub in getattr(command, "commands", {}).values():
            walk(sub)

    walk(cli.cli)
    return options


def test_every_parameter_named_has_a_cli_flag():
    named = named_parameters()
    assert {"max_nodes", "time_limit", "memory", "samples", "method"} <= named
    assert {cli.flag_of(name) for name in named} <= cli_options()


def test_python_messages_name_parameters_and_the_cli_flags():
    error = NimmtError(f"raise {param('max_nodes', beside=True)} or use "
                       f"{param('method', 'montecarlo')}; {param('depth')} must be at least 1")
    assert str(error) == "raise max_nodes or use method='montecarlo'; depth must be at least 1"
    # each parameter named once, as the reader spells it: no Python name beside the flag
    assert cli.cli_message(error) == ("raise --max-nodes or use --method "
                                      "montecarlo; --depth must be at least 1")


BUDGET_PYTHON = ("exact search would take about 1.7e+29 nodes, over the budget of 10; raise "
                 "max_nodes (about 1,000,000 nodes a second) or use method='montecarlo'")
BUDGET_CLI = ("exact search would take about 1.7e+29 nodes, over the budget of 10; raise "
              "--max-nodes (about 1,000,000 nodes a second) or use --method montecarlo")


def test_budget_message_in_python_and_on_the_command_line(runner):
    from nimmt.solver.base.errors import BudgetExceeded
    from nimmt.solver.positions.position import load_position
    from nimmt.solver.search.analysis import analyse

    with pytest.raises(BudgetExceeded) as info:
        analyse(load_position("example-standard"), method="exact", max_nodes=10)
    assert str(info.value) == BUDGET_PYTHON and "--" not in str(info.value)
    line = assert_one_line_error(invoke(runner, "analyse", "example-standard", "--method",
                                        "exact", "--max-nodes", "10"))
    assert line == "nimmt: error: " + BUDGET_CLI  # the command line's wording, as before


TREE_PYTHON = ("this tree would have at least 31 nodes (its first turn alone: 5 opponent card "
               "sets after each card), over max_nodes=5; use min_probability (each set has "
               "probability 0.2), or raise max_nodes")
TREE_CLI = ("this tree would have at least 31 nodes (its first turn alone: 5 opponent card "
            "sets after each card), over --max-nodes 5; use --min-probability (each set has "
            "probability 0.2), or raise --max-nodes")


def test_tree_message_in_python_and_on_the_command_line(runner):
    from nimmt.solver.positions.position import load_position
    from nimmt.solver.search.tree import build_tree

    with pytest.raises(NimmtError) as info:
        build_tree(load_position("example"), max_nodes=5)
    assert str(info.value) == TREE_PYTHON
    line = assert_one_line_error(invoke(runner, "tree", "example", "--format", "text",
                                        "--max-nodes", "5"))
    assert line == "nimmt: error: " + TREE_CLI


def test_nash_refusal_in_python_and_on_the_command_line(runner):
    from nimmt.solver.positions.position import load_position
    from nimmt.solver.search.nash import check_nash_position

    with pytest.raises(NimmtError) as info:
        check_nash_position(load_position("example-3p"))
    assert str(info.value).endswith("(use opponents='random' or 'worst')")
    line = assert_one_line_error(invoke(runner, "analyse", "example-3p", "--opponents", "nash"))
    assert line.endswith("(use --opponents random or worst)")


def test_samples_message_names_the_parameter():
    from nimmt.solver.positions.position import load_position
    from nimmt.solver.search.montecarlo import run_montecarlo

    with pytest.raises(NimmtError, match=r"^samples must be at least 2") as info:
        run_montecarlo(load_position("example"), samples=1)
    assert cli.cli_message(info.value).startswith("--samples must be at least 2")


def test_an_error_keeps_its_parameters_through_pickling():
    """Puzzle generation's worker processes send errors back pickled."""
    import pickle

    from nimmt.solver.base.errors import BudgetExceeded

    error = BudgetExceeded(f"raise {param('max_nodes', beside=True)}", nodes=5)
    again = pickle.loads(pickle.dumps(error))
    assert str(again) == "raise max_nodes" and again.nodes == 5 and again.reason == "nodes"
    assert cli.cli_message(again) == "raise --max-nodes"


# ---------------------------------------------------------------- render options

@pytest.mark.parametrize("flags", [(), ("--both-sides",), ("--verify",),
                                   ("--both-sides", "--verify")])
def test_json_carries_no_render_options(runner, flags):
    result = invoke(runner, "analyse", "example", "--opponents", "nash", "--format", "json",
                    *flags)
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert "show_p2" not in data and "verified" not in data
    assert data["estimated_nodes"] is None  # nash has no node estimate, but one of states
    assert isinstance(data["estimated_states"], int) and data["estimated_states"] > 0


def test_render_options_are_arguments(runner):
    from nimmt.solver.positions.position import load_position
    from nimmt.solver.search.analysis import analyse

    result = analyse(load_position("example"), opponents="nash")
    before = dict(result.extra)
    plain = report.render_analysis(result, "simple")
    both = report.render_analysis(result, "simple", show_p2=True, verified=True)
    assert "player 2's side" not in plain and "verify:" not in plain
    assert "player 2's side" in both and "verify:" in both
    assert result.extra == before  # rendering stores nothing in the result
    table = invoke(runner, "analyse", "example", "--opponents", "nash", "--both-sides",
                   "--verify").stdout
    assert "player 2's side" in table and "verify:" in table


def test_exact_and_montecarlo_keep_their_node_estimate():
    from nimmt.solver.positions.owners import estimate_nodes
    from nimmt.solver.positions.position import load_position
    from nimmt.solver.search.analysis import analyse

    position = load_position("example")
    data = analyse(position, opponents="worst").to_json()
    assert data["estimated_nodes"] == estimate_nodes(position) and "estimated_states" not in data


# ---------------------------------------------------------------- names

def test_rules_tuples_are_the_enums():
    assert rules.MODELS == tuple(Model) == ("random", "worst", "nash")
    assert rules.VARIANTS == tuple(Variant) == ("standard", "tactical", "logic")
    assert rules.PLACEMENTS == tuple(Placement) == ("normal", "professional")
    from nimmt.solver.search.analysis import METHODS, OPPONENTS

    assert OPPONENTS == rules.MODELS and METHODS == tuple(Method)
    assert all(type(name) is str for name in rules.MODELS + rules.VARIANTS + rules.PLACEMENTS)


def choices_of(command: click.Command, option: str) -> list[str]:
    param = next(p for p in command.params if f"--{option}" in p.opts)
    return list(param.type.choices)


def test_cli_choices_come_from_the_enums():
    commands = cli.cli.commands
    puzzles = commands["puzzles"].commands
    # analyse --opponents: a model (its names from the enum) or a bot
    from nimmt.solver.search.analysis import OPPONENTS
    assert list(OPPONENTS) == [str(m) for m in Model]
    assert choices_of(commands["analyse"], "method") == list(Method)
    assert choices_of(commands["tree"], "opponents") == list(Model)
    assert choices_of(commands["deal"], "variant") == list(Variant)
    assert choices_of(commands["deal"], "placement") == list(Placement)
    assert choices_of(commands["simulate"], "variant") == list(Variant)
    assert set(choices_of(puzzles["generate"], "model")) == set(Model)
    assert set(choices_of(commands["solve-deal"], "variant")) <= set(Variant)


def test_enum_members_work_wherever_names_do():
    from nimmt.solver.positions.position import load_position
    from nimmt.solver.search.analysis import analyse

    position = load_position("example")
    by_name = analyse(position, opponents="worst").to_json()
    by_member = analyse(position, opponents=Model.WORST, method=Method.EXACT).to_json()
    for data in (by_name, by_member):
        data.pop("seconds"), data.pop("reason")
    assert json.dumps(by_member) == json.dumps(by_name)


# ---------------------------------------------------------------- public API

LAYER_PACKAGES = [m for m in MODULES if m in FOLDERS]  # the folders' own __init__


@pytest.mark.parametrize("module", sorted(m for m in MODULES
                                          if m not in ("cli", *LAYER_PACKAGES)))
def test_every_module_lists_its_public_names(module):
    if module in ("solver.kernels.turns", "solver.kernels.statekey", "solver.kernels.table"):
        pytest.skip("kernel modules of the search redesign")
    mod = importlib.import_module(f"nimmt.{module}")
    assert isinstance(mod.__all__, list) and mod.__all__, module
    assert len(set(mod.__all__)) == len(mod.__all__)
    for name in mod.__all__:
        assert not name.startswith("_") and hasattr(mod, name), name


def test_the_package_exposes_the_entry_points_without_numba():
    code = ("import sys; import nimmt.solver as solver; assert 'numba' not in sys.modules; "
            "from nimmt.solver import Model, NimmtError, Position, load_position, parse_position, "
            "format_position; assert 'numba' not in sys.modules; "
            "print(sorted(solver.__all__))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    for name in ("analyse", "Position", "parse_position", "load_position", "format_position",
                 "solve_exact", "solve_nash", "principal_line", "NimmtError", "Model",
                 "Variant", "Placement", "Method"):
        assert repr(name) in out


def test_the_package_entry_points_are_the_modules_objects():
    import nimmt.solver as solver
    from nimmt.solver.positions import position
    from nimmt.solver.search import analysis, exact, line, nash

    assert solver.analyse is analysis.analyse and solver.solve_exact is exact.solve_exact
    assert solver.solve_nash is nash.solve_nash and solver.principal_line is line.principal_line
    assert solver.Position is position.Position and solver.Model is names.Model
    assert set(solver.__all__) <= set(dir(solver))
    with pytest.raises(AttributeError):
        solver.no_such_name  # noqa: B018


def test_puzzle_settings_messages_name_the_parameters():
    from dataclasses import replace

    from nimmt.puzzles.core import check_settings
    from nimmt.puzzles.records import Settings

    settings = Settings("tactical", 2, "normal", 4, "worst", 1.0, False, 1)
    for change, python, flag in ((dict(cards_left=7), "cards_left must", "--cards-left must"),
                                 (dict(min_margin=-1.0), "min_margin must", "--min-margin must"),
                                 (dict(variant="standard"), "use variant='tactical' or logic",
                                  "use --variant tactical or logic")):
        with pytest.raises(NimmtError) as info:
            check_settings(replace(settings, **change))
        assert python in str(info.value) and flag in cli.cli_message(info.value)


# ---------------------------------------------------------------- the tests' own layout

TEST_HELPERS = {"conftest", "naive", "helpers", "cli_checks"}  # shared, beside the folders
WHOLE_CHECKOUT = {"test_layers", "test_habits", "test_readme", "test_doctests",
                  "test_benchmark_children"}  # about the checkout as a whole


def test_tests_mirror_the_source_folders():
    """Every test module sits in the folder of the layer it tests (tests/base for
    solver/base, ..., tests/cli for cli.py, tests/puzzles for puzzles/), except the checks
    of the checkout as a whole; shared helpers and the brute-force oracles sit beside the
    folders (``naive.py``: every oracle)."""
    folders = {f.rpartition(".")[2] for f in FOLDERS}
    tests = ROOT / "tests"
    for path in tests.rglob("*.py"):
        relative = path.relative_to(tests)
        if len(relative.parts) == 1:
            assert path.stem in TEST_HELPERS | WHOLE_CHECKOUT, f"tests/{relative} has no folder"
        else:
            assert len(relative.parts) == 2 and relative.parts[0] in folders, relative
            assert path.stem.startswith("test_"), relative
    assert {p.name for p in tests.iterdir() if p.is_dir() and p.name != "__pycache__"} \
        <= folders | {"data"}


def test_no_test_module_imports_another():
    """Tests share code through ``naive``, ``helpers``, ``cli_checks`` and ``conftest``
    fixtures, never by importing another test module."""
    crossing = []
    for path in (ROOT / "tests").rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            crossing += [(path.name, n) for n in names if n.startswith("test_")]
    assert crossing == []
