"""update_by_row_id, read_by_row_id and process_row_id_ranges on Ray,
with pypaimon.ray's names and parameters.

How the work is spread: the driver plans the table's row-id file groups
once and cuts them into ``num_partitions`` contiguous runs of about equal
rows. Every source row is routed to the run owning its ``_ROW_ID`` (numpy
``searchsorted``; in Ray tasks when the source is a Dataset, so its blocks
never pass through the driver). One Ray task per run then writes or reads
natively: an update task writes the updated columns of its file groups and
returns commit messages as bytes; a read task reads only its rows (row
ranges are pruned before any page is decoded). Runs never share a file
group, so the driver commits all messages at once, as one snapshot.
"""

from ..errors import InvalidArgumentError
from . import _common as C

__all__ = ["update_by_row_id", "read_by_row_id", "process_row_id_ranges"]

ROW_ID = C.ROW_ID


def _remote(fn, ray_remote_args=None, **kw):
    import ray
    args = dict(ray_remote_args or {})
    args.update(kw)
    return ray.remote(**args)(fn) if args else ray.remote(fn)


def _route_block(block, groups, parts, id_col, what):
    ids = C.id_array(block, id_col, what)
    out = C.split_by_part(block, ids, groups, parts, what)
    return out[0] if parts == 1 else tuple(out)


def _routed_parts(refs, local, groups, parts, id_col, what, ray_remote_args):
    """parts lists of object refs (or tables) per part."""
    import ray
    per_part = [[] for _ in range(parts)]
    if local is not None:
        ids = C.id_array(local, id_col, what)
        for p, t in enumerate(C.split_by_part(local, ids, groups, parts, what)):
            if t.num_rows:
                per_part[p].append(ray.put(t))
        return per_part
    groups_ref = ray.put(groups)
    route = _remote(_route_block, ray_remote_args, num_returns=parts)
    for ref in refs:
        out = route.remote(ref, groups_ref, parts, id_col, what)
        if parts == 1:
            out = [out]
        for p in range(parts):
            per_part[p].append(out[p])
    return per_part


def _default_partitions(num_partitions, groups):
    if num_partitions is None:
        num_partitions = 2 * C.cluster_cpus()
    if isinstance(num_partitions, bool) or not isinstance(num_partitions, int) or num_partitions < 1:
        raise ValueError("num_partitions must be a positive integer, got {!r}".format(num_partitions))
    return groups.assign(num_partitions)


def _gather(futures, progress, label, rows_of):
    """ray.get of all futures, in order, reporting rows as tasks finish."""
    import ray
    from ..progress import _Null, make_progress
    bar = make_progress(progress, label)
    if isinstance(bar, _Null):
        return ray.get(futures)
    pending, done = list(futures), 0
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            done += rows_of(ray.get(ready[0]))
            bar.update(done)
    finally:
        bar.close()
    return ray.get(futures)


def _update_part(table, cols, *parts):
    import pyarrow as pa
    import pyarrow.compute as pc
    tables = [t for t in parts if t.num_rows]
    if not tables:
        return [], 0
    tbl = pa.concat_tables(tables, promote_options="permissive") if len(tables) > 1 else tables[0]
    if pc.count_distinct(tbl.column(ROW_ID)).as_py() != tbl.num_rows:
        raise InvalidArgumentError("update_by_row_id: the source has duplicate _ROW_ID values; each row may be "
                                   "updated once")
    upd = table.new_batch_write_builder().new_update().with_update_type(cols)
    msgs = upd.update_by_arrow_with_row_id(tbl)
    return [m.serialize() for m in msgs], tbl.num_rows


