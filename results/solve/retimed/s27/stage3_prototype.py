import json, sys, time, os
sys.path.insert(0, "/work/scratch/s27")
from simcore.solve import solve
import oneplay
oneplay.install()
out = "/work/main/results/solve/oneplay_r4"
os.makedirs(out, exist_ok=True)
t, c = time.perf_counter(), time.process_time()
def cb(e):
    print(json.dumps({k: e[k] for k in ("iteration", "seat", "gain", "stderr", "moved", "seconds")}), flush=True)
r = solve("russian", 4, iterations=13, abstraction="fine", deals_per_iteration=1 << 20, eval_deals=65536, seed=1,
          init="place=table:/work/main/results/solve/fine256k_r4/russian_4.npz", passes=1, confidence=0.95,
          method="fp", start_weight=0, executor="threads", workers=2, out=out + "/russian_4.npz",
          checkpoint=out + "/russian_4.ckpt", resume=out + "/russian_4.ckpt" if os.path.exists(out + "/russian_4.ckpt") else None,
          log_json=out + "/russian_4.json", callback=cb)
print("wall %.1f cpu %.1f" % (time.perf_counter() - t, time.process_time() - c), flush=True)
