"""Avro data files (`file.format=avro`) between Java Paimon 1.4.2 and paimonc, both directions.

For SEEDS random plans (table_gen.rand_plan: random schema of every type Java's Avro format
takes, nullable at every level, 0..2 partition keys, 2..5 commits, one overwrite, schema
changes between commits) Java executes the plan with `file.format=avro` and a random
`file.compression` (zstd, snappy, deflate) in one harness batch; then

  * Java's own read of the table must equal table_gen.expected(plan) (the plan is sound),
  * paimonc's full read and a random projection must equal it too,
  * every data file of the table must be an .avro file (the format really was used).

In the other direction paimonc executes other random plans with `file.format=avro`; Java's read
(harness table-read) and paimonc's own read must equal the plan, and the files must be .avro.

Exclusions (Java's AvroSchemaConverter refuses them): TIMESTAMP / TIMESTAMP_LTZ with precision
above 6 (table_gen.GEN_FLAGS["ts_high_precision"] off); TIME is at most TIME(3) already.
"""
import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import java_harness as jh  # noqa: E402
import table_gen as tg  # noqa: E402
import table_peers as tp  # noqa: E402

SEEDS = range(int(os.environ.get("PAIMONC_JAVA_AVRO_SEEDS", "40")))
BASE = 70_000


def _plans(base=BASE):
    saved = dict(tg.GEN_FLAGS)
    tg.GEN_FLAGS["ts_high_precision"] = False
    try:
        plans = [tg.rand_plan(base + s) for s in SEEDS]
    finally:
        tg.GEN_FLAGS.clear()
        tg.GEN_FLAGS.update(saved)
    for p in plans:
        rng = random.Random(p["seed"])
        p["schema"]["options"]["file.format"] = "avro"
        p["schema"]["options"]["file.compression"] = rng.choice(["zstd", "snappy", "deflate"])
    return plans


def _compare(label, got_rows, want_rows, fields):
    got = tg.canonical_rows(got_rows, fields)
    want = tg.canonical_rows(want_rows, fields)
    return [] if got == want else ["%s: %s" % (label, tg.diff_rows(got, want))]


@pytest.fixture(scope="module")
def java_avro(tmp_path_factory):
    jh.build()
    base = tmp_path_factory.mktemp("javro")
    wh = str(base / "w")
    plans = _plans()
    cmds, slots = [], {}
    for p in plans:
        c = tp.java_plan_commands(p, wh, str(base / ("j_" + p["table"])))
        slots[("w", p["table"])] = (len(cmds), len(c))
        cmds += c
        slots[("r", p["table"])] = (len(cmds), 1)
        cmds.append(tp.java_read_command(wh, tp.ident(p)))
    # paimonc writes its own plans; the same Java batch reads them
    wc = str(base / "c")
    c_plans, c_err = _plans(BASE + 10_000), {}
    for p in c_plans:
        try:
            tp.execute_paimonc(p, wc)
        except Exception as e:
            c_err[p["table"]] = "paimonc could not execute the plan of %s: %r" % (p["table"], e)
            continue
        slots[("cr", p["table"])] = (len(cmds), 1)
        cmds.append(tp.java_read_command(wc, tp.ident(p)))
    results, stderr = jh.batch(cmds)
    return dict(wh=wh, plans=plans, results=results, slots=slots, stderr=stderr, wc=wc, c_plans=c_plans,
                c_err=c_err)


def _res(run, key):
    start, n = run["slots"][key]
    return run["results"][start:start + n]


def _table_dir(wh, p):
    db, t = tp.ident(p).split(".")
    return os.path.join(wh, db + ".db", t)


def test_java_avro_tables_read_by_paimonc(java_avro):
    run = java_avro
    bad, n_files = [], 0
    for p in run["plans"]:
        t = p["table"]
        failed = [(i, rc) for i, (rc, _) in enumerate(_res(run, ("w", t))) if rc != 0]
        if failed:
            bad.append("%s: java could not execute the plan (command, exit): %s" % (t, failed))
            continue
        fields = tg.plan_fields(p)
        exp = tg.expected(p)
        (rc, out), = _res(run, ("r", t))
        if rc != 0:
            bad.append("%s: java table-read exit %d" % (t, rc))
            continue
        bad += _compare("%s java's own read" % t, tp.parse_java_rows(out), exp, fields)
        data = [f for _, _, fs in os.walk(_table_dir(run["wh"], p)) for f in fs if f.startswith("data-")]
        if exp and (not data or any(not f.endswith(".avro") for f in data)):
            bad.append("%s: data files are not all .avro: %s" % (t, data))
        n_files += len(data)
        try:
            bad += _compare("%s paimonc full read" % t, tp.read_paimonc(run["wh"], tp.ident(p), fields), exp, fields)
        except Exception as e:
            bad.append("%s paimonc full read failed: %r" % (t, e))
            continue
        rng = random.Random(p["seed"] * 7 + 1)
        names = [n for _, n, _ in fields]
        proj = rng.sample(names, rng.randint(1, len(names)))
        pfields = [x for x in fields if x[1] in proj]
        try:
            got = tp.read_paimonc(run["wh"], tp.ident(p), fields, projection=proj)
            bad += _compare("%s paimonc projection %s" % (t, proj), got, [{n: r[n] for n in proj} for r in exp],
                            pfields)
        except Exception as e:
            bad.append("%s paimonc projection %s failed: %r" % (t, proj, e))
    assert n_files > len(run["plans"]), "too few Avro data files written (%d)" % n_files
    assert not bad, "\n".join(bad) + "\njava stderr tail:\n" + run["stderr"][-3000:]


def test_paimonc_avro_tables_read_by_java(java_avro):
    run = java_avro
    bad, n_files = list(run["c_err"].values()), 0
    for p in run["c_plans"]:
        t = p["table"]
        if t in run["c_err"]:
            continue
        fields = tg.plan_fields(p)
        exp = tg.expected(p)
        (rc, out), = _res(run, ("cr", t))
        if rc != 0:
            bad.append("%s: java table-read exit %d" % (t, rc))
        else:
            bad += _compare("%s java read of paimonc's" % t, tp.parse_java_rows(out), exp, fields)
        data = [f for _, _, fs in os.walk(_table_dir(run["wc"], p)) for f in fs if f.startswith("data-")]
        if exp and (not data or any(not f.endswith(".avro") for f in data)):
            bad.append("%s: data files are not all .avro: %s" % (t, data))
        n_files += len(data)
        try:
            bad += _compare("%s paimonc reading its own" % t, tp.read_paimonc(run["wc"], tp.ident(p), fields), exp,
                            fields)
        except Exception as e:
            bad.append("%s paimonc read of its own failed: %r" % (t, e))
    assert n_files > len(run["c_plans"]), "too few Avro data files written (%d)" % n_files
    assert not bad, "\n".join(bad) + "\njava stderr tail:\n" + run["stderr"][-3000:]