def update_by_row_id(target, source, catalog_options, *, update_cols, num_partitions=None,
                     ray_remote_args=None, progress=None):
    """Writes ``update_cols`` of the rows named by ``source[_ROW_ID]`` (a
    ray.data.Dataset, pyarrow.Table or pandas.DataFrame) into ``target``
    ('db.table' of a data-evolution table): one Ray task per run of file
    groups, one commit. Returns ``{"num_updated": n}``. ``progress``
    (paimonc extension): a bar over the rows written (paimonc.progress).

    Differences from pypaimon.ray: BLOB columns may be updated (as
    ``.blob`` deltas, like the single-process update), and only the file
    groups holding an updated row are rewritten."""
    import ray
    C.require_ray()
    C.ensure_ray()
    if isinstance(update_cols, str) or update_cols is None:
        raise ValueError("update_cols must be a non-empty list of column names.")
    update_cols = list(dict.fromkeys(update_cols))
    if not update_cols:
        raise ValueError("update_cols must be a non-empty list of column names.")
    table = C.open_table(target, catalog_options)
    C.require_data_evolution(table, "update_by_row_id")
    for c in update_cols:
        if c == ROW_ID:
            raise InvalidArgumentError("update_by_row_id: _ROW_ID cannot be updated")
        if c not in table.field_names:
            raise InvalidArgumentError("update_by_row_id: column '{}' is not in target '{}' (columns: {})".format(
                c, target, ", ".join(table.field_names)))
        if c in (table.partition_keys or []):
            raise InvalidArgumentError("update_by_row_id: partition column '{}' cannot be updated".format(c))
    refs, local = C.block_refs(source, [ROW_ID] + update_cols, "update_by_row_id")
    groups = C.FileGroups(table)
    if not len(groups):
        empty = local.num_rows == 0 if local is not None else all(
            t.num_rows == 0 for t in ray.get(list(refs)))
        if empty:
            return {"num_updated": 0}
        raise InvalidArgumentError("update_by_row_id: target '{}' has no rows; every _ROW_ID in the source is "
                                   "foreign".format(target))
    parts = _default_partitions(num_partitions, groups)
    per_part = _routed_parts(refs, local, groups, parts, ROW_ID, "update_by_row_id", ray_remote_args)
    apply = _remote(_update_part, ray_remote_args)
    table_ref = ray.put(table)
    futures = [apply.remote(table_ref, update_cols, *pp) for pp in per_part if pp]
    results = _gather(futures, progress, "update_by_row_id", lambda r: r[1])
    messages = C.messages_from_bytes([b for blobs, _ in results for b in blobs])
    n = sum(k for _, k in results)
    C.commit_once(table, messages)
    return {"num_updated": int(n)}


def _runs(ids):
    """Sorted unique int64 ids -> inclusive (from, to) runs."""
    import numpy as np
    if len(ids) == 0:
        return []
    brk = np.flatnonzero(np.diff(ids) != 1)
    starts = np.concatenate(([0], brk + 1))
    ends = np.concatenate((brk, [len(ids) - 1]))
    return list(zip(ids[starts].tolist(), ids[ends].tolist()))


def _read_part(table, projection, ids):
    from ..read import Range
    rb = table.new_read_builder().with_projection(projection)
    scan = rb.new_scan().with_row_ranges([Range(a, b) for a, b in _runs(ids)])
    return rb.new_read().to_arrow(scan.plan().splits())


_SCAN_KEYS = ("scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis", "scan.timestamp", "scan.watermark")


def _empty(table, cols):
    import pyarrow as pa
    rb = table.new_read_builder().with_projection(cols)
    return pa.Table.from_batches([], schema=rb.read_arrow_schema())


