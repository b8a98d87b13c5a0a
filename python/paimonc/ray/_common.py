"""Shared pieces of paimonc.ray: opening tables from catalog options,
normalising sources, row-id routing to file groups, committing once.

Workers never receive live handles: a Table pickles as (catalog options,
identifier, dynamic options) and reopens on the worker; splits and commit
messages travel as libpaimonc's versioned bytes.
"""

import os

from ..errors import InvalidArgumentError

ROW_ID = "_ROW_ID"


def require_ray():
    try:
        import ray  # noqa: F401
        import ray.data  # noqa: F401
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("paimonc.ray needs Ray: pip install 'ray[data]>=2.50'") from e
    return ray


def open_table(identifier, catalog_options, dynamic_options=None):
    from ..catalog import CatalogFactory, Table
    if isinstance(identifier, Table):
        table = identifier
    else:
        if not isinstance(identifier, str):
            raise TypeError("the table must be given as 'db.table', not {!r}".format(type(identifier).__name__))
        if not isinstance(catalog_options, dict):
            raise TypeError("catalog_options must be a dict, not {!r}".format(type(catalog_options).__name__))
        table = CatalogFactory.create(catalog_options).get_table(identifier)
    if dynamic_options:
        table = table.copy({str(k): str(v) for k, v in dynamic_options.items()})
    return table


def opt_true(table, key):
    return str(table.options.get(key, "false")).lower() == "true"


def require_data_evolution(table, what):
    name = str(table.identifier)
    if not opt_true(table, "data-evolution.enabled"):
        raise InvalidArgumentError("{} requires 'data-evolution.enabled'='true' on '{}'.".format(what, name))
    if not opt_true(table, "row-tracking.enabled"):
        raise InvalidArgumentError("{} requires 'row-tracking.enabled'='true' on '{}'.".format(what, name))


def cluster_cpus():
    import ray
    try:
        return max(1, int(ray.cluster_resources().get("CPU", os.cpu_count() or 1)))
    except Exception:  # noqa: BLE001 - ray not initialised: ray.init happens on first use
        return max(1, os.cpu_count() or 1)


def ensure_ray():
    import ray
    if not ray.is_initialized():
        ray.init(ignore_reinit_error=True, log_to_driver=False)
    return ray


def is_dataset(obj):
    try:
        from ray.data import Dataset
    except ImportError:  # pragma: no cover
        return False
    return isinstance(obj, Dataset)


def to_arrow_table(obj, what):
    """A pyarrow.Table from a pyarrow Table/RecordBatch/reader, pandas or
    polars DataFrame, or anything with __arrow_c_stream__."""
    import pyarrow as pa
    if isinstance(obj, pa.Table):
        return obj
    if isinstance(obj, pa.RecordBatch):
        return pa.Table.from_batches([obj])
    if isinstance(obj, pa.RecordBatchReader):
        return obj.read_all()
    try:
        import pandas as pd
        if isinstance(obj, pd.DataFrame):
            return pa.Table.from_pandas(obj, preserve_index=False)
    except ImportError:  # pragma: no cover
        pass
    if hasattr(obj, "__arrow_c_stream__"):
        return pa.table(obj)
    raise TypeError("{} must be a ray.data.Dataset, pyarrow.Table or pandas.DataFrame, not {}".format(
        what, type(obj).__name__))


def block_refs(source, columns, what):
    """(object refs of pyarrow Tables with ``columns``, or None, local pyarrow
    Table or None): a Dataset stays in the object store; in-memory data
    stays on the driver."""
    if isinstance(source, str):
        raise InvalidArgumentError(
            "{} does not accept a table-name source: another table's _ROW_ID cannot address this table; "
            "pass a ray.data.Dataset / pyarrow.Table / pandas.DataFrame".format(what))
    if is_dataset(source):
        names = source.schema(fetch_if_missing=True).names
        miss = [c for c in columns if c not in names]
        if miss:
            raise InvalidArgumentError("{}: the source lacks column(s) {} (it has {})".format(what, miss, names))
        return source.select_columns(list(columns)).to_arrow_refs(), None
    tbl = to_arrow_table(source, "{}'s source".format(what))
    miss = [c for c in columns if c not in tbl.column_names]
    if miss:
        raise InvalidArgumentError("{}: the source lacks column(s) {} (it has {})".format(
            what, miss, tbl.column_names))
    return None, tbl.select(list(columns))


