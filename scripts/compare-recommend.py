#!/usr/bin/env python3
"""compare-recommend.py OLD_BIN NEW_BIN [--bodies N] [--seed S]: two gpuplan servers, one answer.

Starts OLD_BIN and NEW_BIN as servers (each on an ephemeral port with a temporary
database, --threads 3) and sends both the same N random POST /api/v1/recommend bodies
(default 1600), comparing status and body byte for byte; exits 1 at the first difference,
printing the body and where the answers part.

The bodies vary every field of the form: model presets (from GET /api/v1/catalog) and
custom shapes (params_b alone or with layers, hidden, heads, kv_heads, ffn_hidden, vocab,
experts), task, precision, seq_len, pricing cloud/buy, gpus_allowed, max_gpus, now and then
global_batch_tokens, optimizer, attention; then tokens_b, deadline_days, budget_usd and
dataset_tb. They come in runs on one workload (a "base": all but those four), as a user
tweaks a form: each step changes one, two or all four of tokens_b, deadline_days,
budget_usd and dataset_tb, leaves tokens and dataset as they were half the time, drops
deadline or budget or dataset now and then, and repeats an earlier body of the run
(the answer cache) now and then. Runs go back to earlier bases (search memo hits after
other entries) and there are well over 64 bases (the search memo's slots), so that memo
hits, misses and evictions all happen; a few bodies are invalid (400). Requests go over
three keep-alive connections per server chosen at random (several worker memories).
Prints the counts of X-Gpuplan-Search memo/new and X-Gpuplan-Cache hit seen.
"""
import argparse
import http.client
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time


