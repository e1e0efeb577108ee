"""Reference code that lives with the tests, for the benchmarks that time it.

An implementation the tests compare pvsim against (the policy code as it was
before issue 13, a plain-Python game) lives under ``tests/``; a benchmark that
also times it beside pvsim loads it from there with :func:`from_tests`, so
there is one copy. The benchmarks that need one therefore run from a source
checkout.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"


def from_tests(name: str):
    """The module ``tests/<name>.py``, imported once (as ``name``, as the tests import it)."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    path = TESTS / f"{name}.py"
    if not path.exists():
        raise SystemExit(f"this benchmark's reference code is {path}, which this installation lacks: "
                         "run it from a source checkout of pvsim")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
