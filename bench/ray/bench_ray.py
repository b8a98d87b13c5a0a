#!/usr/bin/env python3
"""Ray integration (issue 14): paimonc.ray vs pypaimon.ray 2.1.0, side by
side in one run on the same local Ray setup.

Scenarios (the issue's targets: >= 5x each):
  update    update_by_row_id of all N rows (default 1M): a ray.data.Dataset
            (from_arrow of 8 pyarrow Tables) of _ROW_ID (a random
            permutation) + c1 (random doubles) into the N-row data-evolution
            table, update_cols=['c1'] (one commit)
  ids       read_by_row_id of --ids (default 100k) random row ids (a Dataset
            of 4 blocks), projection id, c1, s; consumed with
            ray.get(ds.to_arrow_refs())
  merge     merge_into of --keys (default 100k) source rows on id, half of them
            ids of the table, half new: WhenMatched.update({'c1':
            source_col('c1')}) + WhenNotMatched(insert='*')
  read      read_paimon of a --read-rows (default 10M) x 4-column table,
            consumed with ray.get(ds.to_arrow_refs())

The tables are written once by paimonc: 'de' (N rows x 6 columns id BIGINT,
c1 DOUBLE, c2 BIGINT, c3 DOUBLE, c4 INT, s STRING; row-tracking +
data-evolution; --files commits, so --files data files) and 'big'
(--read-rows x id, c1, c2, s; commits of 1M rows). update and merge run on a
fresh copy of 'de' per measurement; ids and read read the originals.

Every measurement runs in its own subprocess: ray.init(address='local',
num_cpus=2) (a new local Ray, never another process's cluster), Ray Data
progress bars off, then a warm-up outside the clock (two Ray workers started
and the peer's package imported in them, and one tiny Ray Data pipeline), and
the inputs built (the source Datasets); the clock covers the call as the
user makes it, plus the consumption of a returned Dataset. After the clock
the result is read back with the peer's own library (a plain, non-Ray read)
and checked against the expected data, computed from the generators; the
peers' checks must also be identical, or the run fails. A measurement that
runs longer than --peer-timeout is killed (its whole process session, Ray
included) and reported as '> N s'. Each measurement prints one JSON line
('RESULT {...}'); the parent then prints a table.

    .venv/bin/python bench/ray/bench_ray.py --small            # ~100k rows, for development
    .venv/bin/python bench/ray/bench_ray.py                    # full sizes
    .venv/bin/python bench/ray/bench_ray.py --only ids,read --rounds 3
"""
import argparse
import hashlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true", "bucket": "-1"}
SCENARIOS = ("update", "ids", "merge", "read")
MODIFIES = ("update", "merge")
PEERS = ("paimonc", "pypaimon")
BIG_COMMIT = 1_000_000


# ------------------------------------------------------------------ data
# Every column is a function of the row's id (c1 of a seeded generator over
# the table), so a child can rebuild any row set it expects.

def de_schema(pa):
    return pa.schema([("id", pa.int64()), ("c1", pa.float64()), ("c2", pa.int64()), ("c3", pa.float64()),
                      ("c4", pa.int32()), ("s", pa.string())])


def big_schema(pa):
    return pa.schema([("id", pa.int64()), ("c1", pa.float64()), ("c2", pa.int64()), ("s", pa.string())])


def s_of(pa, pc, ids):
    return pc.binary_join_element_wise("k", pc.cast(pa.array(ids % 100003), pa.string()), "")


def de_c1(n):
    import numpy as np
    return np.random.default_rng(1).standard_normal(n)


