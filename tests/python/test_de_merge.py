"""upsert_by_arrow_with_key / upsert_by_key / merge_into of paimonc (issue
11), on random seeded tables (several types, nulls, partitioned or not),
checked against an independent pure-Python model and against pypaimon 2.1.0
doing the same operation on a copy of the table; pypaimon also reads
paimonc's result. The files written are checked (matched groups get files
with only the changed columns; inserts are new rows with new row ids), and
bad inputs give the errors pypaimon gives.

pypaimon evaluates SQL conditions with DataFusion, which is not installed
here, so conditional merges are compared with the model only (and read back
by pypaimon)."""

import datetime
import decimal
import random
import shutil

import pytest

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")
pypaimon = pytest.importorskip("pypaimon")

import paimonc  # noqa: E402
from paimonc import ConflictError, InvalidArgumentError, WhenMatched, WhenNotMatched, lit, source_col, \
    target_col  # noqa: E402
from pypaimon.table.data_evolution_merge_into import WhenMatched as PWhenMatched  # noqa: E402
from pypaimon.table.data_evolution_merge_into import WhenNotMatched as PWhenNotMatched  # noqa: E402
from pypaimon.table.data_evolution_merge_into import lit as plit  # noqa: E402
from pypaimon.table.data_evolution_merge_into import source_col as psource_col  # noqa: E402
from pypaimon.table.data_evolution_merge_into import target_col as ptarget_col  # noqa: E402

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}

SCHEMA = pa.schema([
    pa.field("id", pa.int64()),
    pa.field("k2", pa.string()),
    pa.field("name", pa.string()),
    pa.field("score", pa.float64()),
    pa.field("tag", pa.int32()),
    pa.field("flag", pa.bool_()),
    pa.field("d", pa.date32()),
    pa.field("amt", pa.decimal128(10, 2)),
    pa.field("dt", pa.string()),
])
COLS = [f.name for f in SCHEMA]


# ----------------------------------------------------------------- helpers

def commit(table, msgs, stream_id=None):
    wb = table.new_batch_write_builder() if stream_id is None else table.new_stream_write_builder()
    c = wb.new_commit()
    try:
        return c.commit(msgs) if stream_id is None else c.commit(msgs, stream_id)
    finally:
        c.close()


def make_table(tmp_path, partitioned, options=None, name="wh"):
    wh = str(tmp_path / name)
    cat = paimonc.CatalogFactory.create({"warehouse": wh})
    cat.create_database("db", True)
    opts = dict(DE)
    opts.update(options or {})
    cat.create_table("db.t", paimonc.Schema.from_pyarrow_schema(
        SCHEMA, partition_keys=["dt"] if partitioned else None, options=opts), False)
    return wh, cat


def append(cat, rows):
    t = cat.get_table("db.t")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(pa.Table.from_pylist(rows, schema=SCHEMA))
    commit(t, w.prepare_commit())
    w.close()


def rand_val(rnd, col):
    if rnd.random() < 0.12:
        return None
    return {"name": lambda: "n%d" % rnd.randrange(50),
            "score": lambda: rnd.choice([rnd.uniform(-10, 10), 0.0, -0.0, 1.5]),
            "tag": lambda: rnd.randrange(-5, 5),
            "flag": lambda: rnd.random() < 0.5,
            "d": lambda: datetime.date(2020, 1, 1) + datetime.timedelta(days=rnd.randrange(30)),
            "amt": lambda: decimal.Decimal(rnd.randrange(-10000, 10000)) / 100,
            "k2": lambda: rnd.choice(["a", "b"])}[col]()


def rand_row(rnd, key, dt):
    r = {c: rand_val(rnd, c) for c in COLS if c not in ("id", "dt")}
    r["id"] = key
    r["dt"] = dt
    return r


def rkey(r, cols):
    return tuple((r[c] is None, repr(r[c])) for c in cols)


def read_rows(wh, use_pypaimon):
    mod = pypaimon if use_pypaimon else paimonc
    t = mod.CatalogFactory.create({"warehouse": wh}).get_table("db.t")
    rb = t.new_read_builder().with_projection(COLS + ["_ROW_ID"])
    return {r.pop("_ROW_ID"): r for r in rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist()}


def files(wh):
    t = pypaimon.CatalogFactory.create({"warehouse": wh}).get_table("db.t")
    return {f.file_name: f for s in t.new_read_builder().new_scan().plan().splits() for f in s.files}


def next_row_id(cat):
    return cat.get_table("db.t").latest_snapshot().next_row_id


