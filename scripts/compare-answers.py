#!/usr/bin/env python3
"""compare-answers.py REF_GPUPLAN NEW_GPUPLAN [--n N] [--seed S]

Starts two servers (a reference build, e.g. main's, and the build under
test) on ephemeral ports with temporary databases and sends both the same
random sequence of POST /api/v1/recommend and /api/v1/estimate bodies over
one keep-alive connection each. Every answer must be the same: status, the
headers (but Date) in order, and the body byte for byte. Exits 1 at the first
difference, printing the body that caused it.

The bodies vary every field of the form: model (presets and custom shapes,
dense and MoE), task, precision, seq_len, tokens_b, deadline_days,
budget_usd, dataset_tb, pricing, gpus_allowed, max_gpus, optimizer,
attention, global_batch_tokens, lora_rank, and for estimates the cluster and
parallel layout. They come in runs: a workload is asked again with other
tokens, deadlines, budgets and datasets (search memo hits), now and then the
very same body again (answer cache hits), earlier workloads come back (hits
on older memo slots), and more than the memo's 64 workloads are used
(evictions); a few bodies are invalid (400s). Written for the search memo
and answer writer's optimisations, which must never change an answer.
"""
import argparse
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time


def start(binary, d):
    port_file = os.path.join(d, "port")
    proc = subprocess.Popen([binary, "serve", "--port", "0", "--db", os.path.join(d, "c.db"), "--port-file",
                             port_file, "--threads", "2", "--quiet"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    for _ in range(300):
        if os.path.exists(port_file) and open(port_file).read().strip():
            return proc, int(open(port_file).read().strip())
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("server %s did not start" % binary)


def ask(conn, path, body):
    conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    data = r.read()
    heads = [(k, v) for k, v in r.getheaders() if k.lower() != "date"]
    return r.status, heads, data


GPUS = ['a100-sxm-40gb', 'a100-sxm-80gb', 'a100-pcie-40gb', 'a100-pcie-80gb', 'h100-sxm-80gb', 'h100-pcie-80gb',
        'h100-nvl-94gb', 'h800-sxm-80gb', 'h200-sxm-141gb', 'h200-nvl-141gb', 'b200-sxm-180gb', 'gb200-nvl-186gb',
        'gb300-nvl-279gb', 'l40s-pcie-48gb', 'l4-pcie-24gb', 'a10-pcie-24gb', 'rtx4090-pcie-24gb',
        'rtx5090-pcie-32gb', 'rtx6000ada-pcie-48gb', 'mi300x-oam-192gb', 'mi325x-oam-256gb', 'gaudi3-oam-128gb']
PRESETS = ['llama-2-7b', 'llama-2-13b', 'llama-2-70b', 'llama-3-8b', 'llama-3-70b', 'llama-3.1-8b', 'llama-3.1-70b',
           'llama-3.1-405b', 'llama-3.2-1b', 'llama-3.2-3b', 'mistral-7b', 'mixtral-8x7b', 'qwen2.5-7b',
           'qwen2.5-14b', 'qwen2.5-32b', 'qwen2.5-72b', 'deepseek-v3', 'dbrx', 'gpt-3-175b', 'nemotron-4-340b',
           'bloom-176b', 'pythia-6.9b']


def custom_model(rnd):
    hidden = rnd.choice([512, 1024, 2048, 4096, 5120, 8192])
    heads = rnd.choice([8, 16, 32, 64])
    layers = rnd.choice([4, 12, 24, 32, 48, 80])
    m = {"params_b": round(12 * layers * hidden * hidden / 1e9 + 0.05, 3), "layers": layers, "hidden": hidden,
         "heads": heads, "kv_heads": rnd.choice([heads, max(1, heads // 8)]),
         "ffn_hidden": rnd.choice([4 * hidden, hidden * 8 // 3]), "vocab": rnd.choice([32000, 128256])}
    if rnd.random() < 0.3:
        m["experts"] = rnd.choice([8, 16])
        m["experts_active"] = 2
        m["params_b"] = round(m["params_b"] * 4, 3)
        m["active_params_b"] = round(m["params_b"] / 3, 3)
    if rnd.random() < 0.3:
        m["gated"] = rnd.random() < 0.5
    if rnd.random() < 0.2:
        m["tied_embeddings"] = True
    return m


def base_workload(rnd):
    """The fields the layout search reads (the memo's key)."""
    w = {"model": {"preset": rnd.choice(PRESETS[:16] if rnd.random() < 0.8 else PRESETS)}
         if rnd.random() < 0.75 else custom_model(rnd)}
    if rnd.random() < 0.6:
        w["task"] = rnd.choice(["pretrain", "finetune", "lora", "qlora"])
    if rnd.random() < 0.5:
        w["precision"] = rnd.choice(["bf16", "fp16", "fp8", "fp32"])
    if rnd.random() < 0.4:
        w["seq_len"] = rnd.choice([2048, 4096, 8192, 32768])
    if rnd.random() < 0.5:
        w["pricing"] = rnd.choice(["cloud", "buy"])
    if rnd.random() < 0.3:
        w["gpus_allowed"] = rnd.sample(GPUS, rnd.randint(1, 5))
    if rnd.random() < 0.3:
        w["max_gpus"] = rnd.choice([8, 16, 64, 256, 1024, 4096])
    if rnd.random() < 0.2:
        w["optimizer"] = rnd.choice(["adamw", "adamw-8bit"])
    if rnd.random() < 0.15:
        w["attention"] = rnd.choice(["flash", "standard"])
    if rnd.random() < 0.2:
        w["global_batch_tokens"] = rnd.choice([1e6, 2e6, 4e6, 16e6])
    if w.get("task") in ("lora", "qlora") and rnd.random() < 0.5:
        w["lora_rank"] = rnd.choice([8, 16, 64])
    return w


def priced(rnd, base):
    """base with the four pricing inputs the search never reads."""
    w = dict(base)
    w["tokens_b"] = rnd.choice([round(rnd.uniform(0.01, 20000), rnd.choice([0, 1, 3])), rnd.randint(1, 30000),
                                rnd.choice([1, 10, 100, 1000, 15000])])
    if rnd.random() < 0.7:
        w["deadline_days"] = rnd.choice([rnd.randint(1, 365), round(rnd.uniform(0.5, 200), 2), 0.01, 7, 30, 90])
    if rnd.random() < 0.7:
        w["budget_usd"] = rnd.choice([rnd.randint(100, 10**8), 1e4, 5e6, 1e9, round(rnd.uniform(1e3, 1e7), 2)])
    if rnd.random() < 0.5:
        w["dataset_tb"] = rnd.choice([0, 0.5, 3, 40, 1000, round(rnd.uniform(0, 500), 3)])
    keys = list(w.keys())
    if rnd.random() < 0.3:
        rnd.shuffle(keys)
    return {k: w[k] for k in keys}


def estimate_body(rnd, w):
    e = dict(w)
    gpu = rnd.choice(GPUS)
    per_node = rnd.choice([1, 2, 4, 8])
    e["cluster"] = {"gpu": gpu, "count": per_node * rnd.choice([1, 2, 4, 16]), "per_node": per_node}
    if rnd.random() < 0.5:
        e["cluster"]["fabric_gbps_per_gpu"] = rnd.choice([100, 200, 400])
    if rnd.random() < 0.6:
        e["parallel"] = {"tp": rnd.choice([1, 2, 4, 8]), "pp": rnd.choice([1, 2]), "zero": rnd.choice([0, 1, 3])}
    return e


def invalid(rnd, w):
    e = dict(w)
    k = rnd.choice(["tokens_b", "deadline_days", "budget_usd", "dataset_tb", "task", "max_gpus", "bogus"])
    e[k] = rnd.choice([-1, "x", None, 1e99])
    return e


def concurrent(a, procs, conns, sent):
    import threading
    skip = ("date", "x-gpuplan-cache", "x-gpuplan-search")
    ref = []
    for path, body in sent:
        st, heads, data = ask(conns[0], path, body)
        ref.append((st, [h for h in heads if h[0].lower() not in skip], data))
    got = [None] * len(sent)
    port = conns[1].port

    def worker(k):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for n in range(k, len(sent), a.threads):
            st, heads, data = ask(c, *sent[n])
            got[n] = (st, [h for h in heads if h[0].lower() not in skip], data)

    ts = [threading.Thread(target=worker, args=(k,)) for k in range(a.threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for n, (r, g) in enumerate(zip(ref, got)):
        if r != g:
            print("DIFFERENT answer to request %d: %s %s" % (n, sent[n][0], sent[n][1]))
            return 1
    print("%d requests from %d connections at once, every answer the same" % (len(sent), a.threads))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ref")
    ap.add_argument("new")
    ap.add_argument("--n", type=int, default=1600)
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--threads", type=int, default=0,
                    help="ask the new server from this many connections at once (the reference one in order): "
                         "the scratch pool then hands out several scratches; compared are status, body and the "
                         "headers but Date and the X-Gpuplan-Cache/-Search ones, which depend on what ran first")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    procs = []
    try:
        conns = []
        for b in (a.ref, a.new):
            d = tempfile.mkdtemp(prefix="cmpans-")
            p, port = start(b, d)
            procs.append(p)
            conns.append(http.client.HTTPConnection("127.0.0.1", port, timeout=120))
        seen, sent, kinds = [], [], {}
        i = 0
        while i < a.n:
            r = rnd.random()
            if r < 0.55 or not seen:
                base = base_workload(rnd)
                seen.append(base)
            elif r < 0.9:
                base = seen[-rnd.randint(1, min(len(seen), 4))]   # a recent workload: memo hits
            else:
                base = rnd.choice(seen)                         # an old one: a hit or an evicted slot
            run = rnd.choice([1, 2, 3, 5, 8, 12])
            for _ in range(run):
                x = rnd.random()
                if x < 0.06 and sent:
                    path, body = rnd.choice(sent[-3:])            # the same body again: the answer cache
                elif x < 0.16:
                    path, body = "/api/v1/estimate", json.dumps(estimate_body(rnd, priced(rnd, base)))
                elif x < 0.19:
                    path, body = "/api/v1/recommend", json.dumps(invalid(rnd, priced(rnd, base)))
                else:
                    path, body = "/api/v1/recommend", json.dumps(priced(rnd, base))
                sent.append((path, body))
                if a.threads:
                    i += 1
                    continue
                ra = ask(conns[0], path, body)
                rb = ask(conns[1], path, body)
                key = (path, ra[0], dict(ra[1]).get("X-Gpuplan-Search", dict(ra[1]).get("X-Gpuplan-Cache", "")))
                kinds[key] = kinds.get(key, 0) + 1
                if ra != rb:
                    print("DIFFERENT answer to request %d: %s %s" % (i, path, body))
                    print("ref:", ra[0], ra[1], ra[2][:300])
                    print("new:", rb[0], rb[1], rb[2][:300])
                    if ra[2] != rb[2]:
                        n = next((k for k in range(min(len(ra[2]), len(rb[2]))) if ra[2][k] != rb[2][k]),
                                 min(len(ra[2]), len(rb[2])))
                        print("bodies first differ at byte", n, ra[2][max(0, n - 80):n + 80], rb[2][max(0, n - 80):n + 80])
                    return 1
                i += 1
        if a.threads:
            return concurrent(a, procs, conns, sent)
        print("%d requests, %d workloads, every answer the same; by (path, status, search/cache):" % (i, len(seen)))
        for k in sorted(kinds, key=str):
            print("  ", k, kinds[k])
        return 0
    finally:
        for p in procs:
            p.send_signal(signal.SIGINT)
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


if __name__ == "__main__":
    sys.exit(main())