def de_rows(ids, c1):
    """The 'de' rows of ``ids`` with c1 values ``c1``."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    ids = np.asarray(ids, dtype=np.int64)
    return pa.table([pa.array(ids), pa.array(c1, pa.float64()), pa.array((ids * 2654435761) % (1 << 31)),
                     pa.array(np.sin(ids.astype(np.float64))), pa.array((ids % 1000).astype(np.int32)),
                     s_of(pa, pc, ids)], schema=de_schema(pa))


def big_chunk(lo, n):
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    ids = np.arange(lo, lo + n, dtype=np.int64)
    return pa.table([pa.array(ids), pa.array(np.random.default_rng(lo + 1).standard_normal(n)),
                     pa.array((ids * 40503) % 1000003), s_of(pa, pc, ids)], schema=big_schema(pa))


def update_source(n):
    """(_ROW_ID permutation, new c1 per source row)."""
    import numpy as np
    return np.random.default_rng(21).permutation(n).astype(np.int64), np.random.default_rng(22).standard_normal(n)


def read_ids(n, k):
    import numpy as np
    return np.random.default_rng(31).choice(n, size=min(k, n), replace=False).astype(np.int64)


def merge_source(n, k):
    """k source rows: k//2 ids of the table, the rest new ids n.., shuffled,
    with new c1 values."""
    import numpy as np
    half = min(k // 2, n)
    old = np.random.default_rng(41).choice(n, size=half, replace=False).astype(np.int64)
    new = np.arange(n, n + (k - half), dtype=np.int64)
    ids = np.random.default_rng(42).permutation(np.concatenate([old, new]))
    return de_rows(ids, np.random.default_rng(43).standard_normal(len(ids)))


def blocks(tbl, parts):
    step = max(1, -(-tbl.num_rows // parts))
    return [tbl.slice(lo, step) for lo in range(0, tbl.num_rows, step)]


def digest(tbl, key):
    """Row count and one sha1 per column of ``tbl`` sorted by ``key``
    (numeric columns by their values' bytes, strings by lengths + bytes)."""
    import numpy as np
    import pyarrow as pa
    tbl = tbl.sort_by(key)
    out = {"rows": tbl.num_rows}
    for name in sorted(tbl.column_names):
        col = tbl.column(name)
        if col.null_count:
            out[name] = "has %d nulls" % col.null_count
            continue
        arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
        h = hashlib.sha1()
        if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
            arr = arr.cast(pa.large_string())
            offs = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset: arr.offset + len(arr) + 1]
            h.update(np.diff(offs).tobytes())
            if len(arr):
                h.update(memoryview(arr.buffers()[2])[int(offs[0]):int(offs[-1])])
        else:
            h.update(np.ascontiguousarray(arr.to_numpy(zero_copy_only=False)).tobytes())
        out[name] = h.hexdigest()
    return out