def same_value(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return repr(a) == repr(b)
    return a == b and type(a) is type(b) if a is not None and b is not None else a is b


def build_target(tmp_path, rnd, partitioned, options=None):
    wh, cat = make_table(tmp_path, partitioned, options)
    keys = list(range(12))
    for _ in range(rnd.randint(1, 3)):
        rows = []
        for _ in range(rnd.randint(3, 12)):
            k = None if rnd.random() < 0.08 else rnd.choice(keys)      # duplicates -> fan-out
            rows.append(rand_row(rnd, k, rnd.choice(["x", "y"]) if partitioned else rnd.choice(["x", None])))
        if partitioned:   # the commit assigns row ids partition by partition, in order of appearance
            order = list(dict.fromkeys(r["dt"] for r in rows))
            rows = [r for p in order for r in rows if r["dt"] == p]
        append(cat, rows)
    return wh, cat


def check_files(wh, before_files, before_next, expected_changed_cols, changed_rids):
    """The files this operation added: update files cover exactly the groups
    with a changed row and hold exactly the changed columns; every other new
    file holds new rows only."""
    after = files(wh)
    new = [f for n, f in after.items() if n not in before_files]
    groups = sorted({(f.first_row_id, f.row_count) for f in before_files.values() if not f.write_cols})
    touched = {g for g in groups for r in changed_rids if g[0] <= r < g[0] + g[1]}
    upd = [f for f in new if f.first_row_id < before_next]
    assert {(f.first_row_id, f.row_count) for f in upd} == touched
    for f in upd:
        assert set(f.write_cols) == set(expected_changed_cols)
    for f in new:
        if f.first_row_id >= before_next:
            assert f.write_cols is None or "id" in f.write_cols
    return [f for f in new if f.first_row_id >= before_next]


def compare(wh, wh_py, model_rows, before_next):
    """paimonc's result read by paimonc and by pypaimon, pypaimon's result
    and the model: equal. Old rows by row id; new rows as a multiset."""
    got = read_rows(wh, False)
    assert got == read_rows(wh, True)
    old = {rid: r for rid, r in got.items() if rid < before_next}
    new = sorted((r for rid, r in got.items() if rid >= before_next), key=lambda r: rkey(r, COLS))
    m_old = {rid: r for rid, r in model_rows.items() if not isinstance(rid, tuple)}
    m_new = sorted((r for rid, r in model_rows.items() if isinstance(rid, tuple)), key=lambda r: rkey(r, COLS))
    assert old == m_old
    assert new == m_new
    if wh_py is not None:
        theirs = read_rows(wh_py, True)
        assert {rid: r for rid, r in theirs.items() if rid < before_next} == m_old
        assert sorted((r for rid, r in theirs.items() if rid >= before_next),
                      key=lambda r: rkey(r, COLS)) == m_new
    return got


# ------------------------------------------------------------------ upsert

def model_upsert(target, data_rows, keys, parts, update_cols):
    """pypaimon's algorithm, independently: per (partition, key) the last
    input row wins; it updates every target row with that key (null equals
    null), else it is appended."""
    match = [k for k in keys if k not in parts]
    jk = parts + match
    last = {}
    for i, r in enumerate(data_rows):
        last[tuple(r[k] for k in jk)] = i
    rows = {rid: dict(r) for rid, r in target.items()}
    changed_cols, changed_rids = set(), set()
    n_new = 0
    cols = update_cols or COLS
    for i in sorted(last.values()):
        r = data_rows[i]
        k = tuple(r[c] for c in jk)
        hits = [rid for rid, t in target.items() if tuple(t[c] for c in jk) == k]
        if hits:
            for rid in hits:
                for c in cols:
                    if not same_value(rows[rid][c], r[c]):
                        changed_cols.add(c)
                        changed_rids.add(rid)
                    rows[rid][c] = r[c]
        else:
            rows[("new", n_new)] = {c: r.get(c) for c in COLS}
            n_new += 1
    return rows, changed_cols, changed_rids


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("partitioned", [False, True])
def test_upsert_random(tmp_path, seed, partitioned):
    rnd = random.Random(seed * 7 + partitioned)
    wh, cat = build_target(tmp_path, rnd, partitioned)
    wh_py = str(tmp_path / "py")
    shutil.copytree(wh, wh_py)
    target = read_rows(wh, False)
    parts = ["dt"] if partitioned else []
    keys = rnd.choice([["id"], ["id", "k2"]] + ([["dt", "id"]] if partitioned else []))
    update_cols = rnd.choice([None, None, ["name", "score", "tag"] + keys + parts])
    data_rows = []
    for _ in range(rnd.randint(1, 15)):
        src = rnd.choice(list(target.values())) if rnd.random() < 0.6 else None
        r = rand_row(rnd, None if rnd.random() < 0.1 else rnd.randrange(20),
                     rnd.choice(["x", "y"]) if partitioned else rnd.choice(["x", None]))
        if src is not None:
            for k in keys + parts:
                r[k] = src[k]
            if rnd.random() < 0.4:   # some columns unchanged
                for c in rnd.sample(["name", "score", "tag", "flag", "d", "amt"], 3):
                    r[c] = src[c]
        data_rows.append(r)
    if data_rows and rnd.random() < 0.5:
        data_rows.append(dict(data_rows[0], name="dup-last"))      # duplicate key: last wins
    data = pa.Table.from_pylist(data_rows, schema=SCHEMA)
    before_files, before_next = files(wh), next_row_id(cat)

    t = cat.get_table("db.t")
    upd = t.new_batch_write_builder().new_update()
    if update_cols:
        upd.with_update_type(update_cols)
    msgs = upd.upsert_by_arrow_with_key(data, keys)
    commit(t, msgs)

    pt = pypaimon.CatalogFactory.create({"warehouse": wh_py}).get_table("db.t")
    pwb = pt.new_batch_write_builder()
    pu = pwb.new_update()
    if update_cols:
        pu.with_update_type(update_cols)
    pwb.new_commit().commit(pu.upsert_by_arrow_with_key(data, keys))

    model, changed_cols, changed_rids = model_upsert(target, data_rows, keys, parts, update_cols)
    compare(wh, wh_py, model, before_next)
    check_files(wh, before_files, before_next, changed_cols, changed_rids)
    assert not changed_cols & set(keys + parts)


def test_upsert_null_keys_duplicates_and_partition_keys(tmp_path):
    wh, cat = make_table(tmp_path, True)
    base = [rand_row(random.Random(i), k, dt) for i, (k, dt) in
            enumerate([(1, "x"), (2, "x"), (None, "y"), (2, "y"), (2, "y")])]
    append(cat, base)
    t = cat.get_table("db.t")
    rows = [dict(base[2], name="null-key"), dict(base[1], name="first"), dict(base[1], name="second"),
            dict(base[0], dt="y", name="other-partition")]
    commit(t, t.new_batch_write_builder().new_update().upsert_by_arrow_with_key(
        pa.Table.from_pylist(rows, schema=SCHEMA), ["id"]))
    got = read_rows(wh, True)
    assert got[2]["name"] == "null-key"                 # null matches null, as pypaimon
    assert got[1]["name"] == "second"                   # last duplicate wins
    assert got[3]["name"] == base[3]["name"] and got[4]["name"] == base[4]["name"]
    assert [r["name"] for rid, r in got.items() if rid >= 5] == ["other-partition"]   # per partition
    # keys that are only partition columns: the partition's every row is updated
    t = cat.get_table("db.t")
    commit(t, t.new_batch_write_builder().new_update().upsert_by_arrow_with_key(
        pa.Table.from_pylist([dict(base[0], id=50, name="all")], schema=SCHEMA), ["dt"]))
    got = read_rows(wh, True)
    assert [(r["id"], r["name"]) for rid, r in sorted(got.items()) if r["dt"] == "x"] == [(50, "all")] * 2
    # an identical re-upsert writes no file
    before = files(wh)
    t = cat.get_table("db.t")
    msgs = t.new_batch_write_builder().new_update().upsert_by_arrow_with_key(
        pa.Table.from_pylist([got[0]], schema=SCHEMA), ["id", "dt"])
    assert msgs == []
    assert files(wh).keys() == before.keys()


def test_upsert_null_key_matches_null_whatever_the_other_keys(tmp_path):
    wh, cat = make_table(tmp_path, False)
    append(cat, [rand_row(random.Random(1), 5, "x"), rand_row(random.Random(2), None, "x")])
    t = cat.get_table("db.t")
    rows = [dict(rand_row(random.Random(3), None, "x"), name="nk"), dict(rand_row(random.Random(4), 7, "x"))]
    commit(t, t.new_batch_write_builder().new_update().upsert_by_arrow_with_key(
        pa.Table.from_pylist(rows, schema=SCHEMA), ["id", "dt"]))
    got = read_rows(wh, True)
    assert sorted(got) == [0, 1, 2] and got[1]["name"] == "nk" and got[2]["id"] == 7


def test_upsert_partial_columns_and_rows(tmp_path):
    wh, cat = make_table(tmp_path, False)
    append(cat, [rand_row(random.Random(i), i, "x") for i in range(4)])
    t = cat.get_table("db.t")
    part = pa.table({"id": pa.array([1, 9], pa.int64()), "score": [2.5, 9.5]})
    upd = t.new_batch_write_builder().new_update().with_update_type(["score"])
    commit(t, upd.upsert_by_arrow_with_key(part, ["id"]))
    got = read_rows(wh, True)
    assert got[1]["score"] == 2.5 and got[4] == dict({c: None for c in COLS}, id=9, score=9.5)
    new = [f for f in files(wh).values() if f.first_row_id == 4]
    assert [f.write_cols for f in new] == [["id", "score"]]
    with pytest.raises(InvalidArgumentError, match=r"lacks column\(s\) \['k2', 'name'"):
        t.new_batch_write_builder().new_update().upsert_by_arrow_with_key(part, ["id"])
    # upsert_by_key: dicts and positional rows
    t = cat.get_table("db.t")
    r0 = dict(got[0], name="by-key")
    commit(t, t.new_batch_write_builder().new_update().upsert_by_key(
        [r0, [100] + [None] * (len(COLS) - 1)], ["id"]))
    got = read_rows(wh, False)
    assert got[0]["name"] == "by-key" and got[5]["id"] == 100
    with pytest.raises(InvalidArgumentError, match=r"got row field\(s\) \['zz'\] that are not in table schema"):
        t.new_batch_write_builder().new_update().upsert_by_key([{"id": 1, "zz": 2}], ["id"])
    with pytest.raises(InvalidArgumentError, match=r"upsert_by_key requires row field\(s\) \['id'\]"):
        t.new_batch_write_builder().new_update().upsert_by_key([{"name": "q"}], ["id"])
    with pytest.raises(InvalidArgumentError, match="same field set.*missing fields: \\['score'\\]"):
        t.new_batch_write_builder().new_update().upsert_by_key(
            [{"id": 500, "score": 1.0}, {"id": 501}], ["id"])
    with pytest.raises(InvalidArgumentError, match="same arity as the table schema: 2 != 9"):
        t.new_batch_write_builder().new_update().upsert_by_key([(1, 2)], ["id"])
    with pytest.raises(InvalidArgumentError, match="rows must not be empty"):
        t.new_batch_write_builder().new_update().upsert_by_key([], ["id"])


def test_upsert_bad_inputs(tmp_path):
    wh, cat = make_table(tmp_path, True)
    append(cat, [rand_row(random.Random(1), 1, "x")])
    t = cat.get_table("db.t")
    u = t.new_batch_write_builder().new_update()
    data = pa.Table.from_pylist([rand_row(random.Random(2), 1, "x")], schema=SCHEMA)
    with pytest.raises(InvalidArgumentError, match=r"upsert_key 'nope' is not in table schema fields: \['id'"):
        u.upsert_by_arrow_with_key(data, ["nope"])
    with pytest.raises(InvalidArgumentError, match=r"upsert_key 'k2' is not in input data columns: \['id', 'dt'\]"):
        u.upsert_by_arrow_with_key(data.select(["id", "dt"]), ["k2"])
    with pytest.raises(InvalidArgumentError, match=r"must contain all partition key columns. Missing: \['dt'\]"):
        u.upsert_by_arrow_with_key(data.select(["id", "name"]), ["id"])
    with pytest.raises(InvalidArgumentError, match="upsert_keys must not be empty"):
        u.upsert_by_arrow_with_key(data, [])
    with pytest.raises(InvalidArgumentError, match="Input data is empty"):
        u.upsert_by_arrow_with_key(data.slice(0, 0), ["id"])
    with pytest.raises(InvalidArgumentError, match="cannot cast"):
        u.upsert_by_arrow_with_key(pa.table({"id": ["not a number"], "dt": ["x"]}), ["id"])
    with pytest.raises(TypeError, match="must be a pyarrow.Table"):
        u.upsert_by_arrow_with_key([1, 2], ["id"])
    wh2 = str(tmp_path / "plain")
    cat2 = paimonc.CatalogFactory.create({"warehouse": wh2})
    cat2.create_database("db", True)
    cat2.create_table("db.t", paimonc.Schema.from_pyarrow_schema(SCHEMA), False)
    t2 = cat2.get_table("db.t")
    with pytest.raises(InvalidArgumentError, match="upsert_by_arrow_with_key requires 'data-evolution.enabled'"):
        t2.new_batch_write_builder().new_update().upsert_by_arrow_with_key(data, ["id"])
    # a nested key column
    wh3 = str(tmp_path / "nested")
    cat3 = paimonc.CatalogFactory.create({"warehouse": wh3})
    cat3.create_database("db", True)
    cat3.create_table("db.t", paimonc.Schema.from_pyarrow_schema(
        pa.schema([("l", pa.list_(pa.int32())), ("v", pa.int32())]), options=dict(DE)), False)
    t3 = cat3.get_table("db.t")
    with pytest.raises(InvalidArgumentError, match="key column 'l' has type list<item: int32>"):
        t3.new_batch_write_builder().new_update().upsert_by_arrow_with_key(
            pa.table({"l": pa.array([[1]], pa.list_(pa.int32())), "v": pa.array([1], pa.int32())}), ["l"])


# ------------------------------------------------------------ merge_into

def model_merge(target, src_rows, t_on, s_on, matched, not_matched, fields):
    """Independent SQL MERGE: a target row matches the source rows whose on
    keys are all equal and non-null; the first clause whose condition holds
    acts; unmatched source rows (null keys included) are inserted."""
    rows = {rid: dict(r) for rid, r in target.items()}
    changed_cols, changed_rids, deleted = set(), set(), set()
    hit_src = set()
    for rid, t in target.items():
        hits = [i for i, s in enumerate(src_rows)
                if all(t[a] is not None and s[b] is not None and t[a] == s[b] for a, b in zip(t_on, s_on))]
        hit_src.update(hits)
        if not hits:
            continue
        if len(hits) > 1 and matched:
            raise AssertionError("scenario must not have duplicate matches")
        s = src_rows[hits[0]]
        for cond, spec, is_del in matched:
            if cond is not None and not cond(s, t):
                continue
            if is_del:
                deleted.add(rid)
                break
            for col, fn in spec.items():
                v = fn(s, t)
                if not same_value(rows[rid][col], v):
                    changed_cols.add(col)
                    changed_rids.add(rid)
                rows[rid][col] = v
            break
    for rid in deleted:
        del rows[rid]
    n = 0
    for i, s in enumerate(src_rows):
        if i in hit_src and target:
            continue
        for cond, spec in not_matched:
            if cond is not None and not cond(s, None):
                continue
            rows[("new", n)] = {c: (spec[c](s, None) if c in spec else None) for c in fields}
            n += 1
            break
    return rows, changed_cols, changed_rids


S = lambda c: (lambda s, t: s[c])            # noqa: E731
T = lambda c: (lambda s, t: t[c])            # noqa: E731
L = lambda v: (lambda s, t: v)               # noqa: E731


def _specs(partitioned, on_t, on_s):
    """(paimonc clauses, pypaimon clauses, model clauses) choices."""
    star_cols = {c: S(dict(zip(on_t, on_s)).get(c, c)) for c in COLS}
    m = [
        ({"score": "s.score", "tag": lit(7)}, {"score": "s.score", "tag": plit(7)},
         {"score": S("score"), "tag": L(7)}),
        ({"name": source_col("name"), "flag": target_col("flag"), "amt": "s.amt"},
         {"name": psource_col("name"), "flag": ptarget_col("flag"), "amt": "s.amt"},
         {"name": S("name"), "amt": S("amt")}),
        ({"name": "t.k2", "d": "s.d", "k2": "t.name"}, {"name": "t.k2", "d": "s.d", "k2": "t.name"},
         {"name": T("k2"), "d": S("d"), "k2": T("name")}),
    ]
    if not partitioned:
        m.append(("*", "*", star_cols))
    n = [
        ("*", "*", star_cols),
        ({"name": "s.name", "score": lit(1.5)}, {"name": "s.name", "score": plit(1.5)},
         dict({"name": S("name"), "score": L(1.5)}, **{a: S(b) for a, b in zip(on_t, on_s)})),
    ]
    return m, n


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("partitioned", [False, True])
def test_merge_random(tmp_path, seed, partitioned):
    rnd = random.Random(seed * 13 + partitioned)
    wh, cat = build_target(tmp_path, rnd, partitioned)
    wh_py = str(tmp_path / "py")
    shutil.copytree(wh, wh_py)
    target = read_rows(wh, False)
    on_t = rnd.choice([["id"], ["id", "k2"]] + ([["dt", "id"]] if partitioned else []))
    rename = rnd.random() < 0.4
    on_s = ["s_" + c for c in on_t] if rename else list(on_t)
    on = dict(zip(on_t, on_s)) if rename else list(on_t)
    m_choices, n_choices = _specs(partitioned, on_t, on_s)
    mi = rnd.randrange(len(m_choices) + 1)
    ni = rnd.randrange(len(n_choices) + 1)
    if mi == len(m_choices) and ni == len(n_choices):
        mi = 0
    matched = [m_choices[mi]] if mi < len(m_choices) else []
    not_matched = [n_choices[ni]] if ni < len(n_choices) else []
    # source: unique non-null keys; some match target rows, some are new, some null
    src_rows, seen = [], set()
    tvals = list(target.values())
    for _ in range(rnd.randint(1, 14)):
        r = rand_row(rnd, rnd.randrange(25), rnd.choice(["x", "y"]))
        if rnd.random() < 0.6 and tvals:
            base = rnd.choice(tvals)
            for c in on_t:
                r[c] = base[c]
            if rnd.random() < 0.5:
                for c in ("name", "score", "amt", "d"):
                    r[c] = base[c]
        if rnd.random() < 0.08:
            r["id"] = None
        k = tuple(r[c] for c in on_t)
        if None not in k and k in seen:
            continue
        seen.add(k)
        src_rows.append(r)
    if rename:
        src_rows = [{("s_" + c if c in on_t else c): v for c, v in r.items()} for r in src_rows]
    src_schema = pa.schema([pa.field("s_" + f.name, f.type) if rename and f.name in on_t else f for f in SCHEMA])
    psrc = src = pa.Table.from_pylist(src_rows, schema=src_schema)
    if rnd.random() < 0.3:      # (pandas turns an int column with nulls into float: paimonc casts it back)
        src = src.to_pandas() if rnd.random() < 0.5 else src.combine_chunks().to_batches()[0] if src.num_rows else src
    before_files, before_next = files(wh), next_row_id(cat)

    t = cat.get_table("db.t")
    msgs = t.new_batch_write_builder().new_update().merge_into(
        src, on=on, when_matched=[WhenMatched.update(c[0]) for c in matched],
        when_not_matched=[WhenNotMatched(insert=c[0]) for c in not_matched])
    commit(t, msgs)

    pt = pypaimon.CatalogFactory.create({"warehouse": wh_py}).get_table("db.t")
    pwb = pt.new_batch_write_builder()
    pmsgs = pwb.new_update().merge_into(
        psrc, on=on, when_matched=[PWhenMatched.update(c[1]) for c in matched],
        when_not_matched=[PWhenNotMatched(insert=c[1]) for c in not_matched])
    pwb.new_commit().commit(pmsgs)

    model, changed_cols, changed_rids = model_merge(
        target, src_rows, on_t, on_s, [(None, c[2], False) for c in matched],
        [(None, c[2]) for c in not_matched], COLS)
    compare(wh, wh_py, model, before_next)
    inserted = check_files(wh, before_files, before_next, changed_cols, changed_rids)
    assert all(f.write_cols is None for f in inserted)      # inserts are full rows


def _merge_table(tmp_path, options=None):
    wh, cat = make_table(tmp_path, False, options)
    base = [rand_row(random.Random(i), i, "x") for i in range(8)]
    for i, r in enumerate(base):
        r["score"], r["tag"] = float(i), i
    append(cat, base)
    return wh, cat, base


@pytest.mark.parametrize("form", ["sql", "callable"])
def test_merge_conditions_first_clause_wins(tmp_path, form):
    wh, cat, base = _merge_table(tmp_path)
    src_rows = [dict(rand_row(random.Random(100 + i), k, "x"), score=None if k is None else float(10 * k), tag=k)
                for i, k in enumerate([1, 2, 3, 4, 20, 21, None])]
    src_rows[2]["tag"] = None           # condition on null -> not true -> next clause
    sql = ["s.tag >= 3 AND t.score < 4.5", "s.tag = 2", "s.tag > 20"]
    fn = [lambda b: pc.and_(pc.greater_equal(b["s.tag"], 3), pc.less(b["t.score"], 4.5)),
          lambda b: pc.equal(b["s.tag"], 2), lambda b: pc.greater(b["s.tag"], 20)]
    cond = sql if form == "sql" else fn
    t = cat.get_table("db.t")
    msgs = t.new_batch_write_builder().new_update().merge_into(
        pa.Table.from_pylist(src_rows, schema=SCHEMA), on=["id"],
        when_matched=[WhenMatched.update({"name": lit("c0")}, condition=cond[0]),
                      WhenMatched.update({"name": lit("c1"), "tag": "s.tag"}, condition=cond[1]),
                      WhenMatched.update({"name": "s.name"})],
        when_not_matched=[WhenNotMatched(insert={"name": lit("ins-big")}, condition=cond[2]),
                          WhenNotMatched(insert="*")])
    commit(t, msgs)
    py = [(lambda s, t: s["tag"] is not None and s["tag"] >= 3 and t["score"] < 4.5),
          (lambda s, t: s["tag"] == 2), (lambda s, t: s["tag"] is not None and s["tag"] > 20)]
    model, cols, rids = model_merge(
        {i: r for i, r in enumerate(base)}, src_rows, ["id"], ["id"],
        [(py[0], {"name": L("c0")}, False), (py[1], {"name": L("c1"), "tag": S("tag")}, False),
         (None, {"name": S("name")}, False)],
        [(py[2], {"name": L("ins-big"), "id": S("id")}), (None, {c: S(c) for c in COLS})], COLS)
    compare(wh, None, model, 8)
    got = read_rows(wh, True)
    assert (got[4]["name"], got[2]["name"], got[3]["name"]) == ("c0", "c1", src_rows[2]["name"])


def test_merge_callable_values_and_sources(tmp_path):
    wh, cat, base = _merge_table(tmp_path)
    t = cat.get_table("db.t")
    src = pa.table({"id": pa.array([1, 2], pa.int64()), "score": [5.0, 6.0]})
    msgs = t.new_batch_write_builder().new_update().merge_into(
        src.to_pandas(), on=["id"],
        when_matched=[WhenMatched.update({"score": lambda b: pc.add(b["s.score"], b["t.score"])})])
    commit(t, msgs)
    got = read_rows(wh, True)
    assert [got[i]["score"] for i in range(4)] == [0.0, 6.0, 8.0, 3.0]
    with pytest.raises(InvalidArgumentError, match="Callable SET result length must match matched row count"):
        t.new_batch_write_builder().new_update().merge_into(
            src, on=["id"], when_matched=[WhenMatched.update({"score": lambda b: pa.array([1.0])})])
    # a paimonc table as the source, and a self-merge on _ROW_ID
    t = cat.get_table("db.t")
    msgs = t.new_batch_write_builder().new_update().merge_into(
        t, on=["_ROW_ID"], when_matched=[WhenMatched.update({"tag": lambda b: pc.multiply(b["t.tag"], 10)},
                                                            condition="t.id >= 6")])
    commit(t, msgs)
    assert [r["tag"] for _, r in sorted(read_rows(wh, True).items())] == [0, 1, 2, 3, 4, 5, 60, 70]
    with pytest.raises(InvalidArgumentError, match="Self-merge .* does not support WHEN NOT MATCHED"):
        t.new_batch_write_builder().new_update().merge_into(
            t, on=["_ROW_ID"], when_not_matched=[WhenNotMatched(insert="*")])


def test_merge_stream_and_mixed_commit(tmp_path):
    wh, cat, base = _merge_table(tmp_path)
    t = cat.get_table("db.t")
    swb = t.new_stream_write_builder()
    src = pa.Table.from_pylist([dict(base[1], name="S1"), dict(base[1], id=30, name="S30")], schema=SCHEMA)
    msgs = swb.new_update().merge_into(src, on=["id"], when_matched=[WhenMatched.update({"name": "s.name"})],
                                       when_not_matched=[WhenNotMatched(insert="*")], commit_identifier=5)
    # plus a plain append in the same commit
    w = swb.new_write()
    w.write_arrow(pa.Table.from_pylist([dict(base[0], id=40, name="W40")], schema=SCHEMA))
    msgs += w.prepare_commit(5)
    w.close()
    sid = commit(t, msgs, stream_id=5)
    assert cat.get_table("db.t").snapshot(sid).commit_identifier == 5
    got = read_rows(wh, True)
    assert got[1]["name"] == "S1" and sorted(r["name"] for rid, r in got.items() if rid >= 8) == ["S30", "W40"]
    t = cat.get_table("db.t")
    msgs = t.new_stream_write_builder().new_update().upsert_by_arrow_with_key(
        pa.Table.from_pylist([dict(base[2], name="U2")], schema=SCHEMA), ["id"], 6)
    commit(t, msgs, stream_id=6)
    assert read_rows(wh, False)[2]["name"] == "U2"


def test_merge_after_add_column(tmp_path):
    """The usual backfill: add a column, then merge values into it (the latest
    snapshot still has the old schema)."""
    wh, cat, base = _merge_table(tmp_path)
    cat.alter_table("db.t", [paimonc.SchemaChange.add_column("extra", paimonc.AtomicType("INT"))])
    t = cat.get_table("db.t")
    msgs = t.new_batch_write_builder().new_update().merge_into(
        pa.table({"id": pa.array([3, 4], pa.int64()), "extra": pa.array([33, 44], pa.int32())}), on=["id"],
        when_matched=[WhenMatched.update({"extra": "s.extra"})])
    commit(t, msgs)
    pt = pypaimon.CatalogFactory.create({"warehouse": wh}).get_table("db.t")
    rb = pt.new_read_builder().with_projection(["id", "extra"])
    got = sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist(), key=lambda r: r["id"])
    assert [r["extra"] for r in got] == [None, None, None, 33, 44, None, None, None]
    upd = [f for s in pt.new_read_builder().new_scan().plan().splits() for f in s.files if f.write_cols]
    assert [f.write_cols for f in upd] == [["extra"]]


