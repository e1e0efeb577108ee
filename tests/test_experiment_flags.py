"""Every game's experiment takes ``--seed``, and Sviten's reaches its studies and its provenance; a bad
seed or worker count is refused by name before any study runs."""
import json

import pytest

from experiments import estonian_pass, main as main_job, russian_placement, slovak_exchange, solved, sviten_draw, \
    tapiola_discards

TINY = dict(policy_players=[3], policy_deals=600, open_deals=600, chart_deals=600, open_chart_deals=600,
            halves_deals=600, reshuffle_players=[5], reshuffle_deals=600)  # sviten_draw's QUICK, tiny

GAMES = [estonian_pass, slovak_exchange, tapiola_discards, sviten_draw, russian_placement, solved]


@pytest.mark.parametrize("module", GAMES, ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_every_game_experiment_takes_a_seed(module, capsys):
    with pytest.raises(SystemExit) as e:
        module.main(["--help"])
    assert e.value.code == 0 and "--seed" in capsys.readouterr().out


def test_the_sviten_experiment_plays_the_seed_it_is_given(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(sviten_draw, "QUICK", TINY)
    tables = {}
    for seed in (7, 8):
        out = tmp_path / str(seed)
        assert sviten_draw.main(["--seed", str(seed), "--threads", "1", "--out", str(out)]) == 0
        prov = json.loads((out / "provenance.json").read_text())
        assert prov["seed"] == seed and prov["threads"] == 1 and "--seed" in prov["command"]
        assert [(k, v["seed"]) for k, v in prov["studies"].items()] == [
            ("policies", seed), ("draw_chart", seed + 1), ("open_chart", seed + 2), ("halves", seed + 3),
            ("reshuffles", seed + 4)]
        tables[seed] = (out / "policies.csv").read_text()
    assert tables[7] != tables[8]  # other deals: the seed reached the studies
    # The same seed again plays the same deals.
    again = tmp_path / "again"
    assert sviten_draw.main(["--seed", "7", "--threads", "1", "--out", str(again)]) == 0
    assert (again / "policies.csv").read_text() == tables[7]


BAD = [("--threads", "0", "must be a positive integer, got '0'"),
       ("--workers", "-2", "must be a positive integer, got '-2'"),
       ("--threads", "two", "must be a positive integer, got 'two'"),
       ("--seed", "-1", "must be a non-negative integer, got '-1'")]


@pytest.mark.parametrize("module, flag, value, want",
                         [(m, *bad) for m in GAMES for bad in BAD]
                         + [(main_job, *bad) for bad in BAD if bad[0] != "--seed"],  # each experiment's own seed
                         ids=lambda x: x.__name__.rsplit(".", 1)[1] if hasattr(x, "__name__") else None)
def test_a_bad_seed_or_worker_count_is_refused_by_name_before_any_study(module, flag, value, want, monkeypatch,
                                                                         tmp_path, capsys):
    monkeypatch.chdir(tmp_path)  # whatever a study wrote would land here
    args = [flag, value] + (["--results" if module is main_job else "--out", str(tmp_path / "out")])
    with pytest.raises(SystemExit) as e:
        module.main(args)
    err = capsys.readouterr().err
    assert e.value.code == 2 and f"argument {flag}: {want}" in err
    assert not any(tmp_path.rglob("*.*"))  # refused before any study ran


def test_the_estonian_experiment_keeps_each_study_in_its_provenance(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(estonian_pass, "QUICK", dict(players=[3], deals={"cheap": 2000, "potential": 1000,
                                                                          "rollout": 200},
                                                      situation_players=6, situation_deals=400, rollout_k=4))
    assert estonian_pass.main(["--seed", "5", "--threads", "1", "--out", str(tmp_path)]) == 0
    prov = json.loads((tmp_path / "provenance.json").read_text())
    assert prov["seed"] == 5 and prov["threads"] == 1 and prov["mode"] == "quick" and prov["baseline"]
    assert prov["studies"]["policies"]["seeds"] == {"3": 8} and prov["studies"]["rollout_pass"]["seed"] == 105
    assert all(tmp_path.joinpath(f).exists() for s in prov["studies"].values() for f in s["files"])


OUT = {estonian_pass: "estonian", slovak_exchange: "slovak", tapiola_discards: "tapiola", sviten_draw: "sviten",
       russian_placement: "russian"}


@pytest.mark.parametrize("module", list(OUT), ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_each_game_study_writes_under_the_repositorys_results_wherever_it_is_run_from(module, monkeypatch,
                                                                                      tmp_path):
    """Without ``--out`` a study writes to ``results/<game>`` of the repository, not of the working
    directory (Sviten's wrote beside wherever it was run until the forty-second session)."""
    from pathlib import Path

    class Begun(Exception):
        pass

    def begin(ap, args, argv, quick, full):
        raise Begun(args, ap.prog)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(module, "open_study", begin)
    with pytest.raises(Begun) as e:
        module.main([])
    args, prog = e.value.args
    assert Path(args.out) == Path(main_job.__file__).resolve().parents[1] / "results" / OUT[module]
    assert prog == f"python -m {module.__name__}" and not args.full


@pytest.mark.parametrize("name", ["bench_slovak", "bench_sviten", "bench_tapiola", "bench_russian"])
@pytest.mark.parametrize("flag, value", [("--players", "0"), ("--deals", "-1"), ("--py-deals", "many"),
                                         ("--repeat", "0"), ("--seed", "-3")])
def test_a_peer_benchmark_refuses_a_bad_value_by_name_before_timing(name, flag, value, capsys):
    import importlib

    bench = importlib.import_module(f"experiments.{name}")
    with pytest.raises(SystemExit) as e:
        bench.main([flag, value])
    err = capsys.readouterr().err
    assert e.value.code == 2 and f"argument {flag}: must be a" in err and repr(value) in err
