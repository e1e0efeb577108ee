"""Done-when of issue 19: a game written from docs/architecture.md alone, in its own
module outside the repository, is a plug-in.

The test writes the game into a temporary directory with a minimal installed
distribution (``sparecard-1.0.dist-info`` with ``entry_points.txt`` naming the
class in the group ``pvsim.variants``), puts that directory on the path (and
on PYTHONPATH for other processes), and checks that the game registers, shows
in ``pvsim variants`` and the CLI, runs through simulate, compare and analyze
on threads and on worker processes with the same numbers, and passes
``check_variant``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import strategies
import simcore
from simcore import analyze, compare, simulate
from simcore.engine import executors
from simcore.testing import check_variant
from simcore.variants import load_plugins, unregister_variant, variant_classes

GAME = textwrap.dedent('''
    """Spare Card: two hole cards and a face-down spare; each seat may take the spare in
    place of its lower hole card. Best five of the two hole cards and the board; one pot."""
    import numpy as np

    import strategies
    from simcore.cards import card_to_str
    from simcore.engine import Decision, Field, Obs, Outcome, Situation, SlotLayout, Variant, private, public
    from simcore.evaluate import evaluate_hands

    STAND, TAKE = 0, 1


    class SpareCard(Variant):
        name = "sparecard"
        title = "Spare Card"
        min_players, max_players = 2, 9
        options = ()
        fields = (Field("spare", "the hero's spare card"),)
        layout = SlotLayout(private("hole", 2, fills="hand"), private("spare", 1),
                            public("flop", 3, fills="board"),
                            public("turn and river", 2, seen="none", fills="board"))
        decisions = (Decision("take", 2, ("stand", "take the spare"),
                              "after the flop: keep both hole cards, or take the spare for the lower one",
                              obs=(Obs("hole", "int8", ("n", 2)), Obs("spare", "int8", ("n",)),
                                   Obs("flop", "int8", ("n", 3)))),)

        def play(self, cards, n_players, table):
            P, n, lay = n_players, cards.shape[0], self.layout
            flop = cards[:, lay.slots("flop", P)]
            board = cards[:, lay.slots("flop", P) + lay.slots("turn and river", P)]
            legal = np.ones((n, 2), bool)
            values = np.empty((n, P), np.int32)
            for p in range(P):
                hole = cards[:, lay.slots("hole", P, p)]
                spare = cards[:, lay.slots("spare", P, p)[0]]
                take = table.act(p, "take", {"hole": hole, "spare": spare, "flop": flop, "legal": legal})
                low = np.argmin(hole >> 2, axis=1)
                kept = hole.copy()
                rows = np.flatnonzero(take == TAKE)
                kept[rows, low[rows]] = spare[rows]
                values[:, p] = evaluate_hands(np.concatenate([kept, board], axis=1))
            return Outcome.from_values(values)

        def setup(self, n_players, hand=None, board=None, seat=0, spare=None):
            known = np.array(self.known_slots(n_players, hand=hand, board=board, seat=seat))
            self.place(known, self.layout.slots("spare", n_players, seat), spare, "spare")
            return Situation(known)

        def analysis_label(self, decision, action, situation):
            card = int(situation.known[self.layout.slots("spare", situation.n_players, situation.seat)[0]])
            if action == TAKE and card >= 0:
                return f"take {card_to_str(card)}"
            return self.decision(decision).actions[action]

        def situation(self, decision, obs, n_players):
            P, seat, lay = n_players, int(obs["seat"]), self.layout
            known = np.full((obs["hole"].shape[0], self.n_slots(P)), -1, np.int8)
            known[:, lay.slots("hole", P, seat)] = obs["hole"]
            known[:, lay.slots("spare", P, seat)[0]] = obs["spare"]
            known[:, lay.slots("flop", P)] = obs["flop"]
            return known, {}


    @strategies.register("sparecard", "take", "higher", "take the spare when it outranks the lower hole card",
                         default=True, pure=True)
    def take_higher(obs, rng):
        return ((obs["spare"] >> 2) > (obs["hole"] >> 2).min(axis=1)).astype(np.int64)
''')


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """The game as an installed distribution in tmp_path, found through its entry point."""
    (tmp_path / "sparecard_game.py").write_text(GAME)
    dist = tmp_path / "sparecard-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: sparecard\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[pvsim.variants]\nsparecard = sparecard_game:SpareCard\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    executors.shutdown_processes()  # workers started before the plug-in was on the path
    yield tmp_path
    executors.shutdown_processes()
    if "sparecard" in variant_classes():
        unregister_variant("sparecard")
    strategies.unregister("sparecard", "take", "higher")
    sys.modules.pop("sparecard_game", None)


def _json(r):
    d = r.to_dict()
    d.pop("seconds")
    return d


def _cli(*args, cwd):
    out = subprocess.run([sys.executable, "-c", "import sys; from simcore.cli import main; sys.exit(main())", *args],
                         capture_output=True, text=True, cwd=cwd, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_a_game_from_the_docs_is_a_plug_in(plugin):
    assert load_plugins() == ["sparecard"]
    cls = variant_classes()["sparecard"]
    assert cls.__module__ == "sparecard_game" and simcore.get_variant("sparecard").n_slots(3) == 14

    # the CLI, in a fresh process that finds the entry point by itself
    listed = _cli("variants", cwd=plugin)
    assert "sparecard" in listed and "Spare Card" in listed
    shown = json.loads(_cli("analyze", "sparecard", "--players", "3", "--hand", "7c 2d", "--board", "Qs Js 4h",
                            "--spare", "Qd", "--deals", "4096", "--no-stop", "--no-progress", "--format", "json",
                            "--workers", "1", cwd=plugin))
    assert shown["variant"] == "sparecard" and {o["action"] for o in shown["options"]} == {"stand", "take Qd"}
    assert shown["best"] == "take Qd"  # a pair of queens beats seven high

    # simulate, compare and analyze on threads and on worker processes: the same numbers
    kw = dict(seed=3, block_size=1024, progress=False, workers=2)
    runs = {}
    for executor in ("threads", "processes"):
        results = (simulate("sparecard", 4, 8192, executor=executor, field="random", **kw),
                   compare("sparecard", 3, 8192, a="take=higher", b="random", executor=executor, **kw),
                   analyze("sparecard", 3, "7c 2d", "Qs Js 4h", extra={"spare": "Qd"}, n_deals=8192,
                           stop_early=False, executor=executor, **kw))
        assert [r.info.executor for r in results] == [executor] * 3
        runs[executor] = [_json(r) for r in results]
    assert runs["threads"] == runs["processes"]
    assert runs["threads"][0]["deals"] == 8192

    # and it keeps the contract
    assert check_variant(cls) == ["sparecard"]


def test_an_entry_point_must_name_its_class_by_the_games_name(tmp_path, monkeypatch):
    (tmp_path / "misnamed_game.py").write_text(GAME)
    dist = tmp_path / "misnamed-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: misnamed\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[pvsim.variants]\nother = misnamed_game:SpareCard\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(ValueError, match="entry point 'other' names class SpareCard whose name is 'sparecard'"):
            load_plugins()
    finally:
        strategies.unregister("sparecard", "take", "higher")
        sys.modules.pop("misnamed_game", None)


def test_the_plug_in_example_in_the_docs_keeps_the_contract(tmp_path, monkeypatch):
    # docs/architecture.md's complete plug-in (Pick High), run as written
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "architecture.md").read_text()
    code = re.search(r"```python\n# pickhigh/game\.py\n(.*?)```", doc, re.S).group(1)
    (tmp_path / "pickhigh_game.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        from pickhigh_game import PickHigh

        assert check_variant(PickHigh) == ["pickhigh"]
        assert PickHigh().hidden_slots(2, 0) == [3, 4, 5, 9, 10]  # the other seat's hole cards, turn, river
    finally:
        strategies.unregister("pickhigh", "drop", "lowest")
        sys.modules.pop("pickhigh_game", None)


def test_a_game_registered_by_the_caller_only_runs_on_worker_processes():
    # the toy game is registered in this process alone (register_variant, no entry point):
    # a worker imports its module, registers the class there, and plays the same numbers
    from toy_variant import register_toy, unregister_toy

    register_toy()
    try:
        kw = dict(seed=7, block_size=1024, progress=False, workers=2)
        runs = {}
        for executor in ("threads", "processes"):
            results = (simulate("toy", 3, 8192, executor=executor, **kw),
                       analyze("toy", 3, "As Kd 7c 2h", extra={"discarded": "7c"}, n_deals=8192, stop_early=False,
                               executor=executor, **kw))
            assert [r.info.executor for r in results] == [executor] * 2
            runs[executor] = [_json(r) for r in results]
        assert runs["threads"] == runs["processes"] and runs["threads"][1]["round"] == 1
    finally:
        unregister_toy()
        executors.shutdown_processes()


def test_a_worker_registers_a_game_it_does_not_know_by_name():
    # what a fresh worker process does with a run of a game the caller registered
    import numpy as np

    from simcore.engine.blocks import Job
    from toy_variant import TrumpPoints, register_toy, unregister_toy

    register_toy()
    try:
        v = simcore.get_variant("toy", bonus=5)
        desc = executors.describe(Job(v, 2, [strategies.lineup(v, 2)], np.full(8, -1, np.int8), 1, 64, [{}]))
        unregister_variant("toy")  # the worker knows the module, not the name
        assert "toy" not in variant_classes()
        job = executors.rebuild(desc)
        assert variant_classes()["toy"] is TrumpPoints and job.variant.opts == {"bonus": 5}
        assert job.variant is simcore.get_variant("toy", bonus=5)
    finally:
        unregister_toy()
