"""experiments.sizes: the usual table sizes and the ``GAME:PLAYERS`` specs of every solving
experiment's ``--games``; a bad spec is refused by name before anything runs."""
from __future__ import annotations

import argparse

import pytest

from experiments import sizes


def test_the_usual_sizes_are_the_shipped_tables():
    from strategies.solved import shipped_tables

    shipped = {f"{tf.game}:{tf.n_players}" for tf in shipped_tables()}
    assert set(sizes.USUAL) == shipped and len(sizes.USUAL) == len(shipped)


@pytest.mark.parametrize("spec, want", [("russian:4", ("russian", 4)), ("estonian", ("estonian", 6)),
                                        (" tapiola:9 ", ("tapiola", 9)), ("sviten:2", ("sviten", 2))])
def test_a_spec_splits_into_game_and_players(spec, want):
    assert sizes.split(spec) == want
    assert sizes.size(spec) == f"{want[0]}:{want[1]}"


@pytest.mark.parametrize("spec, words", [
    ("estonain:6", ["unknown game 'estonain'", "'estonain:6'", "estonian"]),
    ("russian:four", ["'russian:four'", "not a whole number", "'four'"]),
    ("russian:", ["'russian:'", "not a whole number"]),
    ("russian:5", ["'russian:5'", "2 to 4 players", "got 5"]),
    ("slovak:1", ["'slovak:1'", "got 1"]),
    ("russian", ["'russian'", "2 to 4 players", "got 6"]),  # a bare name is at 6 players, checked as well
])
def test_a_bad_spec_is_an_error_that_names_it(spec, words):
    with pytest.raises(argparse.ArgumentTypeError) as e:
        sizes.split(spec)
    for w in words:
        assert w in str(e.value)


def test_a_list_of_specs_is_checked_item_by_item():
    assert sizes.size_list("estonian:6, russian:3,") == ["estonian:6", "russian:3"]
    with pytest.raises(argparse.ArgumentTypeError, match="'russian:6'"):
        sizes.size_list("estonian:6,russian:6")


@pytest.mark.parametrize("module, argv", [
    ("experiments.seats", ["--games", "estonian:6,russain:4"]),
    ("experiments.bench_finer", ["--games", "russain:4"]),
    ("experiments.bench_solve", ["--games", "russain:4"]),
    ("experiments.bench_exploit", ["--games", "russain:4"]),
    ("experiments.bench_tables", ["--games", "russain:4"]),
    ("experiments.exploitability", ["--games", "russain:4"]),
])
def test_every_solving_experiment_refuses_a_bad_spec_before_it_runs(module, argv, capsys, monkeypatch, tmp_path):
    import importlib

    monkeypatch.chdir(tmp_path)  # nothing may be written; were it, it would land here
    mod = importlib.import_module(module)
    with pytest.raises(SystemExit) as e:
        mod.main(argv)
    assert e.value.code == 2  # argparse's usage error, not a traceback from inside a run
    err = capsys.readouterr().err
    assert "unknown game 'russain'" in err and "--games" in err
    assert list(tmp_path.iterdir()) == []
