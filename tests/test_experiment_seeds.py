"""Every game's experiment takes ``--seed``, and Sviten's reaches its studies and its provenance."""
import json

import pytest

from experiments import estonian_pass, russian_placement, slovak_exchange, sviten_draw, tapiola_discards

TINY = dict(policy_players=[3], policy_deals=600, open_deals=600, chart_deals=600, open_chart_deals=600,
            halves_deals=600, reshuffle_players=[5], reshuffle_deals=600)


@pytest.mark.parametrize("module", [estonian_pass, slovak_exchange, tapiola_discards, sviten_draw,
                                    russian_placement], ids=lambda m: m.__name__.rsplit(".", 1)[1])
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
        tables[seed] = (out / "policies.csv").read_text()
    assert tables[7] != tables[8]  # other deals: the seed reached the studies
    # The same seed again plays the same deals.
    again = tmp_path / "again"
    assert sviten_draw.main(["--seed", "7", "--threads", "1", "--out", str(again)]) == 0
    assert (again / "policies.csv").read_text() == tables[7]
