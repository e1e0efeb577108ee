"""The stage's newest average (every one of its 6 BRs, one a seat) from its checkpoint: the run kept
5 (--keep measured, the default), so seat 5's rows were still stage 1's. No BR is fitted again."""
import json
from pathlib import Path

from simcore.solve import solve

if __name__ == "__main__":
    out = Path(__file__).parent
    rec = json.loads((out / "bench_slovak_6.json").read_text())
    s = rec["solve"]
    r = solve("slovak", 6, iterations=s["iterations"], abstraction=s["abstraction"],
              deals_per_iteration=s["deals_per_iteration"], eval_deals=s["eval_deals"], seed=s["seed"], passes=1,
              init=s["init"], confidence=s["confidence"], validate=s["validate"], method=s["method"],
              start_weight=s["start_weight"], keep="newest", fit=s["fit"], workers=2, executor="processes",
              checkpoint=str(out / "slovak_6.ckpt"), resume=str(out / "slovak_6.ckpt"), out=str(out / "slovak_6.npz"))
    assert r.iterations == 6 and r.brs_in_table in (None, 6), (r.iterations, r.brs_in_table)
    s.update(keep="newest", brs_in_table=6)
    s.pop("brs_in_table") if r.brs_in_table is None else None
    (out / "bench_slovak_6.json").write_text(json.dumps(rec, indent=1))
    print("kept", r.brs_in_table, r.kept_note())