def start(binary, tmp, name):
    d = os.path.join(tmp, name)
    os.mkdir(d)
    port_file = os.path.join(d, "port")
    proc = subprocess.Popen([binary, "serve", "--port", "0", "--db", os.path.join(d, "g.db"), "--port-file",
                             port_file, "--threads", "3", "--quiet"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    for _ in range(200):
        if os.path.exists(port_file) and os.path.getsize(port_file) > 0:
            return proc, int(open(port_file).read().strip())
        time.sleep(0.05)
    proc.kill()
    sys.exit("%s did not start" % binary)


def base_workload(rng, presets, gpus):
    b = {}
    if rng.random() < 0.6:
        b["model"] = {"preset": rng.choice(presets)}
    else:
        params = rng.choice([0.5, 1.3, 3, 7, 13, 34, 70, 180, 400])
        m = {"params_b": params}
        if rng.random() < 0.6:
            hidden = rng.choice([2048, 4096, 5120, 8192, 12288])
            heads = hidden // 128
            m.update({"layers": rng.choice([16, 24, 32, 40, 48, 80]), "hidden": hidden, "heads": heads,
                      "kv_heads": rng.choice([heads, 8]), "ffn_hidden": hidden * rng.choice([3, 4]),
                      "vocab": rng.choice([32000, 128256])})
            if rng.random() < 0.25:
                m.update({"experts": rng.choice([8, 16]), "experts_active": 2})
        b["model"] = m
    b["task"] = rng.choice(["pretrain", "pretrain", "finetune", "lora", "qlora"])
    b["precision"] = rng.choice(["bf16", "bf16", "fp16", "fp8", "fp32"])
    if rng.random() < 0.4:
        b["seq_len"] = rng.choice([2048, 4096, 8192, 32768])
    b["pricing"] = rng.choice(["cloud", "cloud", "buy"])
    if rng.random() < 0.3:
        b["gpus_allowed"] = rng.sample(gpus, rng.randint(1, 5))
    if rng.random() < 0.3:
        b["max_gpus"] = rng.choice([8, 64, 256, 1024, 4096])
    if rng.random() < 0.1:
        b["global_batch_tokens"] = rng.choice([1048576, 4194304])
    if rng.random() < 0.1:
        b["optimizer"] = "adamw-8bit"
    if rng.random() < 0.1:
        b["attention"] = "standard"
    return b


def tweak(rng, state):
    """One step of a user on the four pricing inputs (state: the last values)."""
    k = rng.random()
    which = (["tokens_b", "deadline_days", "budget_usd", "dataset_tb"] if k < 0.15 else
             rng.sample(["tokens_b", "deadline_days", "budget_usd", "dataset_tb"], 2) if k < 0.35 else
             [rng.choice(["deadline_days", "budget_usd", "deadline_days", "budget_usd", "tokens_b", "dataset_tb"])])
    for f in which:
        if f == "tokens_b":
            state[f] = rng.choice([round(rng.uniform(1, 30000), rng.randint(0, 3)), rng.choice([0.01, 1e5, 9e5])])
        elif f == "deadline_days":
            state[f] = None if rng.random() < 0.1 else rng.choice([rng.randint(1, 400), 0.5, 3000])
        elif f == "budget_usd":
            state[f] = None if rng.random() < 0.1 else rng.choice([rng.randint(1, 2000) * 10000, 500, 1e11])
        else:
            state[f] = None if rng.random() < 0.4 else round(rng.uniform(0, 800), 1)


def body_of(base, state):
    b = dict(base)
    for f, v in state.items():
        if v is not None:
            b[f] = v
    return b


def bodies(rng, n, presets, gpus):
    bases, out = [], []
    while len(out) < n:
        if not bases or rng.random() < 0.55:
            bases.append(base_workload(rng, presets, gpus))
            base = bases[-1]
        else:
            base = rng.choice(bases)   # back to an earlier one (a memo hit, or a miss after eviction)
        state = {"tokens_b": rng.choice([15000, 1000, 300, 2.5]), "deadline_days": 90, "budget_usd": 5e6,
                 "dataset_tb": None}
        run = []
        for _ in range(rng.randint(1, 16)):
            if run and rng.random() < 0.08:
                out.append(rng.choice(run))   # the same body again: the answer cache
                continue
            tweak(rng, state)
            run.append(json.dumps(body_of(base, state)))
            out.append(run[-1])
        if rng.random() < 0.05:
            bad = body_of(base, state)
            bad[rng.choice(["tokens_b", "deadline_days", "budget_usd", "dataset_tb", "max_gpus"])] = -1
            out.append(json.dumps(bad))
    return out[:n], len(bases)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--bodies", type=int, default=1600)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="cmprec-")
    procs = []
    try:
        po, port_old = start(a.old, tmp, "old")
        procs.append(po)
        pn, port_new = start(a.new, tmp, "new")
        procs.append(pn)
        c = http.client.HTTPConnection("127.0.0.1", port_new)
        c.request("GET", "/api/v1/catalog")
        cat = json.loads(c.getresponse().read())
        c.close()
        presets = [p["id"] for p in cat["presets"]]
        gpus = [g["id"] for g in cat["gpus"]]
        rng = random.Random(a.seed)
        todo, n_bases = bodies(rng, a.bodies, presets, gpus)
        conns = [[http.client.HTTPConnection("127.0.0.1", p, timeout=120) for _ in range(3)]
                 for p in (port_old, port_new)]
        seen = {"memo": 0, "new": 0, "cache hit": 0, "400": 0}
        for i, body in enumerate(todo):
            k = rng.randrange(3)
            answers = []
            for side in (0, 1):
                conn = conns[side][k]
                conn.request("POST", "/api/v1/recommend", body=body, headers={"Content-Type": "application/json"})
                r = conn.getresponse()
                answers.append((r.status, r.read(), r.getheader("X-Gpuplan-Search"), r.getheader("X-Gpuplan-Cache")))
            (s0, b0, _, _), (s1, b1, search, cache) = answers
            if s0 != s1 or b0 != b1:
                at = next((j for j in range(min(len(b0), len(b1))) if b0[j] != b1[j]), min(len(b0), len(b1)))
                print("request %d differs (status %d vs %d)\nbody: %s\nold: ...%r\nnew: ...%r" %
                      (i, s0, s1, body, b0[max(0, at - 120):at + 120], b1[max(0, at - 120):at + 120]))
                return 1
            if search in seen:
                seen[search] += 1
            if cache == "hit":
                seen["cache hit"] += 1
            if s1 == 400:
                seen["400"] += 1
        print("%d bodies on %d workloads: every status and body equal; search memo %d, search new %d, "
              "answer cache hits %d, invalid %d" % (len(todo), n_bases, seen["memo"], seen["new"], seen["cache hit"],
                                                    seen["400"]))
        return 0
    finally:
        for p in procs:
            p.terminate()
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
