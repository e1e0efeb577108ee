"""pvsim played by a hostile user (issue 14).

Every class of the issue has a test here: numbers that must never be silently
wrong (block sizes, stopping too early, stopping rules, cheating strategies,
unchecked cards), finished work that must never be lost (--out, errors in a
strategy, interrupted output) and errors that must be clear (one line naming
the bad value, exit code 2, no traceback; a traceback only for a bug of ours,
with a request to report it). The property tests feed garbage to the parsers,
the ``known=`` check and the evaluator: every call returns the right values or
raises ValueError/TypeError with a message.
"""
from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simcore import analyze, compare, describe_hand, evaluate_hands, format_cards, parse_cards, simulate
from simcore.cli import main
from simcore.engine import StrategyError
from simcore.engine.runner import check_situation
from simcore.engine.stats import MIN_INTERVAL_DEALS, MIN_STOP_DEALS, Z95
from simcore.variants import all_variants, get_variant
from strategies.registry import register, unregister

AA_EXACT = 0.852037  # A♥A♦ against one random hand (REFERENCE_VALUES.md)


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def strict_json(text: str) -> dict:
    """json.loads that fails on NaN or Infinity (strict parsers reject them)."""
    def reject(token):
        raise AssertionError(f"non-standard JSON constant {token}")

    return json.loads(text, parse_constant=reject)


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


def decision_variants():
    return [v for v in all_variants().values() if v.decisions]


# -- wrong numbers accepted silently -------------------------------------------------


@pytest.mark.parametrize("size", [0, -5, 2.5, True, "64"])
def test_block_size_below_one_or_not_an_integer_is_rejected(size):
    with pytest.raises(ValueError, match="block size"):
        simulate("holdem", 2, 2000, block_size=size, progress=False)


@pytest.mark.parametrize("size", ["-5", "0"])
def test_cli_block_size_below_one_names_the_flag(capsys, size):
    code, out, err = run(capsys, "simulate", "holdem", "--block-size", size, "--deals", "2000")
    assert code == 2 and "--block-size" in err and size in err and out == ""


@pytest.mark.parametrize("n,size", [(1000, 300), (5, 1), (2000, 16384)])
def test_info_n_deals_is_the_deals_played(n, size):
    r = simulate("holdem", 2, n, block_size=size, threads=1, progress=False)
    assert r.info.n_deals == r.stats.n == n


def test_precision_stop_counts_the_deals_it_played():
    r = simulate("holdem", 2, 200_000, hand="Ah Ad", precision=0.01, block_size=500, threads=1, progress=False)
    assert r.info.n_deals == r.stats.n < 200_000


def test_precision_with_tiny_blocks_never_stops_on_a_lucky_start():
    # The issue's run: blocks of one deal, A♥A♦ stopped after 2 deals at 1.0000 ± 0.
    r = simulate("holdem", 2, 20_000, hand="Ah Ad", precision=0.01, block_size=1, threads=1, seed=0,
                 progress=False)
    share, se = r.table().share[0], r.table().stderr[0]
    assert r.stats.n >= MIN_STOP_DEALS and r.precision_reached
    assert Z95 * se <= 0.01 and se > 0
    assert abs(share - AA_EXACT) < 4 * se  # fixed seed, 4 standard errors


def test_one_deal_has_no_interval_rather_than_a_zero_width_one(capsys):
    r = simulate("holdem", 2, 1, progress=False)
    t = r.table()
    assert t.stderr.isna().all() and t.ci_low.isna().all() and r.small_sample
    code, out, _ = run(capsys, "simulate", "holdem", "--deals", "1", "--no-progress")
    assert code == 0 and "n/a" in out and f"fewer than {MIN_INTERVAL_DEALS} deals" in out
    code, out, _ = run(capsys, "simulate", "holdem", "--deals", "1", "--format", "json", "--no-progress")
    d = strict_json(out)
    assert d["small_sample"] is True and d["seats"][0]["stderr"] is None and d["seats"][0]["ci_low"] is None
    code, out, _ = run(capsys, "simulate", "holdem", "--deals", "50", "--format", "csv", "--no-progress")
    assert out.splitlines()[0].endswith("deals,interrupted,small_sample")
    assert out.splitlines()[1].endswith("50,False,True")
    code, out, _ = run(capsys, "simulate", "holdem", "--deals", "50", "--format", "markdown", "--no-progress")
    assert "*50 deals*" in out and "fewer than" in out


