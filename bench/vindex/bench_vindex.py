"""Benchmark of our vector indexes (src/index/vindex*.c) against faiss-cpu
and paimon-vindex 0.5.0 on seeded clustered float vectors.

For IVF-FLAT and IVF-PQ at our defaults, as users get them (nlist = the
automatic choice, our automatic nprobe for k = 10 -- we search with nprobe 0
--, pq.m from our default pq.code-ratio 0.125; docs/global-index.md): recall@10 against exact search, single-query QPS (one thread, one
query per call) and batch QPS (all queries in one call, all cores), and build
time; faiss runs with the same nlist / nprobe / m (IndexIVFFlat, IndexIVFPQ,
8-bit codes, trained on the same number of points per centroid) and the same
thread counts; paimon-vindex builds the same index through its Python API and
is searched with the same nprobe.

    .venv/bin/python bench/vindex/bench_vindex.py [--n 1000000] [--d 128] [--nq 1000]
        [--build build] [--skip-vindex] [--profile tight|diffuse] [--json out.json]

Our side runs through tests/interop/vindex_driver.c, compiled here against
<build>/libpaimonc.a (build the library first: ninja -C build).
"""
import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "interop"))

import test_vindex_interop as ti  # noqa: E402  (driver build + paimon_vindex helpers)


def clustered(n, d, centres, seed, noise):
    rng = np.random.default_rng(seed)
    c = rng.uniform(-10, 10, size=(centres, d)).astype(np.float32)
    out = np.empty((n, d), dtype=np.float32)
    step = 100000
    for i in range(0, n, step):
        m = min(step, n - i)
        lab = rng.integers(0, centres, size=m)
        out[i:i + m] = c[lab] + rng.standard_normal((m, d), dtype=np.float32) * noise
    return out


def recall(got, truth, k):
    hit = 0
    for g, t in zip(got, truth):
        hit += len(set(g[:k].tolist()) & set(t[:k].tolist()))
    return hit / (len(truth) * k)