class FileGroups:
    """The row-id file groups of one planned snapshot: sorted ``starts`` /
    ``ends`` (inclusive) and a contiguous assignment of groups to ``parts``
    of roughly equal row counts."""

    def __init__(self, table, snapshot_id=None):
        import numpy as np
        from ..ranges import plan_row_id_ranges
        groups = plan_row_id_ranges(table, 1, snapshot_id)
        rs = sorted((r.from_, r.to) for g in groups for r in g)
        self.starts = np.array([a for a, _ in rs], dtype=np.int64)
        self.ends = np.array([b for _, b in rs], dtype=np.int64)

    def __len__(self):
        return len(self.starts)

    @property
    def rows(self):
        return int((self.ends - self.starts + 1).sum()) if len(self.starts) else 0

    def assign(self, parts):
        """group index -> part, contiguous, balanced by rows; returns the
        number of parts actually used."""
        import numpy as np
        n = len(self.starts)
        parts = max(1, min(int(parts), n))
        counts = self.ends - self.starts + 1
        before = np.cumsum(counts) - counts
        total = max(1, int(counts.sum()))
        self.part_of = np.minimum(parts - 1, (before * parts) // total).astype(np.int64)
        return parts

    def locate(self, ids, what):
        """Group index of each id (numpy int64); raises naming the first id
        that lies in no group."""
        import numpy as np
        g = np.searchsorted(self.starts, ids, side="right") - 1
        bad = (g < 0) | (ids > self.ends[np.maximum(g, 0)]) if len(self.starts) else np.ones(len(ids), bool)
        if bad.any():
            raise InvalidArgumentError(
                "{}: _ROW_ID {} does not belong to any file group of the table (it has {} groups covering {} "
                "rows); the planner snapshot is stale or the row ids come from a different table".format(
                    what, int(ids[np.argmax(bad)]), len(self.starts), self.rows))
        return g


def id_array(tbl, col, what):
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    arr = tbl.column(col)
    if arr.null_count:
        raise InvalidArgumentError("{}: {} has nulls".format(what, col))
    if not pa.types.is_integer(arr.type):
        raise InvalidArgumentError("{}: {} must be an integer column, not {}".format(what, col, arr.type))
    arr = pc.cast(arr, pa.int64())
    return np.asarray(arr.combine_chunks() if hasattr(arr, "combine_chunks") else arr, dtype=np.int64)


def split_by_part(tbl, ids, groups, parts, what):
    """``tbl`` cut into ``parts`` tables by the part of each row's group."""
    import numpy as np
    import pyarrow as pa
    g = groups.locate(ids, what)
    part = groups.part_of[g]
    order = np.argsort(part, kind="stable")
    bounds = np.searchsorted(part[order], np.arange(parts + 1), side="left")
    idx = pa.array(order)
    return [tbl.take(idx[int(bounds[p]):int(bounds[p + 1])]) for p in range(parts)]


def commit_once(table, messages):
    """One commit of all messages on the driver. Returns the snapshot id
    or None. A failed commit leaves its files as orphans (never deleted
    here: an uncertain failure may have landed)."""
    if not messages:
        return None
    commit = table.new_batch_write_builder().new_commit()
    try:
        return commit.commit(messages)
    finally:
        commit.close()


def messages_from_bytes(blobs):
    from ..write import CommitMessage
    return [CommitMessage.deserialize(b) for b in blobs]