def test_enough_deals_carry_no_small_sample_mark(capsys):
    code, out, _ = run(capsys, "simulate", "holdem", "--deals", str(MIN_INTERVAL_DEALS), "--no-progress")
    assert code == 0 and "note:" not in out


def test_analyze_min_deals_zero_declares_no_winner_after_a_handful():
    r = analyze("estonian", 3, "As Ks 7d", "Qs Js 4h", min_deals=0, n_deals=50_000, block_size=7, threads=1,
                progress=False)
    assert r.stats.n >= MIN_STOP_DEALS
    few = analyze("estonian", 3, "As Ks 7d", "Qs Js 4h", n_deals=7, stop_early=False, threads=1,
                  progress=False)
    assert not few.separated and few.small_sample and few.to_dict()["small_sample"] is True


def test_cli_analyze_with_few_deals_says_not_separated(capsys):
    code, out, _ = run(capsys, "analyze", "estonian", "--players", "3", "--hand", "As Ks 7d", "--board",
                       "Qs Js 4h", "--min-deals", "0", "--deals", "7", "--no-progress")
    assert code == 0 and "NOT separated" in out and "fewer than" in out


@pytest.mark.parametrize("precision", [0, -1, float("nan"), float("inf"), True])
def test_compare_and_analyze_reject_what_simulate_rejects(precision):
    for call in (lambda: simulate("holdem", 2, 100, precision=precision, progress=False),
                 lambda: compare("estonian", 3, 100, a="pass=lowest", b="pass=highest", precision=precision,
                                 progress=False)):
        with pytest.raises(ValueError, match="precision"):
            call()


@pytest.mark.parametrize("precision", ["0", "-1", "nan", "inf"])
def test_cli_compare_rejects_bad_precision_naming_the_flag(capsys, precision):
    code, _, err = run(capsys, "compare", "estonian", "--a", "pass=lowest", "--b", "pass=highest",
                       "--precision", precision)
    assert code == 2 and "--precision" in err and precision in err


def test_a_run_that_stops_at_the_cap_says_precision_was_not_reached(capsys):
    r = simulate("holdem", 2, 2000, precision=1e-4, progress=False)
    assert r.precision_reached is False and r.to_dict()["precision_reached"] is False
    c = compare("estonian", 3, 2000, a="pass=lowest", b="pass=highest", precision=1e-5, progress=False)
    assert c.precision_reached is False and c.to_dict()["precision_reached"] is False
    ok = simulate("holdem", 2, 200_000, precision=0.02, progress=False)
    assert ok.precision_reached is True and ok.stats.n < 200_000
    assert simulate("holdem", 2, 2000, progress=False).to_dict()["precision_reached"] is None
    base = ["holdem", "--deals", "2000", "--precision", "0.0001", "--no-progress"]
    code, out, _ = run(capsys, "simulate", *base)
    assert code == 0 and "NOT reached" in out
    code, out, _ = run(capsys, "simulate", *base, "--format", "json")
    assert strict_json(out)["precision_reached"] is False
    code, out, _ = run(capsys, "simulate", *base, "--format", "csv")
    assert out.splitlines()[0].endswith("precision_reached") and out.splitlines()[1].endswith("False")
    code, out, _ = run(capsys, "simulate", *base, "--format", "markdown")
    assert "NOT reached" in out
    code, out, _ = run(capsys, "compare", "estonian", "--a", "pass=lowest", "--b", "pass=highest", "--deals",
                       "2000", "--precision", "0.00001", "--no-progress")
    assert code == 0 and "NOT reached" in out


# -- cheating strategies --------------------------------------------------------------


def _writer(obs, rng):
    """Tries every way of writing what it was given that numpy offers, swallowing refusals
    (all but ``legal``: the game's own state is the target)."""
    for key, a in obs.items():
        if isinstance(a, np.ndarray) and key != "legal":
            try:
                a.flags.writeable = True
            except ValueError:
                pass
            try:
                a[...] = 0
            except ValueError:
                pass
    return first_legal(obs, rng)


