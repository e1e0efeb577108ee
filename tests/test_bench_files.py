"""The committed benchmark outputs (results/bench/) are made from today's code.

Each output opens with a header written by ``python -m experiments.bench_all``:
the command, the commit and a fingerprint of the source files the benchmark
measures (experiments/benchkit.py's BENCHMARKS) and of the benchmark's own
script. A file whose fingerprint is
not that of today's sources is older than the code it measures: the test
fails and names the command that regenerates it. (results/bench/evaluator.txt
showed checked input at 146 M/s long after the fused check made it 0.96x the
unchecked rate.)
"""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from experiments import bench_all
from experiments.benchkit import BENCH_DIR, BENCHMARKS, ROOT, Benchmark, fingerprint, header, read_header


@pytest.mark.parametrize("name", list(BENCHMARKS))
def test_no_committed_figure_file_is_older_than_the_code_it_measures(name):
    bench = BENCHMARKS[name]
    state = bench_all.status(bench)
    assert state == "current", (
        f"{bench.txt} is not current ({state}); regenerate it on a quiet machine with "
        f"`python -m experiments.bench_all {name}` (about {bench.minutes:g} min), then commit "
        f"{' '.join(bench.outputs)}")


@pytest.mark.parametrize("name", list(BENCHMARKS))
def test_every_output_names_its_command_and_commit(name):
    bench = BENCHMARKS[name]
    try:
        made = read_header((ROOT / bench.txt).read_text(encoding="utf-8"))
    except ValueError as e:
        pytest.fail(f"{bench.txt}: {e}; regenerate it: `python -m experiments.bench_all {name}` "
                    f"(about {bench.minutes:g} min)")
    assert made["name"] == name and made["command"] == bench.command
    commit = made["commit"].split()[0]
    assert len(commit) == 40 and all(c in "0123456789abcdef" for c in commit), made["commit"]
    for other in bench.also:
        if other.endswith(".json"):
            stamp = json.loads((ROOT / BENCH_DIR / other).read_text(encoding="utf-8")).get("made_by")
            assert stamp is not None, f"{other} was not made by `python -m experiments.bench_all {name}`"
            assert stamp["fingerprint"] == made["fingerprint"] and stamp["commit"].startswith(commit), (
                f"{other} and {bench.txt} come from different runs; regenerate both: "
                f"`python -m experiments.bench_all {name}`")


def test_every_file_in_results_bench_belongs_to_a_benchmark():
    """No figure file that the one command does not make (and so could not keep current)."""
    made = {out for b in BENCHMARKS.values() for out in b.outputs}
    present = {f"{BENCH_DIR}/{f}" for f in os.listdir(ROOT / BENCH_DIR)}
    assert present - made == set(), "files no benchmark makes: add them to BENCHMARKS or remove them"


def test_every_benchmark_measures_existing_sources_and_is_a_module():
    for b in BENCHMARKS.values():
        assert b.measures and all((ROOT / p).is_file() for p in b.measures), b.name
        assert (ROOT / b.script).is_file(), b.module