def test_merge_retries_when_table_moves(tmp_path, monkeypatch):
    """The update must be planned on the snapshot the target was read at: a
    commit in between makes merge_into read again."""
    from paimonc import merge as mmod
    wh, cat, base = _merge_table(tmp_path)
    real = mmod._read_target
    calls = []

    def racing(table, proj):
        out = real(table, proj)
        calls.append(out[0])
        if len(calls) == 1:
            append(cat, [dict(base[0], id=99, name="racer")])
        return out
    monkeypatch.setattr(mmod, "_read_target", racing)
    t = cat.get_table("db.t")
    msgs = t.new_batch_write_builder().new_update().merge_into(
        pa.table({"id": pa.array([99, 2], pa.int64()), "name": ["hit", "two"]}), on=["id"],
        when_matched=[WhenMatched.update({"name": "s.name"})])
    assert calls == [1, 2]
    commit(t, msgs)
    got = read_rows(wh, True)
    assert got[8]["name"] == "hit" and got[2]["name"] == "two"

    def always(table, proj):
        out = real(table, proj)
        append(cat, [dict(base[0], id=98)])
        return out
    monkeypatch.setattr(mmod, "_read_target", always)
    with pytest.raises(ConflictError, match="kept changing"):
        t.new_batch_write_builder().new_update().merge_into(
            pa.table({"id": pa.array([2], pa.int64()), "name": ["x"]}), on=["id"],
            when_matched=[WhenMatched.update({"name": "s.name"})])


