"""The contract every game keeps: simcore.testing.check_variant on every registered game.

The games are those of the registry (``variant_classes()``: the built-in ones,
any installed plug-in) plus the toy game, each with its default options and
every other value of each rule option. check_variant plays each the way the
engine will: random legal play never fails, per-deal payoffs add up, wins and
ties are consistent, every decision is taken, observations are the declared
ones, forced actions are played, hidden cards never reach a strategy, rollout
situations reproduce what the deciding seat saw, 1 and 2 threads give the same
numbers, and the instance keeps no state (see simcore/testing.py).
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import simcore.variants
from simcore.engine import Variant
from simcore.testing import check_variant, variant_instances
from simcore.variants import variant_classes
from toy_variant import TrumpPoints, register_toy, unregister_toy


@pytest.fixture(scope="module", autouse=True)
def toy():
    register_toy()
    yield
    unregister_toy()


def _checked_classes():
    """The registry's games (the toy added: it registers only while these tests run)."""
    classes = dict(variant_classes())
    classes.setdefault(TrumpPoints.name, TrumpPoints)
    return classes


INSTANCES = [v for cls in _checked_classes().values() for v in variant_instances(cls)]


@pytest.mark.parametrize("variant", INSTANCES, ids=[v.label for v in INSTANCES])
def test_the_contract_holds(variant):
    assert check_variant(variant) == [variant.label]


def _games_in_the_package():
    """Every Variant subclass defined in a module of simcore/variants, found by reading the
    package, not the registry: a game module that is not registered fails the test below."""
    found = {}
    for info in pkgutil.iter_modules(simcore.variants.__path__):
        module = importlib.import_module(f"simcore.variants.{info.name}")
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, Variant) and obj is not Variant and obj.__module__ == module.__name__:
                found[obj.name] = obj
    return found


def test_every_registered_variant_is_checked():
    checked = {v.name for v in INSTANCES}
    in_package = _games_in_the_package()
    assert set(in_package) == {"holdem", "estonian", "slovak", "tapiola", "sviten", "russian"}
    # every game module of the package is registered, and every registered game is checked
    assert all(variant_classes().get(name) is cls for name, cls in in_package.items())
    assert set(variant_classes()) <= checked
    assert set(in_package) | {"toy"} <= checked
    # and every rule option's other values are among the instances
    assert {v.label for v in INSTANCES} >= {"tapiola(scoring=points)", "tapiola(lowball=True)", "tapiola(burn=True)"}