def read_by_row_id(target, row_ids, catalog_options, *, projection, row_id_col=None, dynamic_options=None,
                   num_partitions=None, ray_remote_args=None):
    """The ``projection`` columns (+ ``_ROW_ID``) of the distinct rows whose
    ids are in ``row_ids[row_id_col or '_ROW_ID']`` (a Dataset, pyarrow
    Table or pandas DataFrame; paimonc also takes a list or numpy array),
    as a ray.data.Dataset grouped by owning file. Only those rows are read
    (row ranges pruned before any page is decoded). ``dynamic_options``:
    ``scan.snapshot-id`` / ``scan.tag-name`` / ``blob-as-descriptor``."""
    import numpy as np
    import pyarrow as pa
    import ray
    C.require_ray()
    C.ensure_ray()
    if not projection or isinstance(projection, str):
        raise ValueError("projection must be a non-empty list of column names.")
    projection = list(dict.fromkeys(projection))
    if dynamic_options:
        bad = sorted({"data-evolution.enabled", "row-tracking.enabled", "deletion-vectors.enabled"}
                     & set(dynamic_options))
        if bad:
            raise ValueError("dynamic_options cannot override table invariants {}.".format(bad))
        if len([k for k in _SCAN_KEYS if k in dynamic_options]) > 1:
            raise ValueError("dynamic_options may set at most one time-travel key {}.".format(list(_SCAN_KEYS)))
    table = C.open_table(target, catalog_options, dynamic_options)
    C.require_data_evolution(table, "read_by_row_id")
    for c in projection:
        if c != ROW_ID and c not in table.field_names:
            raise ValueError("projection column {!r} is not in target '{}'.".format(c, target))
    cols = projection + ([ROW_ID] if ROW_ID not in projection else [])
    col = row_id_col or ROW_ID
    if isinstance(row_ids, (list, tuple, np.ndarray)):
        row_ids = pa.table({col: pa.array(row_ids, pa.int64())})
    refs, local = C.block_refs(row_ids, [col], "read_by_row_id")
    tables = [local] if local is not None else ray.get(list(refs))
    ids = np.unique(np.concatenate([C.id_array(t, col, "read_by_row_id") for t in tables] or
                                   [np.zeros(0, np.int64)]))
    # pin one snapshot for the driver's routing and every worker's read
    snap = table.new_read_builder().new_scan().plan().snapshot_id
    if snap is not None and not any(k in (dynamic_options or {}) for k in _SCAN_KEYS):
        table = table.copy({"scan.snapshot-id": str(snap)})
    groups = C.FileGroups(table, snap) if snap is not None else None
    if len(ids) == 0:
        return ray.data.from_arrow(_empty(table, cols))
    if groups is None or not len(groups):
        raise InvalidArgumentError("read_by_row_id: target '{}' has no rows; every _ROW_ID in the source is "
                                   "foreign".format(target))
    parts = _default_partitions(num_partitions, groups)
    g = groups.locate(ids, "read_by_row_id")
    part = groups.part_of[g]
    bounds = np.searchsorted(part, np.arange(parts + 1), side="left")   # ids sorted => parts sorted
    read = _remote(_read_part, ray_remote_args)
    table_ref = ray.put(table)
    refs = [read.remote(table_ref, cols, ids[bounds[p]:bounds[p + 1]])
            for p in range(parts) if bounds[p + 1] > bounds[p]]
    return ray.data.from_arrow_refs(refs)


def process_row_id_ranges(target, catalog_options, *, rows_per_commit, processor, progress=None):
    """Plans the target's latest snapshot once, then calls
    ``processor(list[Range])`` for each run of whole file groups of about
    ``rows_per_commit`` rows, in row-id order, synchronously (pypaimon's
    contract: the processor reads, computes and commits; an exception stops
    the run). Resumable back-fills filter on ``col IS NULL`` in the
    processor. Does not need a running Ray. ``progress`` (paimonc
    extension): a bar over the rows done (see paimonc.progress)."""
    from ..ranges import process_row_id_ranges as _process
    if isinstance(rows_per_commit, bool) or not isinstance(rows_per_commit, int) or rows_per_commit <= 0:
        raise ValueError("rows_per_commit must be a positive integer.")
    if not callable(processor):
        raise ValueError("processor must be callable.")
    table = C.open_table(target, catalog_options)
    if not C.opt_true(table, "row-tracking.enabled"):
        raise InvalidArgumentError("process_row_id_ranges requires 'row-tracking.enabled'='true' on '{}'."
                                   .format(target))
    _process(table, rows_per_commit=rows_per_commit, processor=processor, progress=progress)
    return None