def test_the_check_fails_when_a_measured_source_changes(tmp_path, monkeypatch):
    """The mechanism itself: a header made from some sources, then one byte of them edited."""
    (tmp_path / "simcore").mkdir()
    src = tmp_path / "simcore" / "fast.py"
    src.write_text("def f():\n    return 1\n")
    bench = Benchmark("toy", "experiments.bench_toy", ("simcore/fast.py",), 0.1)
    (tmp_path / "experiments").mkdir()
    script = tmp_path / bench.script
    script.write_text("print('figures')\n")
    assert bench.sources == ("experiments/bench_toy.py", "simcore/fast.py")
    before = fingerprint(bench.sources, tmp_path)
    monkeypatch.setattr("experiments.benchkit.ROOT", tmp_path)
    monkeypatch.setattr(bench_all, "ROOT", tmp_path)
    (tmp_path / "results" / "bench").mkdir(parents=True)
    txt = tmp_path / bench.txt
    txt.write_text(header(bench, "0" * 40, " (as committed)", "2026-12-01 16:00 UTC") + "\nfigures\n")
    assert read_header(txt.read_text())["fingerprint"] == before
    assert bench_all.status(bench) == "current"
    src.write_text("def f():\n    return 2\n")
    assert fingerprint(bench.sources, tmp_path) != before
    assert bench_all.status(bench).startswith("stale: made from other sources (made at commit 0000")
    src.write_text("def f():\n    return 1\n")
    assert bench_all.status(bench) == "current"
    script.write_text("print('other figures')\n")  # the script's own sizes or printing: stale too
    assert bench_all.status(bench).startswith("stale: made from other sources")
    script.write_text("print('figures')\n")
    assert bench_all.status(bench) == "current"
    txt.write_text("figures, no header\n")
    assert bench_all.status(bench).startswith("stale: no benchmark header")
    src.unlink()
    with pytest.raises(FileNotFoundError, match="'simcore/fast.py' does not exist"):
        fingerprint(bench.sources, tmp_path)


def test_a_table_files_metadata_leaves_its_fingerprint_as_it_is(tmp_path):
    """A shipped table counts by what a field plays: new metadata (``bench_finer --annotate``'s judge
    rows) leaves the benchmarks that play it current; one changed table entry makes them stale."""
    from strategies.table import load_table

    shipped = "strategies/solved_tables/russian-3p.npz"
    (tmp_path / "strategies" / "solved_tables").mkdir(parents=True)
    tf = load_table(ROOT / shipped)
    copy = tmp_path / shipped
    tf.save(copy)
    before = fingerprint([shipped], tmp_path)
    tf.save(copy, meta=dict(tf.meta, exploitability={"finer": [{"seed": 7}]}))
    assert fingerprint([shipped], tmp_path) == before
    d = tf.decisions[0]
    a = tf.arrays[d].copy()  # two buckets' entries swapped: a table as valid, and another one
    i = next(i for i in range(1, len(a)) if not np.array_equal(a[i], a[0]))
    a[[0, i]] = a[[i, 0]]
    tf.arrays[d] = a
    tf.save(copy)
    assert fingerprint([shipped], tmp_path) != before


def test_bench_all_writes_the_header_and_keeps_the_old_file_when_a_benchmark_fails(tmp_path, monkeypatch, capsys):
    """The one command end to end, on a stand-in benchmark that runs in a second (bench_all --list)."""
    (tmp_path / "simcore").mkdir()
    (tmp_path / "simcore" / "fast.py").write_text("x = 1\n")
    (tmp_path / "results" / "bench").mkdir(parents=True)
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "bench_all.py").write_bytes((ROOT / "experiments" / "bench_all.py").read_bytes())
    monkeypatch.setattr("experiments.benchkit.ROOT", tmp_path)
    monkeypatch.setattr(bench_all, "ROOT", tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    toy = Benchmark("toy", "experiments.bench_all", ("simcore/fast.py",), 0.1, args=("--list",))
    assert bench_all.run(toy)
    text = (tmp_path / toy.txt).read_text()
    made = read_header(text)
    assert made["command"] == "python -m experiments.bench_all --list" and made["measures"] == ("experiments/bench_all.py",
                                                                                       "simcore/fast.py")
    assert made["fingerprint"] == fingerprint(toy.sources) and "evaluator" in text.split("\n\n", 1)[1]
    assert "1-minute load average" in text.split("\n\n", 1)[0]
    assert bench_all.status(toy) == "current"
    broken = Benchmark("toy", "experiments.bench_all", ("simcore/fast.py",), 0.1, args=("--no-such-flag",))
    assert not bench_all.run(broken)
    assert (tmp_path / toy.txt).read_text() == text
    assert "FAILED (exit code 2)" in capsys.readouterr().out
