"""Does load on the other cores move a host-bound eager training step? deit_tiny, batch 128, bf16 autocast, Adam.

An experiment record (output.txt), not part of the harness: blocks of 30 eager steps timed on cores 14 and 15, alone
and with 14 or 4 busy processes on the other cores (pure-Python loops, or 64 MiB array copies).
"""
import multiprocessing as mp
import os
import statistics
import time

import timm
import torch


def burn(core, kind):
    os.sched_setaffinity(0, {core})
    import numpy as np
    a = np.ones(64 << 20 >> 3); b = np.empty_like(a)
    x = 0
    while True:
        if kind == "mem":
            np.copyto(b, a)
        else:
            for i in range(100000):
                x += i * i

def blocks(step, n_blocks, per_block=30):
    out = []
    for _ in range(n_blocks):
        t = []
        for _ in range(per_block):
            torch.cuda.synchronize(); s = time.perf_counter(); step(); torch.cuda.synchronize()
            t.append((time.perf_counter() - s) * 1e3)
        out.append(statistics.median(t))
    return out

def main():
    os.sched_setaffinity(0, {14, 15})
    torch.manual_seed(0)
    m = timm.create_model("deit_tiny_patch16_224", num_classes=1000).cuda()
    opt = torch.optim.Adam(m.parameters())
    x = torch.randn(128, 3, 224, 224, device="cuda"); y = torch.randint(0, 1000, (128,), device="cuda")
    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(m(x), y)
        loss.backward(); opt.step()
    blocks(step, 2)
    for label, kind, n in [("alone", None, 0), ("14 cpu burners", "cpu", 14), ("alone", None, 0),
                           ("14 memory burners", "mem", 14), ("alone", None, 0), ("4 memory burners", "mem", 4)]:
        ps = [mp.Process(target=burn, args=(c, kind), daemon=True) for c in range(n)]
        for p in ps: p.start()
        time.sleep(1 if n else 0)
        b = blocks(step, 6)
        for p in ps: p.kill()
        print(f"{label:20s} block medians ms: " + " ".join(f"{v:.1f}" for v in b), flush=True)

if __name__ == "__main__":
    main()