def test_merge_delete(tmp_path):
    """WhenMatched.delete goes through TableUpdate._delete_by_row_id
    (deletion vectors); compared with pypaimon on a copy."""
    wh, cat, base = _merge_table(tmp_path, {"deletion-vectors.enabled": "true"})
    wh_py = str(tmp_path / "py")
    shutil.copytree(wh, wh_py)
    src = pa.Table.from_pylist([dict(base[i], name="m%d" % i) for i in (1, 2, 5)]
                               + [dict(base[0], id=50, name="new")], schema=SCHEMA)
    t = cat.get_table("db.t")
    msgs = t.new_batch_write_builder().new_update().merge_into(
        src, on=["id"], when_matched=[WhenMatched.delete(condition="t.tag < 2 OR t.tag > 4"),
                                      WhenMatched.update({"name": "s.name"})],
        when_not_matched=[WhenNotMatched(insert="*")])
    commit(t, msgs)
    got = read_rows(wh, True)
    assert sorted(got) == [0, 2, 3, 4, 6, 7, 8]
    assert got[2]["name"] == "m2" and got[8]["name"] == "new"
    assert read_rows(wh, False) == got
    # pypaimon (no DataFusion here: unconditional delete only)
    pt = pypaimon.CatalogFactory.create({"warehouse": wh_py}).get_table("db.t")
    pwb = pt.new_batch_write_builder()
    pwb.new_commit().commit(pwb.new_update().merge_into(src, on=["id"], when_matched=[PWhenMatched.delete()]))
    assert sorted(read_rows(wh_py, False)) == [0, 3, 4, 6, 7]


