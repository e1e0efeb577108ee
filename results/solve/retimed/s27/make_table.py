"""The average after K iterations of a checkpointed one-play stage (resume with nothing left: the newest)."""
import sys
from simcore.solve import solve


def main():
    ck, k, out, init, deals = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
    r = solve("russian", 4, iterations=k, abstraction="fine", deals_per_iteration=deals, eval_deals=65536, seed=1,
              init=init, passes=1, confidence=0.95, validate=False, method="fp", start_weight=0,
              executor="threads", workers=2, resume=ck, out=out, fit="one-play")
    print(out, r.iterations, r.stopped, r.table_measured, r.brs_in_table)


if __name__ == "__main__":
    main()
