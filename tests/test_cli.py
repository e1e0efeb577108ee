"""The pvsim command line: help, version, the JSON contract, clear errors."""
import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from simcore.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_help_speaks_to_a_newcomer(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    for word in ("simulate", "compare", "analyze", "strategies", "pass=highest"):
        assert word in text


@pytest.mark.parametrize("command", ["exploit", "solve"])
def test_random_deal_commands_keep_situation_flags_out_of_their_help(capsys, command):
    """exploit and solve play random deals: their help lists the rule options but no situation
    flag, and a situation flag given anyway is the error that names it (not "unrecognized")."""
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    assert "--scoring" in text and "situation" not in text and "--passed" not in text
    assert main([command, "estonian", "--passed", "7d"]) == 2
    assert "--passed: " + command + " plays random deals; it takes no situation" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    assert "situation (by variant)" in capsys.readouterr().out  # where a situation means something


def test_version(capsys):
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.startswith("pvsim ")


def installed_pvsim():
    """The ``pvsim`` script that installing the package put beside this interpreter."""
    bindir = Path(sys.executable).parent  # not resolved: a venv's python is a link
    for name in ("pvsim", "pvsim.exe"):
        if (bindir / name).is_file():
            return str(bindir / name)
    pytest.skip(f"the pvsim console script is not installed in {bindir} (pip install . installs it)")


def pvsim(*argv):
    out = subprocess.run([installed_pvsim(), *argv], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_console_script_entry_point_runs():
    # The installed entry point, not ``python -m``: this fails if [project.scripts]
    # names a function that is gone or the script was installed from another tree.
    assert pvsim("--version") == f"pvsim {metadata.version('pvsim')}\n"
    assert "royal flush" in pvsim("eval", "As Ks Qs Js Ts")
    d = json.loads(pvsim("simulate", "holdem", "--deals", "2000", "--seed", "3", "--format", "json",
                         "--no-progress"))
    assert d["variant"] == "holdem" and d["players"] == 2 and d["deals"] == 2000 and d["seed"] == 3
    assert len(d["seats"]) == 2
    assert sum(s["share"] for s in d["seats"]) == pytest.approx(1.0)
    # Two random hands: each seat near a half (4 standard errors).
    assert all(abs(s["share"] - 0.5) < 4 * s["stderr"] for s in d["seats"])


def test_simulate_json_contract(capsys, tmp_path):
    path = tmp_path / "r.json"
    code, _, _ = run(capsys, "simulate", "estonian", "--players", "3", "--deals", "5000", "--seed", "7",
                     "--hero", "pass=highest", "--seat", "2=pass=random", "--format", "json",
                     "--out", str(path), "--no-progress", "--threads", "2")
    assert code == 0
    d = json.loads(path.read_text())
    assert {"variant", "players", "deals", "seed", "seats"} <= set(d)
    assert d["variant"] == "estonian" and d["players"] == 3 and d["deals"] == 5000 and d["seed"] == 7
    for s in d["seats"]:
        assert {"seat", "strategy", "share", "stderr", "ci_low", "ci_high", "win_rate", "tie_rate"} <= set(s)
    assert "pass=highest" in d["seats"][0]["strategy"]
    assert "pass=random" in d["seats"][2]["strategy"]
    assert sum(s["share"] for s in d["seats"]) == pytest.approx(1.0)
    # Final hand categories per seat and of the winning hand: rates that sum to 1.
    for s in d["seats"]:
        assert sum(s["categories"].values()) == pytest.approx(1.0)
    assert sum(d["winning_categories"].values()) == pytest.approx(1.0)
    assert d["winning_categories"]["high card"] < d["seats"][0]["categories"]["high card"]


@pytest.mark.parametrize("fmt,marker", [("csv", "seat,strategy"), ("markdown", "| seat |"), ("table", "share")])
def test_simulate_other_formats(capsys, fmt, marker):
    code, out, _ = run(capsys, "simulate", "holdem", "--players", "2", "--deals", "2000", "--format", fmt,
                       "--no-progress")
    assert code == 0 and marker in out


def test_compare_json_contract(capsys):
    code, out, _ = run(capsys, "compare", "estonian", "--players", "4", "--deals", "8000", "--a", "pass=highest",
                       "--b", "pass=lowest", "--format", "json", "--no-progress")
    assert code == 0
    d = json.loads(out)
    assert {"share_a", "share_b", "diff", "diff_ci_low", "diff_ci_high"} <= set(d)
    assert d["diff_ci_low"] <= d["diff"] <= d["diff_ci_high"]
    assert d["diff"] == pytest.approx(d["share_a"] - d["share_b"])


def test_analyze_json_contract(capsys):
    code, out, _ = run(capsys, "analyze", "estonian", "--players", "3", "--hand", "As Ks 7d",
                       "--board", "Qs Js 4h", "--deals", "40000", "--format", "json", "--no-progress")
    assert code == 0
    d = json.loads(out)
    opts = d["options"]
    assert len(opts) == 3
    for o in opts:
        assert {"action", "share", "ci_low", "ci_high", "diff_vs_best"} <= set(o)
    assert opts[0]["diff_vs_best"] == 0
    assert [o["share"] for o in opts] == sorted((o["share"] for o in opts), reverse=True)


def test_analyze_holdem_is_equity(capsys):
    code, out, _ = run(capsys, "analyze", "holdem", "--players", "2", "--hand", "Ah Ad", "--deals", "50000",
                       "--format", "json", "--no-progress")
    assert code == 0
    assert abs(json.loads(out)["options"][0]["share"] - 0.852) < 0.02


def test_strategies_lists_every_decision(capsys):
    code, out, _ = run(capsys, "strategies", "estonian")
    assert code == 0
    for word in ("pass", "discard", "lowest", "highest", "best-made", "random", "rollout"):
        assert word in out
    code, out, _ = run(capsys, "strategies")
    assert "slovak" in out and "exchange1" in out and "never" in out


def test_strategies_json_is_what_the_text_says(capsys):
    """``pvsim strategies GAME --json``: every decision with its policies and default, and each shipped
    table with its exploitability rows and verdict; the text's figures are these, formatted."""
    code, text, _ = run(capsys, "strategies", "russian")
    code_j, out, _ = run(capsys, "strategies", "russian", "--json")
    assert code == code_j == 0
    (v,) = json.loads(out)
    assert (v["variant"], v["min_players"]) == ("russian", 2)
    (place,) = v["decisions"]
    assert place["name"] == "place" and place["default"] in {p["name"] for p in place["policies"]}
    assert {"solved", "conceal", "best-gain"} <= {p["name"] for p in place["policies"]}
    assert sorted(t["players"] for t in v["solved_tables"]) == [3, 4]
    for t in v["solved_tables"]:
        e = t["exploitability"]
        assert Path(t["file"]).exists() and t["decisions"] == ["place"]
        # the solve's check, then each judge seed's rows: seed 2024's, then 7's
        seeds = [r["seed"] for r in e["rows"]]
        assert seeds[0] == 2024 and seeds[1:] == sorted(seeds[1:], key=[2024, 7].index) and set(seeds[1:]) == {2024, 7}
        verdict = e["verdict"]
        assert verdict["quarter_met"] is (verdict["ratio_upper"] <= 0.25)
        best = e["rows"][verdict["table_row"]]
        assert best["gain"] == max(r["gain"] for r in e["rows"])
        assert verdict["ratio_upper"] == best["ci_high"] / e["rows"][verdict["builtin_row"]]["builtin_gain"]
        for r in e["rows"]:  # the text prints each row's figures
            assert f"{r['br']} " in text and f"{r['gain']:+.5f} [{r['ci_low']:+.5f}, {r['ci_high']:+.5f}]" in text
        assert f"{verdict['ratio']:.2f} of the built-in's gain, upper end {verdict['ratio_upper']:.2f}" in text
    assert run(capsys, "strategies", "russian", "--format", "json")[1] == out
    code, out, _ = run(capsys, "strategies", "holdem", "--json")
    assert code == 0 and json.loads(out)[0]["decisions"] == [] and json.loads(out)[0]["solved_tables"] == []


def test_eval_names_the_hand(capsys):
    code, out, _ = run(capsys, "eval", "Ks Kh Kd 9s 9d 2c 7h")
    assert code == 0 and "kings full of nines" in out


@pytest.mark.parametrize("argv,needle", [
    (["simulate", "estonian", "--players", "16", "--deals", "10"], "got 16"),
    (["simulate", "holdem", "--hand", "As Zs", "--deals", "10"], "'Zs'"),
    (["simulate", "estonian", "--hero", "pass=nosuch", "--deals", "10"], "'nosuch'"),
    (["simulate", "estonian", "--seat", "x=lowest", "--deals", "10"], "'x=lowest'"),
    (["analyze", "estonian", "--players", "3", "--deals", "10"], "--hand"),
    (["eval", "As As Kd Qd Jd"], "duplicate card As"),
    # the flag as typed, not the Python parameter behind it
    (["solve", "estonian", "-n", "3", "--eval-deals", "0"], "--eval-deals must be at least 1, got 0"),
    (["exploit", "estonian", "-n", "3", "--eval-deals", "-5"], "--eval-deals must be at least 1, got -5"),
    (["solve", "estonian", "-n", "3", "--start-weight", "-1"], "--start-weight must be at least 0, got -1"),
    (["solve", "estonian", "-n", "3", "--method", "cfr", "--measure-every", "0"], "--measure-every must be at least"),
    (["solve", "estonian", "-n", "3", "--measure-every", "4"], "--measure-every 4 is for --method cfr"),
    (["solve", "estonian", "-n", "3", "--validate", "--deals", "2000"],
     "--deals 2,000 is not above --block-size 16,384"),
    (["exploit", "estonian", "-n", "3", "--validate", "--deals", "4096", "--block-size", "4096"],
     "--deals 4,096 is not above --block-size 4,096"),
    # a policy for every decision of a game that has none was played as nothing, silently
    (["simulate", "holdem", "--field", "solved", "--deals", "10"], "Texas Hold'em has no decisions, so policy "
                                                                    "'solved' has nothing to play"),
    # rule options as a reader writes them, not a Python dict
    (["simulate", "tapiola", "-n", "6", "--scoring", "points", "--field", "solved", "--deals", "10"],
     "with options scoring points, lowball off, burn off (none is shipped"),
])
def test_bad_input_exits_2_naming_the_value(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert needle in err and "Traceback" not in err


def test_precision_without_deals_runs_until_precise(capsys):
    code, out, _ = run(capsys, "simulate", "holdem", "--players", "3", "--precision", "0.004",
                       "--format", "json", "--no-progress")
    d = json.loads(out)
    assert code == 0 and d["deals"] < 1_000_000
    assert all(1.959964 * s["stderr"] <= 0.004 for s in d["seats"])


def test_a_reader_that_stops_reading_is_not_an_error():
    """``pvsim strategies estonian | head -1``: once the reader has what it wants and closes the pipe,
    pvsim stops quietly (no error line, no traceback) with the status a SIGPIPE stop gives."""
    with subprocess.Popen([installed_pvsim(), "strategies", "estonian"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, bufsize=0) as proc:
        first = proc.stdout.read(1)  # the listing has started
        proc.stdout.close()  # the reader is gone before the rest of the listing is written
        err = proc.stderr.read().decode()
        code = proc.wait(timeout=120)
    assert first and err == "", err
    assert code in (0, 141), code  # 0 where the whole listing fit in the pipe before it closed


def test_a_closed_pipe_in_process_returns_141_without_touching_a_captured_stdout(capsys, monkeypatch):
    """main() called from Python (a test, a notebook) whose output pipe broke: the same quiet 141,
    and a stdout with no file descriptor is left alone."""
    import simcore.cli as cli

    def broken(args):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setitem(cli.COMMANDS, "strategies", broken)
    assert main(["strategies", "estonian"]) == 141
    assert capsys.readouterr().err == ""