def test_merge_bad_inputs(tmp_path):
    wh, cat, base = _merge_table(tmp_path)
    t = cat.get_table("db.t")
    u = t.new_batch_write_builder().new_update()
    src = pa.Table.from_pylist(base[:2], schema=SCHEMA)
    up = [WhenMatched.update({"name": "s.name"})]
    cases = [
        (dict(on=["id"]), "At least one of when_matched or when_not_matched must be non-empty"),
        (dict(on=["id"], when_matched=[WhenMatched.update("*"), WhenMatched.delete()]),
         "Only the last when_matched clause may omit its condition. Clause at index 0"),
        (dict(on=[], when_matched=up), "'on' must be non-empty"),
        (dict(on={"id": "sid"}, when_matched=up), r"'on' columns \['sid'\] missing from source schema"),
        (dict(on=["zz"], when_matched=up), r"'on' columns \['zz'\] missing from target table fields"),
        (dict(on=["id"], when_matched=[WhenMatched.update({"zz": "s.name"})]),
         "SET spec references unknown target column 'zz'"),
        (dict(on=["id"], when_matched=[WhenMatched.update({"name": "t.zz"})]),
         "SET spec references unknown target column 'zz'"),
        (dict(on=["id"], when_matched=[WhenMatched.update({"name": "s.zz"})]),
         r"source is missing columns \['zz'\] referenced by SET spec"),
        (dict(on=["id"], when_not_matched=[WhenNotMatched(insert={"name": "t.name"})]),
         r"INSERT spec must not reference target columns \(t.\*\), but found: 't.name'"),
        (dict(on=["id"], when_not_matched=[WhenNotMatched(insert="*", condition="t.tag > 1")]),
         r"WhenNotMatched condition must not reference target columns \(t.\*\), but found: \['tag'\]"),
        (dict(on=["id"], when_matched=[WhenMatched.update({"name": "s.name"}, condition="s.nope = 1")]),
         "condition references unknown source column 'nope'"),
        (dict(on=["id"], when_matched=[WhenMatched.update({"name": "s.name"}, condition="t.nope = 1")]),
         "condition references unknown target column 'nope'"),
        (dict(on=["id"], when_matched=[WhenMatched.delete()]),
         "merge_into DELETE requires 'deletion-vectors.enabled' = 'true' on target table"),
        (dict(on=["id"], when_matched=[WhenMatched.update({"name": "s.name"}, condition="s.tag +* 1")]),
         "cannot evaluate condition"),
        (dict(on=["id"], when_matched=[WhenMatched.update({"name": "s.name"}, condition="s.tag + 1")]),
         "is not boolean"),
        (dict(on=["id"], when_matched=[WhenMatched.update({"tag": lit("x")})]), "literal 'x' is not a int32"),
    ]
    for kwargs, msg in cases:
        with pytest.raises(InvalidArgumentError, match=msg):
            u.merge_into(src, **kwargs)
    with pytest.raises(InvalidArgumentError, match="MERGE matched multiple source rows to the same target _ROW_ID"):
        u.merge_into(pa.concat_tables([src, src]), on=["id"], when_matched=up)
    with pytest.raises(TypeError, match="SET spec must be '\\*' or a mapping, got int"):
        u.merge_into(src, on=["id"], when_matched=[WhenMatched.update(5)])
    with pytest.raises(TypeError, match="source must be a pyarrow.Table"):
        u.merge_into([1], on=["id"], when_matched=up)
    with pytest.raises(InvalidArgumentError, match="WhenMatched.delete must not specify update"):
        WhenMatched("delete", update="*")
    # partitioned: '*' would change the partition column
    wh2, cat2 = make_table(tmp_path, True, name="p")
    append(cat2, base[:2])
    t2 = cat2.get_table("db.t")
    with pytest.raises(InvalidArgumentError, match=r"does not support updating partition columns \['dt'\]"):
        t2.new_batch_write_builder().new_update().merge_into(src, on=["id"], when_matched=[WhenMatched.update()])
    wh3 = str(tmp_path / "plain")
    cat3 = paimonc.CatalogFactory.create({"warehouse": wh3})
    cat3.create_database("db", True)
    cat3.create_table("db.t", paimonc.Schema.from_pyarrow_schema(SCHEMA), False)
    with pytest.raises(InvalidArgumentError, match="merge_into requires 'data-evolution.enabled' = 'true'"):
        cat3.get_table("db.t").new_batch_write_builder().new_update().merge_into(src, on=["id"], when_matched=up)
    # nothing was written by any of these
    assert read_rows(wh, False) == {i: r for i, r in enumerate(
        pa.Table.from_pylist(base, schema=SCHEMA).to_pylist())}