def make_tables(tmp, n, read_rows, files, need_de, need_big):
    import pyarrow as pa
    import paimonc
    out = {}
    for name, need, schema in (("de", need_de, de_schema(pa)), ("big", need_big, big_schema(pa))):
        if not need:
            continue
        wh = os.path.join(tmp, "base_" + name)
        cat = paimonc.CatalogFactory.create({"warehouse": wh})
        cat.create_database("db", True)
        opts = dict(DE) if name == "de" else {"bucket": "-1"}
        cat.create_table("db." + name, paimonc.Schema.from_pyarrow_schema(schema, options=opts), False)
        t = cat.get_table("db." + name)
        t0 = time.perf_counter()
        if name == "de":
            c1 = de_c1(n)
            step = max(1, -(-n // files))
            chunks = [(lo, min(n, lo + step)) for lo in range(0, n, step)]
            make = lambda lo, hi: de_rows(range(lo, hi), c1[lo:hi])  # noqa: E731
        else:
            chunks = [(lo, min(read_rows, lo + BIG_COMMIT)) for lo in range(0, read_rows, BIG_COMMIT)]
            make = lambda lo, hi: big_chunk(lo, hi - lo)  # noqa: E731
        for lo, hi in chunks:
            wb = t.new_batch_write_builder()
            w = wb.new_write()
            w.write_arrow(make(lo, hi))
            c = wb.new_commit()
            c.commit(w.prepare_commit())
            c.close()
            w.close()
        rows = n if name == "de" else read_rows
        print("table db.%s: %d rows x %d columns in %d commits, written by paimonc in %.1f s"
              % (name, rows, len(schema), len(chunks), time.perf_counter() - t0), flush=True)
        out[name] = wh
    return out


# ------------------------------------------------------------------ child

def own_read(lib, wh, name, cols):
    """A plain (non-Ray) full read with the peer's own library."""
    t = lib.CatalogFactory.create({"warehouse": wh}).get_table("db." + name)
    rb = t.new_read_builder().with_projection(cols)
    return rb.new_read().to_arrow(rb.new_scan().plan().splits())


def concat(pa, tables):
    tables = [t for t in tables if t.num_rows]
    return pa.concat_tables(tables, promote_options="permissive") if tables else None


def child(a):
    import logging
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute  # noqa: F401  imported before the clock, for both peers
    try:
        import pandas  # noqa: F401  pypaimon imports it with itself; pyarrow on first use
    except ImportError:
        pass
    import ray
    import ray.data
    if a.peer == "paimonc":
        import paimonc as lib
        import paimonc.ray as pr
    else:
        import pypaimon as lib
        import pypaimon.ray as pr
    out = {"scenario": a.scenario, "peer": a.peer}
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             logging_level=logging.WARNING)
    try:
        ray.data.DataContext.get_current().enable_progress_bars = False
        peer_mod = "paimonc.ray" if a.peer == "paimonc" else "pypaimon.ray"

        @ray.remote
        def warm(mod):
            import importlib
            importlib.import_module(mod)
            time.sleep(0.5)
            return os.getpid()

        pids = set(ray.get([warm.remote(peer_mod) for _ in range(4)]))
        ray.data.range(8, override_num_blocks=2).map_batches(lambda b: b).materialize()
        out["warm_workers"] = len(pids)
        opts = {"warehouse": a.warehouse}
        n = a.rows
        expect = {}

        if a.scenario == "update":
            rid, vals = update_source(n)
            src = pa.table({"_ROW_ID": pa.array(rid), "c1": pa.array(vals)})
            ds = ray.data.from_arrow(blocks(src, 8))

            def op():
                return {"num_updated": int(pr.update_by_row_id("db.de", ds, opts, update_cols=["c1"])["num_updated"])}
        elif a.scenario == "ids":
            ids = read_ids(n, a.ids)
            ds = ray.data.from_arrow(blocks(pa.table({"_ROW_ID": pa.array(ids)}), 4))
            proj = ["id", "c1", "s"]

            def op():
                res = pr.read_by_row_id("db.de", ds, opts, projection=proj)
                got = ray.get(list(res.to_arrow_refs()))
                return {"tables": got}
        elif a.scenario == "merge":
            src = merge_source(n, a.keys)
            ds = ray.data.from_arrow(blocks(src, 8))

            def op():
                r = pr.merge_into("db.de", ds, opts, on=["id"],
                                  when_matched=[pr.WhenMatched.update({"c1": pr.source_col("c1")})],
                                  when_not_matched=[pr.WhenNotMatched(insert="*")])
                return {"num_matched": int(r["num_matched"]), "num_inserted": int(r["num_inserted"])}
        elif a.scenario == "read":
            def op():
                res = pr.read_paimon("db.big", opts)
                got = ray.get(list(res.to_arrow_refs()))
                return {"tables": got}
        else:
            raise SystemExit("unknown scenario " + a.scenario)

        print("START", flush=True)
        t0 = time.perf_counter()
        try:
            res = op()
        except BaseException as e:  # noqa: BLE001 - reported, not hidden
            out["seconds"] = time.perf_counter() - t0
            out["status"] = "error"
            out["error"] = "%s: %s" % (type(e).__name__, str(e))
            out["traceback"] = traceback.format_exc()[-6000:]
            print("RESULT " + json.dumps(out), flush=True)
            return
        out["seconds"] = time.perf_counter() - t0
        out["status"] = "ok"
        print("DONE", flush=True)

        # ---- checks (after the clock)
        check = {}
        if a.scenario == "update":
            check["result"] = res
            expect["result"] = {"num_updated": n}
            got = own_read(lib, a.warehouse, "de", ["_ROW_ID", "id", "c1", "c2", "c3", "c4", "s"])
            check["table"] = digest(got, "_ROW_ID")
            c1 = de_c1(n)
            c1[rid] = vals
            want = de_rows(np.arange(n), c1)
            want = want.append_column("_ROW_ID", pa.array(np.arange(n, dtype=np.int64)))
            expect["table"] = digest(want, "_ROW_ID")
        elif a.scenario == "ids":
            got = concat(pa, res["tables"])
            check["blocks"] = len(res["tables"])
            out["blocks"] = check.pop("blocks")
            check["table"] = digest(got, "_ROW_ID") if got is not None else {"rows": 0}
            sid = np.sort(ids)
            want = de_rows(sid, de_c1(n)[sid]).select(proj)
            want = want.append_column("_ROW_ID", pa.array(sid))
            expect["table"] = digest(want, "_ROW_ID")
        elif a.scenario == "merge":
            check["result"] = res
            matched = int((src.column("id").to_numpy() < n).sum())
            expect["result"] = {"num_matched": matched, "num_inserted": src.num_rows - matched}
            got = own_read(lib, a.warehouse, "de", ["_ROW_ID", "id", "c1", "c2", "c3", "c4", "s"])
            rids = got.column("_ROW_ID").to_numpy()
            gids = got.column("id").to_numpy()
            old = gids < n
            check["row_ids"] = {"old_keep_id": bool((rids[old] == gids[old]).all()),
                                "new_unique_above": bool(len(np.unique(rids[~old])) == int((~old).sum())
                                                         and (rids[~old] >= n).all())}
            expect["row_ids"] = {"old_keep_id": True, "new_unique_above": True}
            check["table"] = digest(got.drop_columns(["_ROW_ID"]), "id")
            c1 = de_c1(n)
            sid = src.column("id").to_numpy()
            sc1 = src.column("c1").to_numpy()
            c1[sid[sid < n]] = sc1[sid < n]
            want = pa.concat_tables([de_rows(np.arange(n), c1), src.filter(pa.array(sid >= n))])
            expect["table"] = digest(want, "id")
        elif a.scenario == "read":
            got = concat(pa, res["tables"])
            out["blocks"] = len(res["tables"])
            check["table"] = digest(got, "id")
            want = pa.concat_tables([big_chunk(lo, min(a.read_rows, lo + BIG_COMMIT) - lo)
                                     for lo in range(0, a.read_rows, BIG_COMMIT)])
            expect["table"] = digest(want, "id")
        out["check"] = check
        out["expected_ok"] = check == expect
        if not out["expected_ok"]:
            out["expected"] = expect
        print("RESULT " + json.dumps(out), flush=True)
    finally:
        ray.shutdown()


# ------------------------------------------------------------------ parent

def kill_session(proc):
    """SIGTERM, then SIGKILL, every process of the child's own session (the
    child and the Ray processes it started), by pid."""
    def members():
        pids = []
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    if os.getsid(int(d)) == proc.pid:
                        pids.append(int(d))
                except (ProcessLookupError, PermissionError):
                    pass
        return pids
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in members():
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.time() + 10
        while members() and time.time() < deadline:
            time.sleep(0.2)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def run_peer(a, peer, scenario, wh, log_path):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", peer, scenario, wh, "--rows", str(a.rows),
           "--read-rows", str(a.read_rows), "--ids", str(a.ids), "--keys", str(a.keys)]
    with open(log_path, "w") as err:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True)
    lines = queue.Queue()

    def pump():
        for line in p.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)
    threading.Thread(target=pump, daemon=True).start()
    setup_limit = time.time() + a.setup_timeout
    started = None
    result = None
    while True:
        limit = (started + a.peer_timeout) if started else setup_limit
        try:
            line = lines.get(timeout=max(0.1, limit - time.time()))
        except queue.Empty:
            if started:
                kill_session(p)
                return {"scenario": scenario, "peer": peer, "status": "timeout", "seconds": a.peer_timeout,
                        "error": "no result within --peer-timeout %d s (killed)" % a.peer_timeout}
            kill_session(p)
            return {"scenario": scenario, "peer": peer, "status": "error",
                    "error": "the setup or the checks took longer than %d s (killed); log: %s"
                    % (a.setup_timeout, log_path)}
        if line is None:
            break
        if line == "START":
            started = time.time()
        elif line == "DONE":
            started = None                           # measured; the checks get the setup budget
            setup_limit = time.time() + a.setup_timeout
        elif line.startswith("RESULT "):
            result = json.loads(line[len("RESULT "):])
    p.wait()
    if result is None:
        with open(log_path) as f:
            tail = f.read()[-3000:]
        return {"scenario": scenario, "peer": peer, "status": "error",
                "error": "the child exited with %d without a result: %s" % (p.returncode, tail)}
    return result


