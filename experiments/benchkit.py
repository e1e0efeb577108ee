"""What the benchmarks share: the peer benchmarks' command line, the pure-Python
tally, best-of timings of pvsim, the rate table and the agreement check between
the two implementations; and the list of benchmarks whose outputs are committed
under ``results/bench/``.

The variant benchmarks (``bench_slovak``, ``bench_tapiola``, ``bench_sviten``,
``bench_russian``) each write their own plain-Python game; this module holds
only the bookkeeping around it, so every benchmark reports the same way.

Every committed output is made by ``python -m experiments.bench_all [NAME...]``
(:mod:`experiments.bench_all`), which writes a header naming the command, the
commit and a fingerprint of the source files the benchmark measures
(:data:`BENCHMARKS`) and of its own script (``Benchmark.sources``);
``tests/test_bench_files.py`` fails when a file's
fingerprint is not that of today's sources, so no figure outlives its code.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BENCH_DIR = "results/bench"
HEADER_MARK = "# pvsim benchmark output"


# The shipped ``solved`` tables and the starts they fall back to: tables and solve_scaling play them,
# so a re-shipped table (the rows a field asks differ) calls for a rerun as a code change does.
SHIPPED_TABLES = tuple(sorted(str(p.relative_to(ROOT)) for p in (ROOT / "strategies" / "solved_tables").rglob("*.npz")))


@dataclass(frozen=True)
class Benchmark:
    """A benchmark whose output is committed: ``results/bench/<name>.txt`` (and ``also`` files).

    ``measures`` are the source files whose code it times (repository paths), and the
    shipped tables where it plays them: only those, so that a change elsewhere does not
    call for a rerun. ``minutes`` is about how long one run takes on the project's 2-core
    machine, quiet (measured on 2026-12-01 except scaling's, an estimate from its settings).
    ``own_txt``: the benchmark writes its ``.txt`` itself (to ``--out``) rather
    than printing it.
    """

    name: str
    module: str
    measures: tuple[str, ...]
    minutes: float
    args: tuple[str, ...] = ()
    also: tuple[str, ...] = ()
    own_txt: bool = False

    @property
    def txt(self) -> str:
        return f"{BENCH_DIR}/{self.name}.txt"

    @property
    def outputs(self) -> tuple[str, ...]:
        return (self.txt, *(f"{BENCH_DIR}/{f}" for f in self.also))

    @property
    def command(self) -> str:
        return " ".join(["python -m", self.module, *self.args])

    @property
    def script(self) -> str:
        """The benchmark's own module file (repository path): what it runs and how it prints."""
        return self.module.replace(".", "/") + ".py"

    @property
    def sources(self) -> tuple[str, ...]:
        """What its output's fingerprint covers: ``measures`` and the script itself, sorted, so that an
        edit to the script's sizes, peers or printing also makes the committed output stale. The
        helpers the scripts share (this module) are not among them: their registry would make every
        output stale with each new benchmark."""
        return tuple(sorted({*self.measures, self.script}))


# The variant benchmarks time whole simulate() runs; what runs per deal is the
# variant's module, its strategies, the evaluator kernels and the dealing. The
# per-block plumbing (scheduler, executors) is bench_scaling's subject.
_DEALING = ("simcore/engine/deal.py", "simcore/kernels.py")
BENCHMARKS = {b.name: b for b in [
    Benchmark("evaluator", "experiments.bench_evaluator", ("simcore/evaluate.py", "simcore/kernels.py"), 0.5,
              args=("--json", f"{BENCH_DIR}/evaluator.json"), also=("evaluator.json",)),
    Benchmark("estonian", "experiments.bench_estonian",
              ("simcore/variants/estonian.py", "strategies/estonian.py", "strategies/features.py", *_DEALING), 0.2),
    Benchmark("slovak", "experiments.bench_slovak",
              ("simcore/variants/slovak.py", "strategies/slovak.py", "strategies/features.py", *_DEALING), 0.2),
    Benchmark("sviten", "experiments.bench_sviten",
              ("simcore/variants/sviten.py", "strategies/sviten.py", "strategies/features.py", *_DEALING), 0.2),
    Benchmark("tapiola", "experiments.bench_tapiola",
              ("simcore/variants/tapiola.py", "strategies/tapiola.py", *_DEALING), 0.4),
    Benchmark("russian", "experiments.bench_russian",
              ("simcore/variants/russian.py", "strategies/russian.py", *_DEALING), 0.2),
    Benchmark("policies", "experiments.bench_policies",
              ("strategies/estonian.py", "strategies/slovak.py", "strategies/features.py", "strategies/rollout.py",
               "simcore/variants/estonian.py", "simcore/variants/slovak.py", "simcore/engine/alternatives.py",
               "simcore/evaluate.py", "simcore/kernels.py"), 1.0),
    Benchmark("scaling", "experiments.bench_scaling", ("simcore/engine/executors.py", "simcore/engine/schedule.py"),
              10.0, args=("--repeat", "5", "--out", BENCH_DIR), also=("scaling.json",), own_txt=True),
    # best-response fitting beside simulate (issue 20): the fit, the abstractions it asks, the plays it repeats
    Benchmark("exploit", "experiments.bench_exploit",
              ("simcore/exploit.py", *(f"simcore/abstraction/{m}.py" for m in
                                       ("__init__", "_common", "estonian", "slovak", "tapiola", "sviten", "russian")),
               *(f"simcore/variants/{g}.py" for g in ("estonian", "slovak", "tapiola", "sviten", "russian"))), 0.5,
              args=("--abstraction", "coarse", "--deals", "65536", "--sim-deals", "262144", "--repeat", "3")),
    # a field of the shipped solved tables, answers shared within a call or not (ninth session), and
    # empty buckets skipped or not (eighteenth: three ways, 6.4 min), and the fit asking a field seat
    # about every row of a replay or only those whose seat view changed (twentieth: Russian's;
    # fifty-fourth: Sviten's)
    Benchmark("tables", "experiments.bench_tables",
              ("strategies/table.py", "strategies/solved.py", "simcore/solve.py", "simcore/exploit.py",
               "simcore/abstraction/__init__.py", "simcore/abstraction/_common.py", "simcore/abstraction/russian.py",
               "simcore/variants/russian.py", "strategies/russian.py", "simcore/abstraction/sviten.py",
               "simcore/variants/sviten.py", "strategies/sviten.py", *SHIPPED_TABLES), 8.0),
    # one solve iteration at 1 and 2 workers, split into its serial part and its block runs, and
    # Amdahl's estimate for 16 worker processes (twenty-second session: issue 21's 16-core question)
    Benchmark("solve_scaling", "experiments.bench_solve_scaling",
              ("simcore/solve.py", "simcore/exploit.py", "simcore/engine/executors.py", "simcore/engine/schedule.py",
               *SHIPPED_TABLES), 28.0, args=("--repeat", "2", "--out", f"{BENCH_DIR}/solve_scaling.json"), also=("solve_scaling.json",)),
]}


def fingerprint(paths, root: Path | None = None) -> str:
    """SHA-256 (first 16 hex digits) of the files' names and bytes: it changes with any edit to them
    (a table file's metadata aside: :func:`table_digest`).

    Raises FileNotFoundError naming a file that does not exist (moved: the
    benchmark's ``measures`` need updating).
    """
    h = hashlib.sha256()
    for rel in sorted(paths):
        p = Path(ROOT if root is None else root) / rel
        if not p.is_file():
            raise FileNotFoundError(f"measured source {rel!r} does not exist (moved or renamed? "
                                    f"update experiments/benchkit.py's BENCHMARKS)")
        digest = table_digest(p) if p.suffix == ".npz" else hashlib.sha256(p.read_bytes()).digest()
        h.update(rel.encode() + b"\0" + digest)
    return h.hexdigest()[:16]


def table_digest(path: Path) -> bytes:
    """A table file's digest without its metadata: its header less ``meta``, and every array's name,
    type, shape and bytes. What a benchmark measures is the table a field plays; the metadata
    (who made it, the judges' rows ``experiments.bench_finer --annotate`` writes) is not, so
    annotating a shipped table leaves the benchmarks that play it current."""
    h = hashlib.sha256()
    with np.load(path, allow_pickle=False) as z:
        for name in sorted(z.files):
            a = z[name]
            if name == "header":
                head = json.loads(str(a))
                head.pop("meta", None)
                h.update(json.dumps(head, sort_keys=True).encode())
            else:
                h.update(f"{name}|{a.dtype.str}|{a.shape}".encode() + np.ascontiguousarray(a).tobytes())
    return h.digest()


def header(bench: Benchmark, commit: str, sources: str, when: str, machine: str = "") -> str:
    """The lines that open a committed output: command, commit, the measured sources' fingerprint
    (and ``machine``, a line on the cores and their load, when given)."""
    return "\n".join([
        f"{HEADER_MARK} '{bench.name}': {bench.command}",
        f"# made {when} at commit {commit}",
        f"# measured sources {fingerprint(bench.sources)}{sources}: {' '.join(bench.sources)}",
        f"# regenerate: python -m experiments.bench_all {bench.name}   (all of them: python -m experiments.bench_all)",
        *([f"# {machine}"] if machine else []),
    ]) + "\n"


def read_header(text: str) -> dict:
    """A committed output's header: ``{"name", "command", "commit", "fingerprint", "measures"}``.

    Raises ValueError when the text does not start with one (a file made
    before this header, or by hand).
    """
    lines = text.split("\n", 4)
    if len(lines) < 4 or not lines[0].startswith(HEADER_MARK + " '"):
        raise ValueError("no benchmark header (it was not made by python -m experiments.bench_all)")
    name, _, command = lines[0][len(HEADER_MARK) + 2:].partition("': ")
    commit = lines[1].split(" at commit ", 1)[-1].strip()
    sums, _, measured = lines[2].removeprefix("# measured sources ").partition(": ")
    return {"name": name, "command": command, "commit": commit, "fingerprint": sums.split()[0] if sums else "",
            "measures": tuple(measured.split())}

# The benchmarks print 95% intervals with the rounded 1.96 (their printed
# figures are compared run to run); the experiments use stats.Z95.
Z_PRINT = 1.96


BEST_OF = "every timing (pvsim's and the pure-Python one) is the best of this many runs"


def peer_parser(module: str, description: str, *, players: int, deals: int, py_deals: int, repeat: int,
                repeat_help: str = BEST_OF) -> argparse.ArgumentParser:
    """The command line of a benchmark against its plain-Python peer (``python -m experiments.<module>``):
    ``--players``, pvsim's ``--deals`` and the peer's ``--py-deals`` a timing, ``--seed`` and
    ``--repeat``, each refused by name unless a positive integer (a seed: non-negative)."""
    from .cells import count, seed

    ap = argparse.ArgumentParser(prog=f"python -m experiments.{module}", description=description)
    ap.add_argument("--players", type=count, default=players)
    ap.add_argument("--deals", type=count, default=deals, help="pvsim deals per timing")
    ap.add_argument("--py-deals", type=count, default=py_deals, help="pure-Python deals per timing")
    ap.add_argument("--seed", type=seed, default=1)
    ap.add_argument("--repeat", type=count, default=repeat, help=repeat_help)
    return ap


def mean_stderr(total, total_sq, n_deals: int) -> list[tuple[float, float]]:
    """Per-seat (mean, standard error) from per-seat sums of a payoff and of its square.

    The variance is the unbiased one (``n / (n - 1)``), clipped at 0 against rounding.

    >>> mean_stderr([1.0, 1.0], [1.0, 1.0], 2)
    [(0.5, 0.5), (0.5, 0.5)]
    """
    if n_deals < 2:
        raise ValueError(f"mean_stderr: n_deals must be at least 2, got {n_deals}")
    stats = []
    for s, sq in zip(total, total_sq):
        mean = s / n_deals
        var = max(sq / n_deals - mean * mean, 0.0) * n_deals / (n_deals - 1)
        stats.append((mean, math.sqrt(var / n_deals)))
    return stats


def time_simulate(variant: str, n_players: int, n_deals: int, spec: str, threads: int, seed: int,
                  repeat: int = 1, **options):
    """pvsim with every seat on ``spec``, ``repeat`` times on the same deals.

    Returns (the first run's result, the least wall seconds, the least process
    CPU seconds) over the runs; ``options`` go to :func:`simcore.simulate`.
    """
    from simcore import simulate

    if repeat < 1:
        raise ValueError(f"time_simulate: repeat must be at least 1, got {repeat}")
    runs, cpu = [], []
    for _ in range(repeat):
        c = time.process_time()
        runs.append(simulate(variant, n_players, n_deals, seed=seed, hero=spec, field=spec,
                             threads=threads, progress=False, **options))
        cpu.append(time.process_time() - c)
    return runs[0], min(r.info.seconds for r in runs), min(cpu)


def print_rates(rows, py_rate: float, width: int = 22) -> None:
    """The timing table: rows of (implementation, threads, deals, seconds, deals/s),
    with each rate's ratio to the pure-Python ``py_rate``."""
    print(f"{'implementation':<{width}}{'threads':>8}{'deals':>12}{'seconds':>10}{'deals/s':>14}{'ratio':>9}")
    for name, threads, n, s, rate in rows:
        print(f"{name:<{width}}{threads:>8}{n:>12,}{s:>10.2f}{rate:>14,.0f}{rate / py_rate:>8.0f}x")


def agreement_line(label: str, a: float, sa: float, b: float, sb: float) -> tuple[str, bool]:
    """One line comparing pvsim's share ``a`` (stderr ``sa``) with pure Python's ``b`` (``sb``).

    Returns the line and whether the two agree within 4 standard errors of the difference.

    >>> agreement_line("seat 0", 0.5, 0.01, 0.5, 0.01)[1]
    True
    """
    z = (a - b) / math.hypot(sa, sb)
    fine = abs(z) < 4
    return (f"  {label}: pvsim {a:.4f} ± {Z_PRINT * sa:.4f}   python {b:.4f} ± {Z_PRINT * sb:.4f}   "
            f"z = {z:+.2f} {'ok' if fine else 'DISAGREE'}"), fine


def print_seat_agreement(table, py_stats, n_players: int) -> bool:
    """Print every seat's agreement (pvsim ``table`` vs pure-Python (mean, stderr)
    pairs); True when all agree within 4 standard errors."""
    ok = True
    for seat in range(n_players):
        b, sb = py_stats[seat]
        line, fine = agreement_line(f"seat {seat}", table.share[seat], table.stderr[seat], b, sb)
        ok &= fine
        print(line)
    return ok