def test_pypaimon_writes_every_column_paimonc_only_changed(tmp_path):
    """The documented difference: for merge '*' pypaimon's update files hold
    every column (_WRITE_COLS = all), paimonc's only the changed ones."""
    wh, cat, base = _merge_table(tmp_path)
    wh_py = str(tmp_path / "py")
    shutil.copytree(wh, wh_py)
    src = pa.Table.from_pylist([dict(base[3], score=99.0)], schema=SCHEMA)
    t = cat.get_table("db.t")
    commit(t, t.new_batch_write_builder().new_update().merge_into(
        src, on=["id"], when_matched=[WhenMatched.update("*")]))
    pt = pypaimon.CatalogFactory.create({"warehouse": wh_py}).get_table("db.t")
    pwb = pt.new_batch_write_builder()
    pwb.new_commit().commit(pwb.new_update().merge_into(src, on=["id"], when_matched=[PWhenMatched.update("*")]))
    ours = [f.write_cols for f in files(wh).values() if f.write_cols]
    theirs = [f.write_cols for f in files(wh_py).values() if f.write_cols]
    assert ours == [["score"]] and theirs == [COLS]
    assert read_rows(wh, True) == read_rows(wh_py, True)


def test_merge_accepts_pypaimon_clauses_and_record_batches(tmp_path):
    wh, cat, base = _merge_table(tmp_path)
    t = cat.get_table("db.t")
    src = pa.Table.from_pylist([dict(base[1], tag=100), dict(base[1], id=77)], schema=SCHEMA).to_batches()[0]
    msgs = t.new_batch_write_builder().new_update().merge_into(
        src, on=["id"], when_matched=[PWhenMatched.update({"tag": psource_col("tag"), "name": plit("p")})],
        when_not_matched=[PWhenNotMatched(insert={"name": "s.name"})])
    commit(t, msgs)
    got = read_rows(wh, True)
    assert (got[1]["tag"], got[1]["name"]) == (100, "p")
    assert got[8] == dict({c: None for c in COLS}, id=77, name=base[1]["name"])


