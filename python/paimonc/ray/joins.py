"""bucket_join and merge_into on Ray (pypaimon.ray's names and parameters)."""

from ..errors import InvalidArgumentError
from . import _common as C

__all__ = ["bucket_join", "merge_into"]


def _bucketing(table):
    opts = table.options
    try:
        count = int(opts.get("bucket", "-1"))
    except ValueError:
        count = -1
    keys = [k.strip() for k in str(opts.get("bucket-key", "")).split(",") if k.strip()]
    if not keys and getattr(table, "primary_keys", None):
        keys = [k for k in table.primary_keys if k not in (table.partition_keys or [])]
    return count, keys, opts.get("bucket-function.type", "default")


def _norm_on(on):
    if isinstance(on, str):
        return [on]
    on = list(on)
    if not on or not all(isinstance(c, str) for c in on):
        raise ValueError("on must be a column name or a non-empty list of column names, got {!r}".format(on))
    return on


def _key_type(table, col):
    return str(table.field_dict[col].type).replace(" NOT NULL", "")


def _join_bucket(left, right, on, lproj, rproj, lsplits, rsplits, join_type):
    def read(table, proj, splits):
        rb = table.new_read_builder()
        if proj is not None:
            rb = rb.with_projection(proj)
        return rb.new_read().to_arrow(splits)
    return read(left, lproj, lsplits).join(read(right, rproj, rsplits), keys=on, join_type=join_type)


def _by_bucket(table, proj):
    rb = table.new_read_builder()
    if proj is not None:
        rb = rb.with_projection(proj)
    out = {}
    for s in rb.new_scan().plan().splits():
        out.setdefault(s.bucket, []).append(s)
    return out


def bucket_join(left, right, catalog_options, *, on, left_projection=None, right_projection=None,
                join_type="inner", ray_remote_args=None):
    """Joins two co-bucketed tables (same bucket count, bucket key and
    function; ``on`` = the bucket key) with no shuffle: one Ray task per
    bucket present on both sides reads both sides natively and joins them
    with pyarrow; the result stays in the object store
    (``ray.data.from_arrow_refs``)."""
    C.require_ray()
    ray = C.ensure_ray()
    on_cols = _norm_on(on)
    lt, rt = C.open_table(left, catalog_options), C.open_table(right, catalog_options)
    lcount, lkey, lfunc = _bucketing(lt)
    rcount, rkey, rfunc = _bucketing(rt)
    if lt.partition_keys or rt.partition_keys:
        raise ValueError("bucket_join does not support partitioned tables yet; got partition keys {}={}, {}={}."
                         .format(left, lt.partition_keys, right, rt.partition_keys))
    if lcount <= 0 or rcount <= 0:
        raise ValueError("bucket_join requires both tables to be fixed-bucket (bucket > 0); got {}={}, {}={}."
                         .format(left, lcount, right, rcount))
    if lcount != rcount:
        raise ValueError("bucket_join requires the same bucket count; {}={}, {}={}.".format(left, lcount, right, rcount))
    if lkey != rkey:
        raise ValueError("bucket_join requires the same bucket-key; {}={}, {}={}.".format(left, lkey, right, rkey))
    if lfunc != rfunc:
        raise ValueError("bucket_join requires the same bucket-function.type; {}={}, {}={}."
                         .format(left, lfunc, right, rfunc))
    if on_cols != lkey:
        raise ValueError("bucket_join requires the join key to be the bucket-key {}; got on={}.".format(lkey, on_cols))
    bad = [(c, _key_type(lt, c), _key_type(rt, c)) for c in on_cols if _key_type(lt, c) != _key_type(rt, c)]
    if bad:
        raise ValueError("bucket_join requires the bucket-key columns to have the same type on both sides; "
                         "mismatched (column, left, right): {}.".format(bad))
    if join_type != "inner":
        raise ValueError("bucket_join currently supports only join_type='inner'; got {!r}.".format(join_type))
    for side, proj in (("left", left_projection), ("right", right_projection)):
        if proj is not None and not set(on_cols) <= set(proj):
            raise ValueError("{}_projection must include the join key {}; got {}.".format(side, on_cols, proj))
    lcols = left_projection if left_projection is not None else lt.field_names
    rcols = right_projection if right_projection is not None else rt.field_names
    clash = sorted((set(lcols) & set(rcols)) - set(on_cols))
    if clash:
        raise ValueError("bucket_join sides must not share columns other than the join key {}; both have {}. "
                         "Project or rename them away.".format(on_cols, clash))
    lb, rb = _by_bucket(lt, left_projection), _by_bucket(rt, right_projection)
    fn = ray.remote(**ray_remote_args)(_join_bucket) if ray_remote_args else ray.remote(_join_bucket)
    lref, rref = ray.put(lt), ray.put(rt)
    refs = [fn.remote(lref, rref, on_cols, left_projection, right_projection, lb[b], rb[b], join_type)
            for b in sorted(set(lb) & set(rb))]
    if not refs:
        import pyarrow as pa
        ls = lt.new_read_builder()
        rs = rt.new_read_builder()
        if left_projection is not None:
            ls = ls.with_projection(left_projection)
        if right_projection is not None:
            rs = rs.with_projection(right_projection)
        empty = pa.Table.from_batches([], ls.read_arrow_schema()).join(
            pa.Table.from_batches([], rs.read_arrow_schema()), keys=on_cols, join_type=join_type)
        return ray.data.from_arrow(empty)
    return ray.data.from_arrow_refs(refs)