def auto_nlist(n):
    root = max(np.sqrt(n), 1.0)
    lower = 1 << (int(np.floor(root)).bit_length() - 1)
    upper = lower * 2
    cand = lower if root - lower <= upper - root else upper
    cap = max(n // 64, 1)
    return max(1, min(cand, 1 << (cap.bit_length() - 1)))


def auto_nprobe(nlist, n, k, kind):
    """Our automatic nprobe (vkmeans.c pm_vindex_auto_nprobe_for): vindex's
    rule with the floor ceil(3*nlist/16) instead of ceil(nlist/16) (the same
    for ivf-flat, ivf-sq, ivf-pq). Checked against the driver's info."""
    avg = max(-(-n // nlist), 1)
    floor = -(-3 * nlist // 16)
    return min(nlist, max(8, floor, -(-(4 * k) // avg)))


def auto_pq_m(d, bits=8, ratio=0.125):
    """Our default pq.m (index.rs infer_uniform_pq_m at our default
    pq.code-ratio 0.125 for 8-bit codes)."""
    target = d * 32.0 * ratio / bits
    best, bd = 1, float("inf")
    for m in range(1, d + 1):
        if d % m == 0:
            dist = abs(m - target)
            if dist < bd or (dist == bd and m > best):
                best, bd = m, dist
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1000000)
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--nq", type=int, default=1000)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--skip-vindex", action="store_true")
    ap.add_argument("--types", default="ivf-flat,ivf-pq")
    ap.add_argument("--json")
    ap.add_argument("--profile", default="tight", choices=["tight", "diffuse"],
                    help="tight: n/10 clusters, noise 1 (neighbours are cluster mates); "
                         "diffuse: n/1000 clusters, noise 2 (neighbours decided by isotropic noise)")
    a = ap.parse_args()
    import faiss

    ti.BUILD = a.build
    tmp = tempfile.mkdtemp(prefix="bench_vindex_")
    drv = ti.build_driver(os.path.join(tmp, "vindex_driver"))
    threads = os.cpu_count() or 1
    n, d, k = a.n, a.d, a.k
    if a.profile == "tight":
        x = clustered(n + a.nq, d, max(16, n // 10), 20261202, 1.0)
    else:
        x = clustered(n + a.nq, d, max(16, n // 1000), 20261202, 2.0)
    q = np.ascontiguousarray(x[n:])
    x = np.ascontiguousarray(x[:n])
    ids = np.arange(n, dtype=np.int64)
    nlist = auto_nlist(n)
    m = auto_pq_m(d)
    nprobes = {kind: auto_nprobe(nlist, n, k, kind) for kind in a.types.split(",")}

    t0 = time.perf_counter()
    flat = faiss.IndexFlatL2(d)
    flat.add(x)
    _, truth = flat.search(q, k)
    gt_s = time.perf_counter() - t0
    del flat
    res = {"profile": a.profile, "n": n, "d": d, "nq": a.nq, "k": k, "nlist": nlist, "nprobe": nprobes, "pq_m": m,
           "threads": threads, "ours_nprobe_arg": 0,
           "cpu": faiss.get_compile_options(), "ground_truth_seconds": round(gt_s, 2), "types": {}}
    print(f"n={n} d={d} nq={a.nq} nlist={nlist} nprobe={nprobes} pq_m={m} threads={threads}", flush=True)

    from pathlib import Path
    tp = Path(tmp)
    for kind in a.types.split(","):
        r = {}
        path = tp / f"{kind}.index"
        # ours
        nprobe = nprobes[kind]
        b = ti.c_build(drv, tp, kind, "l2", x, ids, path)
        r["ours_build_s"] = round(b["seconds"], 2)
        r["ours_bytes"] = b["bytes"]
        # our defaults, as users get them: the build's nlist / pq.m and the
        # automatic nprobe (we search with nprobe 0); faiss gets the same
        info = ti.run(drv, "info", path, k)
        assert info["nlist"] == nlist and info["auto_nprobe"] == nprobe, info
        assert kind != "ivf-pq" or info["pq_m"] == m, info
        r["nprobe"] = nprobe
        got, _ = ti.c_search(drv, tp, path, q, k, 0, mode="batch", threads=threads)
        r["ours_recall"] = round(recall(got, truth, k), 4)
        # faiss, same nlist / nprobe / m, trained on the same sample size
        quant = faiss.IndexFlatL2(d)
        fi = faiss.IndexIVFFlat(quant, d, nlist) if kind == "ivf-flat" else faiss.IndexIVFPQ(quant, d, nlist, m, 8)
        faiss.omp_set_num_threads(threads)
        ntrain = min(n, max(65536, 64 * nlist))
        t0 = time.perf_counter()
        fi.train(x[np.linspace(0, n - 1, ntrain).astype(np.int64)])
        fi.add(x)
        r["faiss_build_s"] = round(time.perf_counter() - t0, 2)
        fi.nprobe = nprobe
        _, fg = fi.search(q, k)
        r["faiss_recall"] = round(recall(fg, truth, k), 4)
        # QPS: best of 3, ours and faiss interleaved (the machine is shared)
        ob, os_, fb, fs = [], [], [], []
        for _ in range(3):
            t = ti.run(drv, "search", path, tp / "q.f32", k, 0, threads, "batch", tp / "i", tp / "dd")
            ob.append(a.nq / t["seconds"])
            t = ti.run(drv, "search", path, tp / "q.f32", k, 0, 1, "single", tp / "i", tp / "dd")
            os_.append(a.nq / t["seconds"])
            faiss.omp_set_num_threads(threads)
            t0 = time.perf_counter()
            fi.search(q, k)
            fb.append(a.nq / (time.perf_counter() - t0))
            faiss.omp_set_num_threads(1)
            t0 = time.perf_counter()
            for i in range(a.nq):
                fi.search(q[i:i + 1], k)
            fs.append(a.nq / (time.perf_counter() - t0))
        faiss.omp_set_num_threads(threads)
        r["ours_batch_qps"] = round(max(ob), 1)
        r["ours_single_qps"] = round(max(os_), 1)
        r["faiss_batch_qps"] = round(max(fb), 1)
        r["faiss_single_qps"] = round(max(fs), 1)
        os.unlink(path)
        del fi, quant
        r["batch_vs_faiss"] = round(r["ours_batch_qps"] / r["faiss_batch_qps"], 2)
        r["single_vs_faiss"] = round(r["ours_single_qps"] / r["faiss_single_qps"], 2)
        # paimon-vindex
        if not a.skip_vindex:
            t0 = time.perf_counter()
            extra = {"pq.m": m} if kind == "ivf-pq" else {}
            blob = ti.vindex_build(kind, "l2", x, ids, nlist=nlist, **extra)
            r["vindex_build_s"] = round(time.perf_counter() - t0, 2)
            vg, _, _ = ti.vindex_search(blob, q, k, nprobe)
            r["vindex_recall"] = round(recall(vg, truth, k), 4)
            reader = ti.pv.VectorIndexReader(ti._Input(blob))
            params = ti.pv.SearchParams.ivf(k, nprobe)
            t0 = time.perf_counter()
            reader.search_batch(q, params)
            r["vindex_batch_qps"] = round(a.nq / (time.perf_counter() - t0), 1)
            reader.close()
            del blob
        res["types"][kind] = r
        print(kind, json.dumps(r), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
