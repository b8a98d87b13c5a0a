"""Branches against Java Paimon 1.4.2 (FileSystemBranchManager, `db.t$branch_b` tables).

For each seed a random table (table_gen.rand_plan: every type, nulls, partitions, schema
changes, an overwrite) gets its first k steps written, a tag on the latest snapshot and a
branch "b" from the tag, created by paimonc on even seeds and by Java on odd ones (the same
files either way: schema/, snapshot/, tag/ under branch/branch-b). Then rows are appended to
the branch (by paimonc or Java, alternating) and the rest of the plan runs on main (schema
changes and the overwrite included). Then:
  - paimonc, Java and pypaimon read the branch and main as expected (main unaffected by the
    branch, the branch by later main commits and schema changes);
  - Java lists the branches paimonc created and the other way round ($branches);
  - the table's snapshots are expired down to 1 by paimonc: the branch still reads, and no file
    it uses is missing (expiration keeps what branches use);
  - a copy is fast-forwarded by paimonc and another by Java: the same snapshot, schema and tag
    files, and both read the branch's rows as the table.
"""
import json
import os
import random
import shutil
import sys

import pytest

pa = pytest.importorskip("pyarrow")

sys.path.insert(0, os.path.dirname(__file__))
import java_harness as jh  # noqa: E402
import table_gen as tg  # noqa: E402
import table_peers as tp  # noqa: E402

SEEDS = range(int(os.environ.get("PAIMONC_BRANCH_SEEDS", "8")))


def _plan(seed):
    saved = dict(tg.GEN_FLAGS)
    tg.GEN_FLAGS.update(ts_high_precision=False)  # pypaimon misreads Java's TIMESTAMP(7..9)
    try:
        plan = tg.rand_plan(95_000 + seed)
    finally:
        tg.GEN_FLAGS.clear()
        tg.GEN_FLAGS.update(saved)
    writes = [i for i, st in enumerate(plan["steps"]) if st["op"] == "write"]
    k = writes[0] + 1  # the branch point: after the first write
    return plan, k


def _paimonc_steps(plan, wh, lo, hi):
    cat = tp.paimonc_catalog(wh)
    for i in range(lo, hi):
        fields = tg.plan_fields(plan, i)
        tp._paimonc_step(cat, plan, plan["steps"][i], fields)


def _tree(d):
    out = {}
    for sub in ("snapshot", "schema", "tag"):
        p = os.path.join(d, sub)
        if os.path.isdir(p):
            for n in sorted(os.listdir(p)):
                if n not in ("LATEST", "EARLIEST"):
                    with open(os.path.join(p, n), "rb") as f:
                        out["%s/%s" % (sub, n)] = json.loads(f.read())
    return out


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    jh.build()
    base = tmp_path_factory.mktemp("branches")
    out = {}
    for s in SEEDS:
        plan, k = _plan(s)
        rng = random.Random(s)
        wh = str(base / ("s%d" % s))
        wd = str(base / ("w%d" % s))
        ident = tp.ident(plan)
        tdir = os.path.join(wh, "db.db", ident.split(".")[1])
        tp.execute_paimonc(plan, wh, upto=k)
        cat = tp.paimonc_catalog(wh)
        cat.get_table(ident).create_tag("t0")
        if s % 2 == 0:
            cat.create_branch(ident, "b", "t0")
        else:
            jh.run("create-branch", wh, ident, "b", "t0")
        fields_k = tg.plan_fields(plan, k)
        branch_rows = tg.rand_rows(rng, fields_k, plan["schema"]["partitionKeys"], rng.randint(1, 30))
        if s % 4 < 2:
            t = cat.get_table(ident + "$branch_b")
            wb = t.new_batch_write_builder()
            w = wb.new_write()
            w.write_arrow(tg.to_arrow(branch_rows, fields_k))
            wb.new_commit().commit(w.prepare_commit())
            w.close()
        else:
            os.makedirs(wd, exist_ok=True)
            rf = os.path.join(wd, "branch_rows.jsonl")
            with open(rf, "w", encoding="utf-8") as f:
                for r in branch_rows:
                    f.write(json.dumps(r, ensure_ascii=False) + "\n")
            jh.run("table-write", wh, ident + "$branch_b", rf)
        _paimonc_steps(plan, wh, k, len(plan["steps"]))
        sub = dict(plan, steps=plan["steps"][:k])
        want_branch = tg.canonical_rows(tg.expected(sub) + branch_rows, fields_k)
        fields = tg.plan_fields(plan)
        want_main = tg.canonical_rows(tg.expected(plan), fields)
        out[s] = dict(plan=plan, k=k, wh=wh, tdir=tdir, ident=ident, fields_k=fields_k, fields=fields,
                      want_branch=want_branch, want_main=want_main)
    # Java: read branch and main, list branches
    cmds = []
    for s, o in out.items():
        o["slot"] = len(cmds)
        cmds.append(["table-read", o["wh"], o["ident"] + "$branch_b"])
        cmds.append(["table-read", o["wh"], o["ident"]])
        cmds.append(["branches", o["wh"], o["ident"]])
    res, err = jh.batch(cmds)
    for o in out.values():
        o["java_branch"], o["java_main"], o["java_branches"] = res[o["slot"]:o["slot"] + 3]
    # fast-forward copies, before expiration
    ff = []
    for s, o in out.items():
        o["ffc"], o["ffj"] = o["wh"] + "_ffc", o["wh"] + "_ffj"
        shutil.copytree(o["wh"], o["ffc"])
        shutil.copytree(o["wh"], o["ffj"])
        tp.paimonc_catalog(o["ffc"]).fast_forward(o["ident"], "b")
        ff.append(["fast-forward", o["ffj"], o["ident"], "b"])
    ffres, _ = jh.batch(ff)
    for o, r in zip(out.values(), ffres):
        o["java_ff"] = r
    return dict(out=out, stderr=err)