def _key_parts(cols, parts):
    """Hash partition of each row by its key columns (the same types on
    both sides, so equal keys land in the same part; null keys never
    match, any part will do)."""
    import numpy as np
    import pandas as pd
    import pyarrow.compute as pc
    from .. import merge as M
    n = len(cols[0]) if cols else 0
    h = np.zeros(n, dtype=np.uint64)
    for arr in cols:
        arr = M._combine(arr)
        if arr.null_count == len(arr):
            continue
        if arr.null_count:
            arr = pc.fill_null(arr, M._filler(arr))
        vals = arr.to_numpy(zero_copy_only=False)
        h = h * np.uint64(1000003) ^ pd.util.hash_array(vals, categorize=False)
    return (h % np.uint64(parts)).astype(np.int64)


def _cut(tbl, part, parts):
    import numpy as np
    import pyarrow as pa
    order = np.argsort(part, kind="stable")
    bounds = np.searchsorted(part[order], np.arange(parts + 1), side="left")
    idx = pa.array(order)
    out = [tbl.take(idx[int(bounds[p]):int(bounds[p + 1])]) for p in range(parts)]
    return out[0] if parts == 1 else tuple(out)


def _target_parts(table, proj, split_bytes, job, parts):
    from ..read import Split
    rb = table.new_read_builder().with_projection(proj)
    tbl = rb.new_read().to_arrow([Split.deserialize(b) for b in split_bytes])
    return _cut(tbl, _key_parts(job.target_keys(tbl), parts), parts)


def _source_parts(block, job, parts):
    return _cut(block, _key_parts(job.source_keys(block), parts), parts)


def _source_table_parts(table, split_bytes, job, parts):
    from ..read import Split
    tbl = table.new_read_builder().new_read().to_arrow([Split.deserialize(b) for b in split_bytes])
    return _source_parts(tbl, job, parts)


def _concat(tables):
    import pyarrow as pa
    tables = [t for t in tables if t.num_columns]
    if len(tables) == 1:
        return tables[0]
    return pa.concat_tables(tables, promote_options="permissive")


