"""Regenerate the committed benchmark outputs (``results/bench/``), each with a header naming how it was made.

Run ``python -m experiments.bench_all`` for all of them, ``python -m
experiments.bench_all evaluator slovak`` for some, ``--list`` to see each
one's command, measured sources and whether its file is current, ``--stale``
to rerun only the files whose measured sources changed since they were made.

Each benchmark (:data:`experiments.benchkit.BENCHMARKS`) runs in its own
process, in turn (never two at once: they time the same cores; run them on a
quiet machine, since the header's load average is the only sign of other work). Its output
goes to the screen as it runs and, when it ends well, to
``results/bench/NAME.txt`` under a header: the command, the date, the commit
and a fingerprint of the source files it measures and of its own script. ``tests/test_bench_files.py``
compares that fingerprint with today's sources. A benchmark that fails leaves
its old file as it was.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from datetime import datetime, timezone

from .benchkit import BENCHMARKS, ROOT, Benchmark, fingerprint, header, read_header
from .outputs import write_json, write_text


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)


def commit_of(bench: Benchmark) -> tuple[str, str]:
    """(HEAD's commit, a note on whether the measured sources are those of that commit)."""
    head = _git("rev-parse", "HEAD")
    if head.returncode != 0:
        return "unknown (not a git checkout)", ""
    dirty = _git("status", "--porcelain", "--", *bench.sources).stdout.strip()
    return head.stdout.strip(), (" (with uncommitted changes)" if dirty else " (as committed)")


def status(bench: Benchmark) -> str:
    """'current', or why the committed file does not match today's measured sources."""
    path = ROOT / bench.txt
    if not path.exists():
        return "missing"
    try:
        made = read_header(path.read_text(encoding="utf-8"))
    except ValueError as e:
        return f"stale: {e}"
    try:
        now = fingerprint(bench.sources)
    except FileNotFoundError as e:
        return f"stale: {e}"
    if made["fingerprint"] != now or made["measures"] != bench.sources:
        return f"stale: made from other sources (made at commit {made['commit']})"
    if made["command"] != bench.command:
        return f"stale: made by {made['command']!r}, not {bench.command!r}"
    return "current"


def run(bench: Benchmark) -> bool:
    """Run one benchmark and write its outputs under a header; False (and files untouched) if it fails."""
    commit, note = commit_of(bench)  # before the run: the code that is measured
    sums = fingerprint(bench.sources)
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"== {bench.name}: {bench.command}  (about {bench.minutes:g} min)", flush=True)
    load = os.getloadavg()[0]
    t = time.perf_counter()
    lines = []
    with subprocess.Popen([sys.executable, "-m", bench.module, *bench.args], cwd=ROOT, text=True,
                          stdout=subprocess.PIPE, env=dict(os.environ, PYTHONUNBUFFERED="1")) as proc:
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            lines.append(line)
        rc = proc.wait()
    minutes = (time.perf_counter() - t) / 60
    if rc != 0:
        print(f"== {bench.name}: FAILED (exit code {rc}) after {minutes:.1f} min; {bench.txt} left as it was",
              flush=True)
        return False
    if sums != fingerprint(bench.sources):
        print(f"== {bench.name}: its measured sources changed during the run; {bench.txt} left as it was "
              f"(run it again)", flush=True)
        return False
    path = ROOT / bench.txt
    body = path.read_text(encoding="utf-8") if bench.own_txt else "".join(lines)
    if bench.own_txt and body.startswith("# "):  # the benchmark wrote it just now; never a header twice
        body = body.split("\n\n", 1)[-1]
    machine = (f"{os.cpu_count()} cores; 1-minute load average {load:.2f} before the run, "
               f"{os.getloadavg()[0]:.2f} after (a load above the core count means other work shared the cores)")
    made = header(bench, commit, note, when, machine)
    write_text(path, made + "\n" + body.rstrip("\n") + "\n")
    for name in bench.also:
        if name.endswith(".json"):
            _stamp_json(ROOT / "results" / "bench" / name, bench, commit + note, sums, when)
    print(f"== {bench.name}: wrote {', '.join(bench.outputs)} in {minutes:.1f} min", flush=True)
    return True


def _stamp_json(path, bench: Benchmark, commit: str, sums: str, when: str) -> None:
    """The same provenance in a JSON output, as its first key ``"made_by"``."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data.pop("made_by", None)
    made_by = {"command": bench.command, "regenerate": f"python -m experiments.bench_all {bench.name}",
               "when": when, "commit": commit, "measured_sources": list(bench.sources),
               "fingerprint": sums}
    write_json(path, {"made_by": made_by, **data})


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.bench_all", description=__doc__.split("\n\n")[0])
    p.add_argument("names", nargs="*", metavar="NAME",
                   help=f"benchmarks to run (default: all): {', '.join(BENCHMARKS)}")
    p.add_argument("--list", action="store_true", help="each benchmark's command, sources and state; run nothing")
    p.add_argument("--stale", action="store_true", help="run only those whose file is not current")
    args = p.parse_args(argv)
    unknown = [n for n in args.names if n not in BENCHMARKS]
    if unknown:
        p.error(f"unknown benchmark {unknown[0]!r}; choose from {', '.join(BENCHMARKS)}")
    chosen = [BENCHMARKS[n] for n in (args.names or BENCHMARKS)]
    if args.list:
        for b in chosen:
            print(f"{b.name:<10} about {b.minutes:>4g} min  {status(b)}\n           {b.command}\n"
                  f"           fingerprints {' '.join(b.sources)}")
        return 0
    if args.stale:
        chosen = [b for b in chosen if status(b) != "current"]
    print(f"running {len(chosen)} benchmark(s), about {sum(b.minutes for b in chosen):g} min: "
          f"{', '.join(b.name for b in chosen) or 'none'}", flush=True)
    failed = [b.name for b in chosen if not run(b)]
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
