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


def merge_into(target, source, catalog_options, *, on, when_matched=(), when_not_matched=(), num_partitions=None,
               ray_remote_args=None, concurrency=None, read_columns=None):
    """SQL MERGE INTO a data-evolution table (pypaimon.ray.merge_into's
    parameters and result ``{"num_matched", "num_inserted",
    "num_unchanged"}``). ``source``: a ray.data.Dataset, pyarrow Table,
    pandas DataFrame or a table name ('db.t'; the target's own name with
    ``on=['_ROW_ID']`` is a self-merge).

    How it runs (differs from pypaimon): the join runs in the driver, on a
    native read of the target's key and needed columns and an Arrow hash
    join; matched rows are written through the row-id update path (only
    the changed columns of the touched file groups), unmatched rows through
    a normal write, deletes as deletion vectors; one commit. A Dataset
    source is collected to the driver. ``num_partitions``,
    ``ray_remote_args`` and ``concurrency`` are accepted for compatibility
    and only shape the collection of a Dataset source."""
    from .. import merge as M
    if read_columns is not None and not isinstance(read_columns, (list, tuple)):
        raise ValueError("read_columns must be a list of column names")
    table = C.open_table(target, catalog_options)
    if isinstance(source, str):
        src = C.open_table(source, catalog_options)
    elif C.is_dataset(source):
        import pyarrow as pa
        ray = C.ensure_ray()
        tables = [t for t in ray.get(list(source.to_arrow_refs())) if t.num_columns]
        if not tables:
            names = source.schema(fetch_if_missing=True).names
            raise InvalidArgumentError("merge_into: the source Dataset is empty (columns {})".format(names))
        src = pa.concat_tables(tables, promote_options="permissive")
    else:
        src = C.to_arrow_table(source, "merge_into's source")
    wb = table.new_batch_write_builder()
    upd = wb.new_update()
    stats = {}
    msgs = M.merge_into(upd, src, on=on, when_matched=when_matched, when_not_matched=when_not_matched, stats=stats)
    if msgs:
        commit = wb.new_commit()
        try:
            commit.commit(msgs)
        finally:
            commit.close()
    return {"num_matched": int(stats.get("num_matched", 0)), "num_inserted": int(stats.get("num_inserted", 0)),
            "num_unchanged": 0}
