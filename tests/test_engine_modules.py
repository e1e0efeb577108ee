"""The engine's modules: one reason to change each, and no import cycle between them."""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import simcore.engine
from simcore.engine import checks

ENGINE = Path(simcore.engine.__file__).parent
MODULES = sorted(p.stem for p in ENGINE.glob("*.py") if p.stem != "__init__")


def engine_imports(module: str) -> set[str]:
    """The engine modules ``module`` imports anywhere (also inside functions: a lazy import is
    still a dependency, and a cycle hidden in a function is still a cycle)."""
    tree = ast.parse((ENGINE / f"{module}.py").read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:  # from .x import y, or from . import x
                names = [node.module] if node.module else [a.name for a in node.names]
            elif node.level == 0 and (node.module or "").startswith("simcore.engine"):
                rest = node.module[len("simcore.engine"):].lstrip(".")
                names = [rest] if rest else [a.name for a in node.names]
            else:
                continue
        elif isinstance(node, ast.Import):
            names = [a.name[len("simcore.engine."):] for a in node.names if a.name.startswith("simcore.engine.")]
        else:
            continue
        found.update(n.split(".")[0] for n in names if n.split(".")[0] in MODULES)
    return found - {module}


def test_the_engine_was_split_by_reason_to_change():
    assert {"blocks", "schedule", "executors", "results", "checks", "runner"} <= set(MODULES)


def test_no_import_cycle_between_engine_modules():
    graph = {m: engine_imports(m) for m in MODULES}
    assert graph["executors"], "the graph reader found no imports: it is broken"
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(m, path):
        state[m] = 1
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                cycle = path[path.index(n):] + [n]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if n not in state:
                visit(n, path + [n])
        state[m] = 2

    for m in MODULES:
        if m not in state:
            visit(m, [m])


def test_the_layers_point_one_way():
    # checks and blocks know nothing of how blocks are run; the pools know nothing of runs or results
    assert not engine_imports("checks") & {"blocks", "schedule", "executors", "results", "runner"}
    assert not engine_imports("blocks") & {"schedule", "executors", "results", "runner", "checkpoint"}
    assert not engine_imports("executors") & {"schedule", "results", "runner"}
    assert not engine_imports("schedule") & {"results", "runner"}
    assert "runner" not in engine_imports("results")


@pytest.mark.parametrize("module", MODULES)
def test_each_engine_module_imports_alone_in_a_fresh_interpreter(module):
    # The package imports first; the module's own imports must then resolve
    # without help from what a test session happened to import before.
    code = f"import importlib; m = importlib.import_module('simcore.engine.{module}'); print(m.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"simcore.engine.{module}"


def test_old_import_paths_still_work():
    from simcore.engine import Job, deal_block, map_blocks, play_block, play_tables, seat_streams  # noqa: F401
    from simcore.engine.runner import (  # noqa: F401
        DEFAULT_BLOCK, AnalysisResult, ComparisonResult, RunInfo, SimulationResult, check_block_size,
        check_deals, check_flag, check_seed, check_situation, json_ready,
    )
    from simcore.engine.runner import Job as RunnerJob
    from simcore.engine.runner import map_blocks as runner_map_blocks

    assert RunnerJob is Job and runner_map_blocks is map_blocks


def test_one_default_worker_count():
    from simcore.engine import executors, runner

    assert not hasattr(runner, "default_threads")
    assert executors.default_workers() >= 1


@pytest.mark.parametrize("value", [3, np.int64(3), np.uint8(3)])
def test_is_whole_takes_integers(value):
    assert checks.is_whole(value)


@pytest.mark.parametrize("value", [True, False, np.bool_(True), 3.0, "3", None, np.float64(3)])
def test_is_whole_refuses_bools_floats_and_strings(value):
    assert not checks.is_whole(value)


@pytest.mark.parametrize("value", [0.5, 2, np.float32(0.25), np.int16(4)])
def test_is_real_takes_numbers(value):
    assert checks.is_real(value)


@pytest.mark.parametrize("value", [True, "0.5", None, np.bool_(False)])
def test_is_real_refuses_bools_and_strings(value):
    assert not checks.is_real(value)


@pytest.mark.parametrize("check, bad, words", [
    (checks.check_deals, 0, "number of deals"), (checks.check_deals, True, "number of deals"),
    (checks.check_seed, -1, "seed"), (checks.check_seed, 1.7, "seed"),
    (checks.check_block_size, 0, "block size"), (checks.check_min_deals, -3, "min_deals"),
    (checks.check_workers, False, "number of workers"), (checks.check_precision, True, "precision"),
    (checks.check_precision, float("nan"), "precision"), (checks.check_every, 0, "checkpoint-every"),
    (checks.check_every, float("inf"), "checkpoint-every"),
])
def test_checks_name_the_bad_value(check, bad, words):
    with pytest.raises(ValueError, match=words) as e:
        check(bad)
    assert repr(bad) in str(e.value)


# isinstance(x, bool) or not isinstance(x, ...), and isinstance(x, (int, ...)) and not isinstance(x, bool)
BOOL_OR_NOT = re.compile(r"isinstance\((\w+), bool\) or not isinstance\(\1\b")
NOT_BOOL = re.compile(r"isinstance\((\w+), \(int\b.*not isinstance\(\1, bool\)")


def test_the_bool_or_not_isinstance_check_is_written_once():
    assert BOOL_OR_NOT.search("if isinstance(k, bool) or not isinstance(k, (int, np.integer)):")
    assert NOT_BOOL.search("if isinstance(n, (int, np.integer)) and not isinstance(n, bool) \\")
    root = ENGINE.parent.parent
    hits = []
    for path in [*(root / "simcore").rglob("*.py"), *(root / "strategies").rglob("*.py")]:
        if path == ENGINE / "checks.py":  # the one place
            continue
        text = path.read_text(encoding="utf-8")
        for i, line in enumerate(text.splitlines(), 1):
            if BOOL_OR_NOT.search(line) or NOT_BOOL.search(line):
                hits.append(f"{path.relative_to(root)}:{i}")
    assert hits == [], "use simcore.engine.checks.is_whole / is_real: " + ", ".join(hits)