def test_everyone_reads_branch_and_main(run):
    bad = []
    for s, o in run["out"].items():
        got = {
            "paimonc branch": tg.canonical_rows(tp.read_paimonc(o["wh"], o["ident"] + "$branch_b", o["fields_k"]),
                                                o["fields_k"]),
            "paimonc main": tg.canonical_rows(tp.read_paimonc(o["wh"], o["ident"], o["fields"]), o["fields"]),
        }
        try:
            got["pypaimon branch"] = tg.canonical_rows(
                tp.read_pypaimon(o["wh"], o["ident"] + "$branch_b", o["fields_k"]), o["fields_k"])
        except Exception as e:  # noqa: BLE001
            bad.append("seed %d: pypaimon cannot read the branch: %r" % (s, e))
        for key, side, fields in (("java_branch", "branch", o["fields_k"]), ("java_main", "main", o["fields"])):
            rc, text = o[key]
            if rc:
                bad.append("seed %d: Java cannot read %s: %s" % (s, side, text[-800:]))
            else:
                got["Java " + side] = tg.canonical_rows(tp.parse_java_rows(text), fields)
        for who, rows in got.items():
            want = o["want_branch"] if who.endswith("branch") else o["want_main"]
            if rows != want:
                bad.append("seed %d: %s: %s" % (s, who, tg.diff_rows(rows, want)))
        rc, text = o["java_branches"]
        if rc or text.strip() != "b":
            bad.append("seed %d: Java lists branches %r" % (s, text.strip()))
        t = tp.paimonc_catalog(o["wh"]).get_table(o["ident"] + "$branches")
        rb = t.new_read_builder()
        names = rb.new_read().to_arrow(rb.new_scan().plan().splits()).column("branch_name").to_pylist()
        if names != ["b"]:
            bad.append("seed %d: $branches lists %s" % (s, names))
    assert not bad, "\n".join(x[:2000] for x in bad)


def test_fast_forward_as_java(run):
    bad = []
    for s, o in run["out"].items():
        rc, text = o["java_ff"]
        if rc:
            bad.append("seed %d: Java fast-forward failed: %s" % (s, text[-800:]))
            continue
        tc = _tree(os.path.join(o["ffc"], "db.db", o["ident"].split(".")[1]))
        tj = _tree(os.path.join(o["ffj"], "db.db", o["ident"].split(".")[1]))
        if tc != tj:
            bad.append("seed %d: fast-forward leaves %s, Java %s" % (s, sorted(tc), sorted(tj)))
        for wh in (o["ffc"], o["ffj"]):
            rows = tg.canonical_rows(tp.read_paimonc(wh, o["ident"], o["fields_k"]), o["fields_k"])
            if rows != o["want_branch"]:
                bad.append("seed %d: the table after fast-forward (%s): %s" % (
                    s, os.path.basename(wh), tg.diff_rows(rows, o["want_branch"])))
    assert not bad, "\n".join(bad)


def test_expiration_keeps_what_the_branch_uses(run):
    bad = []
    for s, o in run["out"].items():
        cat = tp.paimonc_catalog(o["wh"])
        t = cat.get_table(o["ident"])
        cat.get_table(o["ident"]).delete_tag("t0")  # nothing else protects the branch point now
        r = cat.get_table(o["ident"]).expire_snapshots(retain_min=1, retain_max=1, older_than=0,
                                                     max_deletes=1000)
        rows = tg.canonical_rows(tp.read_paimonc(o["wh"], o["ident"] + "$branch_b", o["fields_k"]), o["fields_k"])
        if rows != o["want_branch"]:
            bad.append("seed %d: the branch after expiring %d snapshots: %s" % (
                s, r.expired, tg.diff_rows(rows, o["want_branch"])))
        missing = cat.get_table(o["ident"] + "$branch_b").find_missing_files()
        if missing:
            bad.append("seed %d: the branch misses %s" % (s, missing[:3]))
        main = tg.canonical_rows(tp.read_paimonc(o["wh"], o["ident"], o["fields"]), o["fields"])
        if main != o["want_main"]:
            bad.append("seed %d: main after expiration: %s" % (s, tg.diff_rows(main, o["want_main"])))
        orphans = t.remove_orphan_files(older_than=2 ** 62, dry_run=True)
        used = [p for p in orphans if "/snapshot/" not in p]
        rows2 = tg.canonical_rows(tp.read_paimonc(o["wh"], o["ident"] + "$branch_b", o["fields_k"]), o["fields_k"])
        if rows2 != o["want_branch"]:
            bad.append("seed %d: branch changed by a dry run" % s)
        # an orphan scan never offers a file the branch references
        branch_files = set()
        bt = cat.get_table(o["ident"] + "$branch_b")
        for sp in bt.new_read_builder().new_scan().plan().splits():
            branch_files.update(sp.file_paths)
        hit = [p for p in used if p in branch_files]
        if hit:
            bad.append("seed %d: orphan clean-up would delete branch files %s" % (s, hit[:3]))
    assert not bad, "\n".join(bad)