@pytest.mark.parametrize("v", decision_variants(), ids=lambda v: v.name)
def test_writes_to_observations_never_reach_the_game(v, registered):
    # Every decision of every variant: the writer plays exactly as the honest
    # first-legal strategy does, bit for bit.
    honest = {d.name: registered(v.name, d.name, "test-first-legal", first_legal) for d in v.decisions}
    writer = {d.name: registered(v.name, d.name, "test-writer", _writer) for d in v.decisions}
    spec = lambda names: ",".join(f"{d}={p}" for d, p in names.items())  # noqa: E731
    a = simulate(v, v.min_players, 3000, hero=spec(honest), field=spec(honest), threads=1, progress=False)
    b = simulate(v, v.min_players, 3000, hero=spec(writer), field=spec(writer), threads=1, progress=False)
    assert np.array_equal(a.stats.share_sum, b.stats.share_sum)
    assert np.array_equal(a.stats.categories, b.stats.categories)


@pytest.mark.parametrize("v", decision_variants(), ids=lambda v: v.name)
def test_a_strategy_that_unlocks_what_is_behind_its_view_gets_an_error_naming_it(v, registered):
    def unlock(obs, rng):
        for a in obs.values():
            if isinstance(a, np.ndarray):
                x = a.base.obj if isinstance(a.base, memoryview) else a
                while isinstance(x, np.ndarray):
                    try:
                        x.flags.writeable = True
                    except ValueError:
                        pass
                    x = x.base
        return first_legal(obs, rng)

    d = v.decisions[0].name
    registered(v.name, d, "test-unlock", unlock)
    with pytest.raises(StrategyError, match=rf"'test-unlock' for {d} .*writeable"):
        simulate(v, v.min_players, 500, hero=f"{d}=test-unlock", threads=1, progress=False)


def test_the_issue_estonian_discard_cheat_is_caught(registered, capsys):
    def cheat(obs, rng):
        obs["hand"].flags.writeable = True  # the usual fix people find for numpy's read-only error
        obs["hand"][:, 0] = 51
        return np.full(len(obs["legal"]), 2, np.int64)

    registered("estonian", "discard", "test-cheat", cheat)
    with pytest.raises(StrategyError, match="'test-cheat' for discard .*read-only"):
        simulate("estonian", 6, 2000, hero="discard=test-cheat", progress=False)
    code, _, err = run(capsys, "simulate", "estonian", "--players", "6", "--hero", "discard=test-cheat",
                       "--deals", "2000", "--no-progress")
    assert code == 2 and "test-cheat" in err and "Traceback" not in err


def test_kept_observations_stay_snapshots(registered):
    # The guard must not undo copy-on-write: a Slovak strategy that keeps what
    # it saw finds it unchanged after later seats acted.
    kept = []

    def keeper(obs, rng):
        kept.append((obs["up"], obs["up"].copy()))
        return first_legal(obs, rng)

    registered("slovak", "exchange1", "test-keeper", keeper)
    simulate("slovak", 4, 300, hero="exchange1=test-keeper", field="exchange1=test-keeper", threads=1,
             progress=False)
    assert kept and all(np.array_equal(a, b) for a, b in kept)


# -- unchecked cards -----------------------------------------------------------------


@pytest.mark.parametrize("value,dtype", [(300, np.int16), (1.7, np.float64), (-5, np.int8), (52, np.int64)])
def test_known_rejects_cards_it_would_wrap_or_truncate(value, dtype):
    v = get_variant("holdem")
    known = np.full(v.n_slots(2), -1).astype(dtype)
    known[0] = value
    with pytest.raises((ValueError, TypeError), match="slot|integer"):
        simulate("holdem", 2, 100, known=known, progress=False)


def test_known_takes_good_cards_as_given():
    v = get_variant("holdem")
    known = np.full(v.n_slots(2), -1, np.int64)
    known[:2] = parse_cards("Ah Ad")
    r = simulate("holdem", 2, 20_000, known=known, seed=1, progress=False)
    assert abs(r.table().share[0] - AA_EXACT) < 4 * r.table().stderr[0]  # fixed seed, 4 standard errors