_CONDS = [   # (SQL, the model's reading of it: SQL three-valued logic, null -> not true)
    ("s.tag > t.tag", lambda s, t: s["tag"] is not None and t["tag"] is not None and s["tag"] > t["tag"]),
    ("t.flag", lambda s, t: t["flag"] is True),
    ("s.name IS NULL", lambda s, t: s["name"] is None),
    ("t.score < 0 OR s.amt > 0", lambda s, t: (t["score"] is not None and t["score"] < 0)
     or (s["amt"] is not None and s["amt"] > 0)),
]
_NM_CONDS = [
    ("s.tag >= 0", lambda s, t: s["tag"] is not None and s["tag"] >= 0),
    ("NOT s.flag", lambda s, t: s["flag"] is False),
]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("partitioned", [False, True])
def test_merge_random_conditional(tmp_path, seed, partitioned):
    """Several conditional clauses (first match wins), deletes among them,
    on deletion-vector tables: paimonc against the model, read by both."""
    rnd = random.Random(seed * 17 + partitioned + 1000)
    wh, cat = build_target(tmp_path, rnd, partitioned, {"deletion-vectors.enabled": "true"})
    target = read_rows(wh, False)
    on = rnd.choice([["id"], ["id", "k2"]])
    m_choices, n_choices = _specs(partitioned, on, on)
    matched, model_m = [], []
    for i in range(rnd.randint(0, 3)):
        sql, fn = rnd.choice(_CONDS)
        last = rnd.random() < 0.3
        if rnd.random() < 0.35:
            matched.append(WhenMatched.delete(condition=None if last else sql))
            model_m.append((None if last else fn, {}, True))
        else:
            spec = rnd.choice(m_choices)
            matched.append(WhenMatched.update(spec[0], condition=None if last else sql))
            model_m.append((None if last else fn, spec[2], False))
        if last:
            break
    not_matched, model_n = [], []
    for i in range(rnd.randint(0 if matched else 1, 2)):
        sql, fn = rnd.choice(_NM_CONDS)
        spec = rnd.choice(n_choices)
        last = rnd.random() < 0.4
        not_matched.append(WhenNotMatched(insert=spec[0], condition=None if last else sql))
        model_n.append((None if last else fn, spec[2]))
        if last:
            break
    src_rows, seen = [], set()
    tvals = list(target.values())
    for _ in range(rnd.randint(1, 14)):
        r = rand_row(rnd, rnd.randrange(25), rnd.choice(["x", "y"]))
        if rnd.random() < 0.6:
            base = rnd.choice(tvals)
            for c in on + (["dt"] if partitioned else []):
                r[c] = base[c]
        k = tuple(r[c] for c in on)
        if None in k or k not in seen:
            seen.add(k)
            src_rows.append(r)
    before_files, before_next = files(wh), next_row_id(cat)
    t = cat.get_table("db.t")
    msgs = t.new_batch_write_builder().new_update().merge_into(
        pa.Table.from_pylist(src_rows, schema=SCHEMA), on=on, when_matched=matched, when_not_matched=not_matched)
    commit(t, msgs)
    model, changed_cols, changed_rids = model_merge(target, src_rows, on, on, model_m, model_n, COLS)
    compare(wh, None, model, before_next)
    check_files(wh, before_files, before_next, changed_cols, changed_rids)
