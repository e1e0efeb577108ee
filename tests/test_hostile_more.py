"""pvsim played by a hostile user, the second round (issue 22).

The output and analysis items (units in every format, zero-deal runs, negative
zero, analyses with no question or no choice, what an analysis is conditioned
on, the help text) and the API and resource items (wrong types named as types,
strategies that return nothing or raise KeyboardInterrupt, block sizes beyond
the machine's memory, ``--seat -1``). Every test failed before its fix.
"""
from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from simcore import analyze, simulate
from simcore.cli import build_parser, main
from simcore.engine import StrategyError
from strategies.registry import register, unregister


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def one_line_error(code, err, command, needle):
    assert code == 2 and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1 and err.startswith(f"pvsim {command}: error: "), err
    assert needle in err, err


@pytest.fixture
def registered():
    """Register test strategies by (variant, decision, name); all removed afterwards."""
    names = []

    def add(variant, decision, name, fn):
        register(variant, decision, name, "a test strategy")(fn)
        names.append((variant, decision, name))
        return name

    yield add
    for key in names:
        unregister(*key)


def first_legal(obs, rng):
    return np.argmax(obs["legal"], axis=1).astype(np.int64)


# -- help ------------------------------------------------------------------------------------


def test_no_help_text_shows_a_doubled_percent_sign():
    parser = build_parser()
    texts = {"pvsim": parser.format_help()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            texts.update({name: sub.format_help() for name, sub in action.choices.items()})
    assert "analyze" in texts and all("%%" not in t for t in texts.values()), \
        [name for name, t in texts.items() if "%%" in t]
    assert "separated at 95%." in texts["analyze"]


# -- the API: types named as types ----------------------------------------------------------


@pytest.mark.parametrize("players", [4.0, "4", np.float64(4), True])
def test_a_player_count_of_the_wrong_type_is_blamed_on_the_type(players):
    with pytest.raises(ValueError, match="whole number") as e:
        simulate("sviten", players, 100, progress=False)
    assert repr(players) in str(e.value) and type(players).__name__ in str(e.value)
    assert "takes 2 to 9" not in str(e.value)  # not blamed on the range


def test_a_player_count_out_of_range_still_names_the_range():
    with pytest.raises(ValueError, match="takes 2 to 9 players, got 12"):
        simulate("sviten", 12, 100, progress=False)


@pytest.mark.parametrize("call,needle", [
    (lambda: simulate("tapiola", 3, 100, options="points", progress=False), "options"),
    (lambda: simulate("tapiola", 3, 100, options=["scoring", "points"], progress=False), "options"),
    (lambda: analyze("estonian", 3, "As Ks 7d", extra="7d", progress=False), "extra"),
])
def test_options_and_fields_that_are_not_dicts_get_a_clear_error(call, needle):
    with pytest.raises(ValueError, match=needle) as e:
        call()
    assert "must be a dict" in str(e.value) and "**" not in str(e.value)


# -- strategies that answer with nothing ---------------------------------------------------


@pytest.mark.parametrize("answer,kind", [
    (lambda obs: None, "NoneType"),
    (lambda obs: (a for a in np.argmax(obs["legal"], axis=1)), "generator"),
    (lambda obs: 0, "int"),
])
def test_a_strategy_returning_no_array_is_named_with_the_type_it_returned(registered, answer, kind):
    registered("estonian", "pass", "test-no-array", lambda obs, rng: answer(obs))
    with pytest.raises(StrategyError, match=f"'test-no-array' for pass .* returned {kind}") as e:
        simulate("estonian", 3, 200, hero="pass=test-no-array", threads=1, progress=False)
    assert "shape ()" not in str(e.value)


def test_a_strategy_returning_the_wrong_length_still_names_the_shape(registered):
    registered("estonian", "pass", "test-short", lambda obs, rng: first_legal(obs, rng)[:-1])
    with pytest.raises(StrategyError, match=r"returned shape \(199,\); expected \(200,\)"):
        simulate("estonian", 3, 200, hero="pass=test-short", threads=1, progress=False)


# -- --seat -1 -------------------------------------------------------------------------------


@pytest.mark.parametrize("seat", ["-1", "3", "-7"])
def test_a_seat_off_the_table_is_named_with_the_table_seats(capsys, seat):
    code, _, err = run(capsys, "simulate", "estonian", "--players", "3", "--seat", f"{seat}=pass=highest",
                       "--deals", "100", "--no-progress")
    one_line_error(code, err, "simulate", f"--seat {seat}: seats are 0..2")


def test_a_seat_spec_that_is_no_number_is_still_refused_as_such(capsys):
    code, _, err = run(capsys, "simulate", "estonian", "--players", "3", "--seat", "-x=pass=highest",
                       "--deals", "100", "--no-progress")
    one_line_error(code, err, "simulate", "--seat takes K=SPEC")


# -- analyses without a question -----------------------------------------------------------


SVITEN = ["analyze", "sviten", "--players", "2", "--hand", "Qs Qd 9c 5h 2s", "--board", "Qh 8d 7s"]


def test_sviten_open_without_the_open_card_asks_for_it(capsys):
    code, out, err = run(capsys, *SVITEN, "--decision", "open", "--no-progress")
    one_line_error(code, err, "analyze", "--open CARD")
    assert out == ""
    with pytest.raises(ValueError, match="open"):
        analyze("sviten", 2, "Qs Qd 9c 5h 2s", "Qh 8d 7s", decision="open", progress=False)


def test_sviten_open_with_the_open_card_still_analyses_it(capsys):
    r = analyze("sviten", 2, "Qs Qd 9c 5h 2s", "Qh 8d 7s", extra={"open": "9h"}, n_deals=4000,
                stop_early=False, progress=False)
    assert r.decision == "open" and sorted(r.labels) == ["keep 9h", "refuse 9h"]