def _join_part(table, job, n_target, *parts):
    """Merges one hash partition: (meta, update table or None). The update
    table holds _ROW_ID + every SET column (new values) of the matched rows
    that change in at least one column; meta = (changed columns, delete
    ids, insert commit messages as bytes, num_matched, num_inserted)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from .. import merge as M
    target, src = _concat(parts[:n_target]), _concat(parts[n_target:])
    out = job.evaluate(target, src)
    upd_tbl, changed_cols = None, []
    if out.row_ids is not None:
        changed = {c: M._values_differ(out.new[c], out.old[c]) for c in job.union}
        changed_cols = [c for c in job.union if pc.any(changed[c]).as_py()]
        if changed_cols:
            mask = changed[changed_cols[0]]
            for c in changed_cols[1:]:
                mask = pc.or_(mask, changed[c])
            upd_tbl = pa.Table.from_arrays([pc.filter(out.row_ids, mask)]
                                           + [pc.filter(M._combine(out.new[c]), mask) for c in job.union],
                                           names=[M.ROW_ID] + list(job.union))
    inserts = []
    if out.inserts is not None and out.inserts.num_rows:
        w = table.new_batch_write_builder().new_write()
        try:
            w.write_arrow(out.inserts)
            inserts = [m.serialize() for m in w.prepare_commit()]
        finally:
            w.close()
    meta = (changed_cols, list(out.delete_ids), inserts, out.num_matched, out.num_inserted)
    return meta, upd_tbl


def _merge_update_part(table, cols, base, *parts):
    import pyarrow as pa
    from .. import merge as M
    from ..errors import ConflictError
    tables = [t for t in parts if t is not None and t.num_rows]
    if not tables:
        return [], 0
    tbl = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
    upd = table.new_batch_write_builder().new_update()
    try:
        msgs = M._row_id_update(upd, tbl.select([M.ROW_ID] + list(cols)), cols, base)
    except M._Moved as e:
        raise ConflictError("merge_into: the target changed while the merge ran (planned on snapshot {}, now "
                            "{}); run it again".format(base, e.args[0])) from None
    return [m.serialize() for m in msgs], tbl.num_rows


def merge_into(target, source, catalog_options, *, on, when_matched=(), when_not_matched=(), num_partitions=None,
               ray_remote_args=None, concurrency=None, read_columns=None):
    """SQL MERGE INTO a data-evolution table (pypaimon.ray.merge_into's
    parameters and result ``{"num_matched", "num_inserted",
    "num_unchanged"}``). ``source``: a ray.data.Dataset, pyarrow Table,
    pandas DataFrame or a table name ('db.t'; the target's own name with
    ``on=['_ROW_ID']`` is a self-merge, run in the driver).

    How it runs: the target (its ``_ROW_ID``, keys and the columns the
    clauses need, on one pinned snapshot) and the source are read and
    hash-partitioned by key in Ray tasks into ``num_partitions`` parts
    (default 2 x cluster CPUs); one task per part joins its two sides with
    Arrow's hash join, applies the clauses, writes the inserted rows and
    returns the changed matched rows; those are routed to runs of row-id
    file groups, where one task each writes only the changed columns;
    deletes become deletion vectors on the driver; everything is committed
    once. A target that changes meanwhile makes it fail with ConflictError
    (nothing committed). ``concurrency`` and ``read_columns`` are accepted
    for compatibility; clause callables must be picklable (cloudpickle)."""
    import ray as _ray  # noqa: F401 - fail early without Ray
    from .. import merge as M
    from .datasource import _chunks
    from .row_id import _default_partitions, _gather, _remote, _routed_parts
    if read_columns is not None and not isinstance(read_columns, (list, tuple)):
        raise ValueError("read_columns must be a list of column names")
    C.require_ray()
    ray = C.ensure_ray()
    table = C.open_table(target, catalog_options)
    wb = table.new_batch_write_builder()
    upd = wb.new_update()
    src_table = None
    names = None
    if isinstance(source, str):
        src_table = C.open_table(source, catalog_options)
        if src_table.table_path == table.table_path:
            source = src_table
        else:
            names = list(src_table.field_names)
    elif C.is_dataset(source):
        names = list(source.schema(fetch_if_missing=True).names)
    job, proj, self_merge, src_local = M.merge_into(upd, source, on=on, when_matched=when_matched,
                                                    when_not_matched=when_not_matched, _plan_only=True,
                                                    _source_names=names)
    if self_merge:
        stats = {}
        msgs = M.merge_into(upd, source, on=on, when_matched=when_matched, when_not_matched=when_not_matched,
                            stats=stats)
        C.commit_once(table, msgs)
        return {"num_matched": int(stats.get("num_matched", 0)), "num_inserted": int(stats.get("num_inserted", 0)),
                "num_unchanged": 0}
    if num_partitions is None:
        num_partitions = 2 * C.cluster_cpus()
    if isinstance(num_partitions, bool) or not isinstance(num_partitions, int) or num_partitions < 1:
        raise ValueError("num_partitions must be a positive integer, got {!r}".format(num_partitions))
    P = num_partitions
    plain = M._plain_table(table)
    rb = plain.new_read_builder().with_projection(proj)
    plan = rb.new_scan().plan()
    base = plan.snapshot_id
    # splits name their files, and writers check the snapshot they plan on is base
    tref = ray.put(plain)
    jref = ray.put(job)

    def fan(outs):
        return [outs] if P == 1 else list(outs)
    tparts = [[] for _ in range(P)]
    tsplit = _remote(_target_parts, ray_remote_args, num_returns=P)
    for chunk in _chunks(plan.splits(), 2 * P):
        for p, ref in enumerate(fan(tsplit.remote(tref, proj, [s.serialize() for s in chunk], jref, P))):
            tparts[p].append(ref)
    if not plan.splits():
        empty = ray.put(rb.read_arrow_schema().empty_table())
        tparts = [[empty] for _ in range(P)]
    sparts = [[] for _ in range(P)]
    if src_local is not None:
        for p, t in enumerate(fan(_source_parts(src_local, job, P))):
            sparts[p].append(ray.put(t))
    elif src_table is not None:
        splan = src_table.new_read_builder().new_scan().plan()
        ssplit = _remote(_source_table_parts, ray_remote_args, num_returns=P)
        sref = ray.put(src_table)
        for chunk in _chunks(splan.splits(), 2 * P):
            for p, ref in enumerate(fan(ssplit.remote(sref, [s.serialize() for s in chunk], jref, P))):
                sparts[p].append(ref)
    else:
        bsplit = _remote(_source_parts, ray_remote_args, num_returns=P)
        for block in source.to_arrow_refs():
            for p, ref in enumerate(fan(bsplit.remote(block, jref, P))):
                sparts[p].append(ref)
    join = _remote(_join_part, ray_remote_args, num_returns=2)
    metas, upd_refs = [], []
    for p in range(P):
        if not sparts[p]:   # an empty source (no blocks): nothing matches, nothing is inserted
            continue
        m, u = join.remote(tref, jref, len(tparts[p]), *tparts[p], *sparts[p])
        metas.append(m)
        upd_refs.append(u)
    metas = ray.get(metas)
    keep = [c for c in job.union if any(c in m[0] for m in metas)]
    if base is None and keep:  # pragma: no cover - an empty target matches nothing
        keep = []
    blobs = [b for m in metas for b in m[2]]
    if keep:
        groups = C.FileGroups(plain, base)
        parts = _default_partitions(num_partitions, groups)
        live = [u for u, m in zip(upd_refs, metas) if m[0]]
        per_part = _routed_parts(live, None, groups, parts, M.ROW_ID, "merge_into", ray_remote_args)
        write = _remote(_merge_update_part, ray_remote_args)
        res = _gather([write.remote(tref, keep, base, *pp) for pp in per_part if pp], None, "merge_into",
                      lambda r: r[1])
        blobs.extend(b for r in res for b in r[0])
    msgs = C.messages_from_bytes(blobs)
    deletes = sorted({i for m in metas for i in m[1]})
    if deletes:
        msgs.extend(M._deleter(upd)(deletes))
    if msgs:
        commit = wb.new_commit()
        try:
            commit.commit(msgs)
        finally:
            commit.close()
    return {"num_matched": int(sum(m[3] for m in metas)), "num_inserted": int(sum(m[4] for m in metas)),
            "num_unchanged": 0}