def test_unchecked_evaluation_of_negative_cards_does_not_crash_the_process():
    # Owned by issue 13's fused check (simcore/evaluate.py, simcore/kernels.py):
    # with check=False, bad cards must not read outside the tables.
    code = ("import numpy as np; from simcore import evaluate_hands\n"
            "cards = np.array([[-100, -3, -50, -7, -9, -120, -128]] * 1000, np.int8)\n"
            "try:\n    evaluate_hands(cards, check=False)\nexcept ValueError as e:\n    print(e)\n"
            "print('alive')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "alive" in out.stdout, (out.returncode, out.stderr[-500:])


# -- finished work lost -----------------------------------------------------------------


def test_out_to_a_path_that_cannot_be_written_fails_before_the_run(capsys, tmp_path):
    # 10**9 deals: the check must come first, or this test would not end.
    for path in (tmp_path / "no" / "such" / "r.json", tmp_path):
        code, out, err = run(capsys, "simulate", "holdem", "--deals", str(10**9), "--out", str(path),
                             "--no-progress")
        assert code == 2 and "--out" in err and str(path) in err and out == ""


def test_a_finished_result_is_printed_when_writing_fails(capsys, tmp_path, monkeypatch):
    import simcore.cli

    monkeypatch.setattr(simcore.cli, "_check_out", lambda path, flag="--out": None)  # the disk fails after the check
    path = tmp_path / "gone" / "r.json"
    code, out, err = run(capsys, "simulate", "holdem", "--deals", "2000", "--format", "json", "--out",
                         str(path), "--no-progress")
    assert code == 2 and "could not write" in err and "Traceback" not in err
    assert strict_json(out)["deals"] == 2000


def _fails_on_call(k: int, exc):
    calls = []

    def strategy(obs, rng):
        calls.append(1)
        if len(calls) >= k:
            raise exc
        return first_legal(obs, rng)

    return strategy


def test_an_error_in_a_user_strategy_names_it_and_keeps_the_finished_blocks(registered, capsys):
    registered("estonian", "pass", "test-boom", _fails_on_call(4, ZeroDivisionError("division by zero")))
    with pytest.raises(StrategyError, match=r"'test-boom' for pass \(seat 0, round 0\) raised ZeroDivisionError") \
            as e:
        simulate("estonian", 3, 5000, hero="pass=test-boom", block_size=500, threads=1, progress=False)
    assert e.value.partial_result.n_deals == 1500
    registered("estonian", "discard", "test-boom2", _fails_on_call(3, KeyError("x")))
    code, out, err = run(capsys, "simulate", "estonian", "--players", "3", "--hero", "discard=test-boom2",
                         "--deals", "5000", "--block-size", "500", "--threads", "1", "--no-progress")
    assert code == 2 and "Traceback" not in err
    assert "finished before the error (1,000 deals)" in err and "share" in err
    assert err.strip().splitlines()[-1].startswith("pvsim simulate: error: strategy 'test-boom2' for discard")


def test_an_error_in_a_built_in_policy_is_a_bug_with_a_traceback(registered, capsys):
    def broken(obs, rng):
        raise RuntimeError("a bug of ours")

    broken.__module__ = "strategies.pretend_builtin"
    registered("estonian", "pass", "test-builtin-bug", broken)
    with pytest.raises(RuntimeError, match="a bug of ours"):
        simulate("estonian", 3, 500, hero="pass=test-builtin-bug", threads=1, progress=False)
    code, _, err = run(capsys, "simulate", "estonian", "--players", "3", "--hero", "pass=test-builtin-bug",
                       "--deals", "500", "--threads", "1", "--no-progress")
    assert code == 1 and "Traceback" in err and "bug in pvsim" in err and "report" in err


@pytest.mark.parametrize("fmt", ["json", "csv", "markdown", "table"])
def test_interrupted_before_the_first_block_every_format_says_so(registered, capsys, fmt):
    registered("estonian", "pass", "test-ctrl-c", _fails_on_call(1, KeyboardInterrupt()))
    code, out, _ = run(capsys, "simulate", "estonian", "--players", "3", "--hero", "pass=test-ctrl-c",
                       "--deals", "5000", "--threads", "1", "--format", fmt, "--no-progress")
    assert code == 130
    if fmt == "json":
        d = strict_json(out)  # null, never NaN
        assert d["interrupted"] is True and d["deals"] == 0 and d["seats"][0]["share"] is None
    elif fmt == "csv":
        assert out.splitlines()[0].endswith("deals,interrupted,small_sample")
        assert out.splitlines()[1].endswith("0,True,True")
    elif fmt == "markdown":
        assert "*0 deals, interrupted*" in out
    else:
        assert "interrupted: 0 deals finished" in out


@pytest.mark.parametrize("fmt", ["json", "csv", "markdown"])
def test_interrupted_compare_carries_deals_and_flag(registered, capsys, fmt):
    registered("estonian", "pass", "test-ctrl-c", _fails_on_call(3, KeyboardInterrupt()))  # one call a block
    code, out, _ = run(capsys, "compare", "estonian", "--players", "3", "--a", "pass=test-ctrl-c", "--b",
                       "pass=highest", "--deals", "5000", "--block-size", "500", "--threads", "1",
                       "--format", fmt, "--no-progress")
    assert code == 130
    if fmt == "json":
        d = strict_json(out)
        assert d["interrupted"] is True and d["deals"] == 1000
    elif fmt == "csv":
        assert out.splitlines()[0].endswith("deals,interrupted,small_sample")
        assert all(line.endswith("1000,True,False") for line in out.splitlines()[1:])
    else:
        assert "*1,000 deals, interrupted*" in out


def test_compare_csv_has_the_deal_count(capsys):
    code, out, _ = run(capsys, "compare", "estonian", "--a", "pass=lowest", "--b", "pass=highest", "--deals",
                       "3000", "--format", "csv", "--no-progress")
    assert code == 0 and "deals" in out.splitlines()[0].split(",")
    assert all(",3000," in line for line in out.splitlines()[1:])


# -- unclear errors -------------------------------------------------------------------------


HOSTILE_ARGV = [
    (["simulate", "estonian", "--hero", "pass=random:3"], "'random:3'"),
    (["simulate", "estonian", "--hero", "pass=rollout:x"], "'rollout:x'"),
    (["simulate", "estonian", "--hero", "pass=rollout:8:lowest:9"], "'rollout:8:lowest:9'"),
    (["eval", "As Ks Qs Js"], "has 4 cards; a hand to evaluate has 5 to 7"),
    (["eval", "As Ks Qs Js Ts", "2c 3c 4c 5c"], "hand 2 of 2"),
    (["eval", "As Ks Qs Js Ts", "As Kx 2c 3c 4c"], "hand 2 of 2"),
    (["simulate", "holdem", "--seed", "-1"], "--seed"),
    (["simulate", "holdem", "--deals", "0"], "--deals"),
    (["simulate", "holdem", "--block-size", "0"], "--block-size"),
    (["simulate", "holdem", "--precision", "nan"], "--precision"),
    (["analyze", "estonian", "--hand", "As Ks 7d", "--min-deals", "-1"], "--min-deals"),
    (["simulate", "holdem", "--hand", ""], "--hand is empty"),
    (["simulate", "holdem", "--board", "  "], "--board is empty"),
    (["analyze", "estonian", "--players", "3", "--hand", "As Ks 7d", "--passed", ""], "--passed is empty"),
    (["simulate", "estonian", "--hero", "pass=lowest,pass=highest"], "pass twice"),
    (["simulate", "estonian", "--hero", "random,lowest"], "give one"),
    (["simulate", "estonian", "--hero", "pass=lowest", "--seat", "0=pass=highest"], "--seat 0"),
    (["simulate", "estonian", "--seat", "1=pass=lowest", "--seat", "1=pass=highest"], "--seat 1 is given twice"),
    (["compare", "estonian", "--a", "pass=lowest", "--b", "pass=highest", "--seat", "0=pass=random"],
     "hero seat"),
    (["simulate", "holdem", "--hero-seat", "5"], "seat 5"),
    (["demo", "--hands", "0"], "--hands"),
    (["simulate", "holdem", "--checkpoint", "/nonexistent-folder/run.ckpt"], "--checkpoint"),
    (["compare", "estonian", "--a", "", "--b", "pass=lowest"], "--a is empty"),
    (["simulate", "estonian", "--field", ","], "--field is empty"),
    (["simulate", "estonian", "--seat", "1="], "no policy spec"),
]


@pytest.mark.parametrize("argv,needle", HOSTILE_ARGV, ids=lambda x: " ".join(x) if isinstance(x, list) else "")
def test_user_errors_are_one_line_naming_the_value(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2 and needle in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and err.startswith(f"pvsim {argv[0]}: error: ")


def installed_pvsim():
    bindir = Path(sys.executable).parent  # not resolved: a venv's python is a link
    script = bindir / "pvsim"
    if not script.is_file():
        pytest.skip(f"the pvsim console script is not installed in {bindir}")
    return str(script)


@pytest.mark.parametrize("argv,needle", [
    (["simulate", "estonian", "--hero", "pass=random:3", "--deals", "100"], "'random:3'"),
    (["simulate", "holdem", "--block-size", "-5", "--deals", "2000"], "--block-size"),
    (["eval", "As Ks Qs Js"], "4 cards"),
    (["simulate", "holdem", "--deals", "10", "--out", "/nonexistent-folder/r.json"], "--out"),
])
def test_installed_pvsim_shows_no_traceback(argv, needle):
    out = subprocess.run([installed_pvsim(), *argv], capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and needle in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("call,needle", [
    (lambda: parse_cards([True, False]), "bool"),
    (lambda: parse_cards([1.0, 2]), "float"),
    (lambda: parse_cards(["As", 3]), "mix"),
    (lambda: simulate("holdem", 2, 100, threads=2.5, progress=False), "2.5"),
    (lambda: simulate("holdem", 2, 100, seed=1.7, progress=False), "1.7"),
    (lambda: simulate("holdem", 2, 100, seed=-1, progress=False), "-1"),
    (lambda: simulate("holdem", 2, 100, hand="", progress=False), "hand is empty"),
    (lambda: analyze("holdem", 2, "Ah Ad", " ", progress=False), "board is empty"),
    (lambda: simulate("estonian", 3, 100, hero="pass=lowest,pass=highest", progress=False), "twice"),
    (lambda: simulate("estonian", 3, 100, hero="pass=lowest", seats={0: "pass=highest"}, progress=False),
     "hero seat"),
    (lambda: compare("estonian", 3, 100, a="pass=lowest", b="pass=highest", seats={0: "discard=random"},
                     progress=False), "hero seat"),
    (lambda: simulate("estonian", 3, 100, hero=7, progress=False), "policy spec"),
    (lambda: simulate("estonian", 3, 100, seats=[1, 2], progress=False), "seats"),
    (lambda: simulate("estonian", 3, 100, field={"pass": 3}, progress=False), "policy spec"),
    (lambda: simulate("tapiola", 3, 100, match="yes", progress=False), "match"),
    (lambda: analyze("estonian", 3, "As Ks 7d", stop_early="no", progress=False), "stop_early"),
    (lambda: analyze("estonian", 3, "As Ks 7d", min_deals=None, progress=False), "min_deals"),
    (lambda: analyze("estonian", 3, "As Ks 7d", min_deals=1.5, progress=False), "min_deals"),
    (lambda: simulate("holdem", 2, 100, known="As", progress=False), "known slots"),
])
def test_api_inputs_that_must_fail(call, needle):
    with pytest.raises((ValueError, TypeError), match=needle):
        call()


def test_describe_hand_rejects_what_is_not_a_whole_number():
    for bad in (1.9, 4096.0, "5", True):
        with pytest.raises(TypeError, match="a hand value is a whole number"):
            describe_hand(bad)
    assert describe_hand(np.int32(4096 * 7 + 100)).startswith("four")


def test_a_bare_policy_beside_a_decision_is_not_a_conflict():
    r = simulate("estonian", 3, 200, hero="random,pass=lowest", progress=False)
    assert r.strategies[0] == "pass=lowest,discard=random"


# -- garbage in: right values or a clear error, never a crash --------------------------------

CARD_CHARS = "23456789TJQKAtjqka10cdhsCDHS♣♦♥♠♧♢♡♤ ,;-\u2013\ufe0fxZ!\t\n"
GARBAGE = st.one_of(
    st.none(), st.booleans(), st.integers(-300, 300), st.floats(allow_nan=True), st.text(max_size=6),
    st.binary(max_size=4),
)


def _clear(e: Exception) -> None:
    assert isinstance(e, (ValueError, TypeError)), type(e)
    assert str(e).strip(), "an error without a message"


@settings(max_examples=300)
@given(st.text(alphabet=CARD_CHARS, max_size=24))
def test_parse_cards_text_property(text):
    try:
        cards = parse_cards(text)
    except Exception as e:  # noqa: BLE001 - the property is about which errors
        _clear(e)
        return
    assert cards.dtype == np.int8 and cards.size and ((0 <= cards) & (cards < 52)).all()
    assert len(set(cards.tolist())) == cards.size
    assert parse_cards(format_cards(cards)).tolist() == cards.tolist()  # the right cards


@settings(max_examples=300)
@given(st.one_of(GARBAGE, st.lists(GARBAGE, max_size=6), st.lists(st.integers(-5, 60), max_size=8)))
def test_parse_cards_garbage_property(x):
    try:
        cards = parse_cards(x)
    except Exception as e:  # noqa: BLE001
        _clear(e)
        return
    assert isinstance(x, (list, str))
    if isinstance(x, list) and not all(isinstance(c, str) for c in x):
        assert all(type(c) is int for c in x) and cards.tolist() == x  # ints come back as given


@settings(max_examples=200)
@given(GARBAGE)
def test_describe_hand_property(x):
    try:
        text = describe_hand(x)
    except Exception as e:  # noqa: BLE001
        _clear(e)
        return
    assert isinstance(text, str) and text


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([np.int8, np.int16, np.int64, np.uint8, np.float64, np.bool_]),
       st.lists(st.integers(-300, 300), min_size=7, max_size=11),
       st.floats(-2, 60))
def test_known_slots_property(dtype, values, fractional):
    v = get_variant("holdem")  # 2 players: 9 slots
    raw = np.array(values, dtype=np.float64)
    if dtype is np.float64:
        raw[0] = fractional
    try:
        known = raw.astype(dtype)
    except (OverflowError, ValueError):
        return
    try:
        out = check_situation(v, 2, known)
    except Exception as e:  # noqa: BLE001
        _clear(e)
        return
    # Accepted: integers, the right length, each card or -1, as given, no repeats.
    assert known.dtype.kind in "iu" and known.shape == (9,)
    assert out.tolist() == known.tolist() and ((out >= -1) & (out < 52)).all()
    fixed = out[out >= 0]
    assert len(set(fixed.tolist())) == fixed.size


@settings(max_examples=150)
@given(st.integers(0, 4), st.integers(3, 8), st.sampled_from([np.int8, np.int16, np.int64, np.float64]),
       st.integers(0, 2**32 - 1), st.booleans())
def test_evaluate_hands_property(n, k, dtype, seed, valid):
    rng = np.random.default_rng(seed)
    if valid:
        cards = np.stack([rng.permutation(52)[:k] for _ in range(n)]) if n else np.zeros((0, k), int)
    else:
        cards = rng.integers(-130, 130, size=(n, k))
    cards = cards.astype(dtype)
    try:
        values = evaluate_hands(cards)
    except Exception as e:  # noqa: BLE001
        _clear(e)
        return
    assert k in (5, 6, 7) and cards.dtype.kind in "iu" and values.shape == (n,)
    # The right values: the best five-card subset of every row.
    for row, value in zip(cards, values):
        assert ((0 <= row) & (row < 52)).all() and len(set(row.tolist())) == k
        fives = np.array(list(itertools.combinations(row.tolist(), 5)), np.int8)
        assert value == evaluate_hands(fives).max()


def test_every_to_dict_is_strict_json_even_with_no_deals():
    # A run stopped before its first block has no means: null in the API's dicts too.
    import json

    from simcore.engine.runner import ComparisonResult, RunInfo, SimulationResult
    from simcore.engine.stats import PairedStats, SeatStats

    info = RunInfo(0, 0.0, True, 1, 0, 100)
    sim = SimulationResult("estonian", 3, 0, ["a", "b", "c"], SeatStats(3), info)
    cmp_ = ComparisonResult("estonian", 3, 0, "a", "b", "c", PairedStats(2), info)
    for r in (sim, cmp_):
        d = r.to_dict()
        json.dumps(d, allow_nan=False)
        assert d["deals"] == 0 and d["interrupted"] is True


def test_checkpoint_interval_must_be_positive(tmp_path):
    for bad in (-1, 0, float("nan"), "5"):
        with pytest.raises(ValueError, match="checkpoint_every"):
            simulate("estonian", 3, 100, progress=False, checkpoint=str(tmp_path / "c.ckpt"),
                     checkpoint_every=bad)


def test_out_over_an_old_file_keeps_it_whole_when_the_disk_fills(capsys, tmp_path, disk_full):
    path = tmp_path / "r.json"
    path.write_text("the old result\n")
    with disk_full():
        code, out, err = run(capsys, "simulate", "holdem", "--deals", "2000", "--format", "json", "--out",
                             str(path), "--no-progress")
    assert code == 2 and "could not write" in err and "disk full" in err and "Traceback" not in err
    assert strict_json(out)["deals"] == 2000  # the new result is on the screen ...
    assert path.read_text() == "the old result\n"  # ... and the old file is untouched, not cut short
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temporary file left behind