def fmt_time(r):
    if r is None:
        return "-"
    if r["status"] == "timeout":
        return "> %d s" % r["seconds"]
    if r["status"] == "error":
        return "error"
    return "%.2f s" % r["seconds"]


def fmt_ratio(c, p):
    if c is None or p is None or c["status"] != "ok":
        return "-"
    if p["status"] == "timeout":
        return "> %.1fx" % (p["seconds"] / c["seconds"])
    if p["status"] != "ok":
        return "-"
    return "%.1fx" % (p["seconds"] / c["seconds"])


def describe(a, s):
    return {"update": "update_by_row_id %s rows (all) into %s-row table" % (f"{a.rows:,}", f"{a.rows:,}"),
            "ids": "read_by_row_id %s random ids, 3 columns, of %s rows" % (f"{min(a.ids, a.rows):,}", f"{a.rows:,}"),
            "merge": "merge_into %s keys (half matched) into %s rows" % (f"{a.keys:,}", f"{a.rows:,}"),
            "read": "read_paimon %s rows x 4 columns" % f"{a.read_rows:,}"}[s]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000, help="rows of the data-evolution table")
    ap.add_argument("--read-rows", type=int, default=10_000_000, help="rows of the full-read table")
    ap.add_argument("--ids", type=int, default=100_000, help="row ids read by read_by_row_id")
    ap.add_argument("--keys", type=int, default=100_000, help="source rows of merge_into")
    ap.add_argument("--files", type=int, default=8, help="commits (= data files) of the data-evolution table")
    ap.add_argument("--rounds", type=int, default=1, help="measurements per peer and scenario (best is shown)")
    ap.add_argument("--only", default=",".join(SCENARIOS), help="comma-separated: " + ",".join(SCENARIOS))
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--small", action="store_true", help="100k rows, 1M read rows, 10k ids, 10k keys")
    ap.add_argument("--peer-timeout", type=int, default=900, help="seconds per measurement before it is killed")
    ap.add_argument("--setup-timeout", type=int, default=600, help="seconds for a child's setup / checks")
    ap.add_argument("--json", help="write all measurements here")
    ap.add_argument("--tmp", help="directory for the tables (default: a new temporary one)")
    ap.add_argument("--child", nargs=3, metavar=("PEER", "SCENARIO", "WAREHOUSE"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        a.peer, a.scenario, a.warehouse = a.child
        return child(a)
    if a.small:
        a.rows, a.read_rows, a.ids, a.keys = 100_000, 1_000_000, 10_000, 10_000
    only = [s.strip() for s in a.only.split(",") if s.strip()]
    bad = [s for s in only if s not in SCENARIOS]
    if bad:
        raise SystemExit("unknown scenario(s) %s; choose from %s" % (bad, ",".join(SCENARIOS)))
    peers = [p.strip() for p in a.peers.split(",") if p.strip()]
    import platform
    import pyarrow
    import ray
    from importlib.metadata import version
    print("bench_ray: %s, %d cpus, Python %s, pyarrow %s, ray %s, pypaimon %s; load average at start %s"
          % (time.strftime("%Y-%m-%d %H:%M"), os.cpu_count(), platform.python_version(), pyarrow.__version__,
             ray.__version__, version("pypaimon"),
             " ".join("%.2f" % x for x in os.getloadavg())), flush=True)
    tmp = tempfile.mkdtemp(prefix="bench_ray_", dir=a.tmp)
    results = []
    try:
        bases = make_tables(tmp, a.rows, a.read_rows, a.files, any(s in only for s in ("update", "ids", "merge")),
                            "read" in only)
        for s in only:
            base = bases["big" if s == "read" else "de"]
            timed_out = set()
            for rnd in range(a.rounds):
                for peer in peers:
                    if peer in timed_out:
                        continue
                    wh = base
                    if s in MODIFIES:
                        wh = os.path.join(tmp, "run_%s_%s" % (s, peer))
                        shutil.rmtree(wh, ignore_errors=True)
                        shutil.copytree(base, wh)
                    load = os.getloadavg()
                    r = run_peer(a, peer, s, wh, os.path.join(tmp, "log_%s_%s_%d.txt" % (s, peer, rnd)))
                    r["round"] = rnd
                    r["load_before"] = [round(x, 2) for x in load]
                    r["load_after"] = [round(x, 2) for x in os.getloadavg()]
                    if r["status"] == "timeout":
                        timed_out.add(peer)
                    results.append(r)
                    brief = {k: v for k, v in r.items() if k not in ("traceback", "expected")}
                    print("RESULT " + json.dumps(brief, sort_keys=True), flush=True)
                    if wh != base:
                        shutil.rmtree(wh, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"args": vars(a), "results": results}, f, indent=1, sort_keys=True)

    # ---- table
    failures = []
    print()
    print("| scenario | paimonc.ray | pypaimon.ray 2.1.0 | pypaimon / paimonc |")
    print("| --- | ---: | ---: | ---: |")
    for s in only:
        best = {}
        for peer in peers:
            rs = [r for r in results if r["scenario"] == s and r["peer"] == peer]
            ok = [r for r in rs if r["status"] == "ok"]
            if ok:
                best[peer] = min(ok, key=lambda r: r["seconds"])
            elif rs:
                best[peer] = next((r for r in rs if r["status"] == "timeout"), rs[0])
            for r in ok:
                if not r.get("expected_ok"):
                    failures.append("%s %s round %d: the result differs from the expected data: %s"
                                    % (s, peer, r["round"], json.dumps(r.get("check"))))
        checks = {json.dumps(r["check"], sort_keys=True) for r in results
                  if r["scenario"] == s and r["status"] == "ok"}
        if len(checks) > 1:
            failures.append("%s: the peers' (or rounds') results differ: %s" % (s, sorted(checks)))
        if "paimonc" in best and best["paimonc"]["status"] != "ok":
            failures.append("%s: paimonc did not complete: %s" % (s, best["paimonc"].get("error")))
        times = [r["seconds"] for r in results if r["scenario"] == s and r["peer"] == "paimonc" and r["status"] == "ok"]
        extra = " (rounds: %s)" % ", ".join("%.2f" % t for t in times) if len(times) > 1 else ""
        print("| %s%s | %s | %s | %s |" % (describe(a, s), extra, fmt_time(best.get("paimonc")),
                                          fmt_time(best.get("pypaimon")),
                                          fmt_ratio(best.get("paimonc"), best.get("pypaimon"))))
    print()
    print("load average at the end: %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    for r in results:
        if r["status"] == "error":
            print("\n%s %s round %d failed: %s" % (r["scenario"], r["peer"], r["round"], r["error"][:3000]))
            if r.get("traceback"):
                print("  traceback tail:\n    " + "\n    ".join(r["traceback"].strip().splitlines()[-12:]))
    if failures:
        print()
        for f in failures:
            print("FAILED: " + f)
        raise SystemExit(1)
    print("all results checked: equal to the expected data and between the peers")


if __name__ == "__main__":
    main()
