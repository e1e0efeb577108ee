"""experiments.bench_solve_scaling's arithmetic: the split of an iteration into serial part, setup
and shared work, and the 16-process estimate from it (the timings themselves are the benchmark's)."""
import pytest

from experiments.bench_solve_scaling import BlockClock, estimate


def _run(wall, blocks):
    return {"wall_s": wall, "blocks_s": blocks, "serial_s": wall - blocks}


def test_the_estimate_splits_an_iteration_as_amdahl_says():
    # serial 2 s; work 40 s shared by the workers at 80% on two; processes pay 4 s of setup each
    row = {"threads/1": _run(42.0, 40.0), "threads/2": _run(27.0, 25.0),
           "processes/1": _run(46.0, 44.0), "processes/2": _run(31.0, 4.0 + 40.0 / (2 * 0.8))}
    e = estimate(row, deals=1 << 20, recorded=1 << 24, cores=16)
    assert e["serial_s"] == pytest.approx(2.0) and e["setup_s"] == pytest.approx(4.0)
    assert e["work_s"] == pytest.approx(40.0) and e["efficiency_2"] == pytest.approx(0.8)
    assert e["wall_16_s"] == pytest.approx(2.0 + 4.0 + 40.0 / (16 * 0.8))
    # 16x the deals: the work 16x, the serial part and the setup as they were
    assert e["threads_2_at_recorded_s"] == pytest.approx(2.0 + 25.0 * 16)
    assert e["wall_16_at_recorded_s"] == pytest.approx(2.0 + 4.0 + 40.0 * 16 / (16 * 0.8))
    assert e["speedup_16_over_threads_2_at_recorded"] == pytest.approx((2.0 + 400.0) / (6.0 + 50.0))


def test_the_efficiency_is_never_taken_above_one():
    row = {"threads/1": _run(11.0, 10.0), "threads/2": _run(6.0, 5.0),
           "processes/1": _run(11.0, 10.0), "processes/2": _run(5.0, 4.0)}  # faster than perfect: noise
    assert estimate(row, deals=1, recorded=1)["efficiency_2"] == 1.0


def test_the_block_clock_times_the_engine_runs_and_lets_go():
    from simcore import simulate
    from simcore.engine import schedule

    before = schedule._Run.play
    clock = BlockClock()
    try:
        simulate("estonian", 3, 4096, seed=1, workers=1, executor="threads", progress=False)
    finally:
        clock.close()
    assert clock.seconds > 0 and schedule._Run.play is before


@pytest.mark.parametrize("bad", ["2,3", "1,x", "0,1,2"])
def test_worker_counts_without_1_and_2_are_refused_before_anything_runs(bad, capsys):
    from experiments.bench_solve_scaling import main

    with pytest.raises(SystemExit) as e:
        main(["--games", "estonian:6", "--workers", bad])
    assert e.value.code == 2 and bad in capsys.readouterr().err
