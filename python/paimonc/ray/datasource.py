"""read_paimon / TableRead.to_ray: a Ray Datasource over paimonc splits.

The driver plans once (natively); each read task gets a share of the splits
as bytes plus the pickled TableRead (catalog options, identifier, dynamic
options, projection, predicate, limit) and reads them natively on the
worker, yielding one pyarrow.Table per record batch.
"""

import heapq

from ..errors import InvalidArgumentError
from . import _common as C

__all__ = ["read_paimon", "PaimonDatasource", "to_ray"]


def _chunks(splits, n):
    """Greedy largest-first bin packing of splits into n chunks by size."""
    n = max(1, min(n, len(splits)))
    heap = [(0, i) for i in range(n)]
    out = [[] for _ in range(n)]
    for s in sorted(splits, key=lambda s: -s.file_size):
        size, i = heapq.heappop(heap)
        out[i].append(s)
        heapq.heappush(heap, (size + s.file_size, i))
    return [c for c in out if c]


def _read_chunk(read, split_bytes, schema, limit):
    from ..read import Split
    splits = [Split.deserialize(b) for b in split_bytes]
    import pyarrow as pa
    left = limit
    produced = False
    for batch in read.to_arrow_batch_reader(splits):
        if left is not None:
            if left <= 0:
                break
            if batch.num_rows > left:
                batch = batch.slice(0, left)
            left -= batch.num_rows
        produced = True
        yield pa.Table.from_batches([batch])
    if not produced:
        yield pa.Table.from_batches([], schema=schema)


class PaimonDatasource:
    """Built lazily as a ray.data.Datasource subclass (Ray is optional)."""


def _datasource_class():
    from ray.data.block import BlockMetadata
    from ray.data.datasource import Datasource, ReadTask

    class _PaimonDatasource(Datasource, PaimonDatasource):
        def __init__(self, read, splits, schema, limit):
            super().__init__()
            self._read, self._splits, self._schema, self._limit = read, splits, schema, limit

        def get_name(self):
            return "Paimon"

        def estimate_inmemory_data_size(self):
            return sum(s.file_size for s in self._splits)

        def get_read_tasks(self, parallelism, per_task_row_limit=None, data_context=None):
            from functools import partial
            read, schema, limit = self._read, self._schema, self._limit
            tasks = []
            for chunk in _chunks(self._splits, parallelism):
                exact = read.limit is None and read._builder[2] is None
                meta = BlockMetadata(num_rows=sum(s.row_count for s in chunk) if exact else None,
                                     size_bytes=sum(s.file_size for s in chunk),
                                     input_files=None, exec_stats=None)
                fn = partial(_read_chunk, read, [s.serialize() for s in chunk], schema, limit)
                kw = {"schema": schema}
                if per_task_row_limit is not None:
                    kw["per_task_row_limit"] = per_task_row_limit
                tasks.append(ReadTask(lambda fn=fn: fn(), meta, **kw))
            return tasks

    return _PaimonDatasource


def to_ray(read, splits, *, ray_remote_args=None, concurrency=None, override_num_blocks=None, **read_args):
    """The splits' rows as a ray.data.Dataset (one read task per group of
    splits, at most ``override_num_blocks`` or Ray's parallelism)."""
    C.require_ray()
    import ray.data
    if override_num_blocks is not None and override_num_blocks < 1:
        raise ValueError("override_num_blocks must be at least 1, got {}".format(override_num_blocks))
    rb = read._builder
    if rb is None:
        raise InvalidArgumentError("to_ray needs a TableRead made by ReadBuilder.new_read()")
    schema = _schema(read)
    splits = list(splits)
    if not splits:
        return ray.data.from_arrow(schema.empty_table())
    ds = ray.data.read_datasource(_datasource_class()(read, splits, schema, read.limit),
                                  ray_remote_args=ray_remote_args, concurrency=concurrency,
                                  override_num_blocks=override_num_blocks, **read_args)
    if read.limit is not None:
        ds = ds.limit(read.limit)
    return ds


def _schema(read):
    table, projection, predicate, limit = read._builder
    rb = table.new_read_builder()
    if projection is not None:
        rb = rb.with_projection(projection)
    return rb.read_arrow_schema()


def read_paimon(table_identifier, catalog_options, *, filter=None, projection=None, limit=None, snapshot_id=None,
                tag_name=None, dynamic_options=None, ray_remote_args=None, concurrency=None,
                override_num_blocks=None, **read_args):
    """A Paimon table as a ray.data.Dataset (pypaimon.ray.read_paimon):
    planned once on the driver (natively), read by Ray tasks natively.
    ``filter`` is a paimonc Predicate (from the table's predicate builder);
    ``snapshot_id`` / ``tag_name`` time travel; ``dynamic_options`` as
    ``table.copy``; ``row ranges``: pass a TableScan's splits to
    ``TableRead.to_ray`` instead."""
    if snapshot_id is not None and tag_name is not None:
        raise ValueError("snapshot_id and tag_name cannot be set at the same time")
    if override_num_blocks is not None and override_num_blocks < 1:
        raise ValueError("override_num_blocks must be at least 1, got {}".format(override_num_blocks))
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise ValueError("limit must be a non-negative integer, got {!r}".format(limit))
    dyn = dict(dynamic_options or {})
    if snapshot_id is not None:
        dyn["scan.snapshot-id"] = str(int(snapshot_id))
    if tag_name is not None:
        dyn["scan.tag-name"] = str(tag_name)
    table = C.open_table(table_identifier, catalog_options, dyn or None)
    rb = table.new_read_builder()
    if projection is not None:
        rb = rb.with_projection(projection)
    if filter is not None:
        rb = rb.with_filter(filter)
    if limit is not None:
        rb = rb.with_limit(limit)
    plan = rb.new_scan().plan()
    read = rb.new_read()
    # splits name their files, so workers read the planned snapshot whatever commits meanwhile
    return to_ray(read, plan.splits(), ray_remote_args=ray_remote_args, concurrency=concurrency,
                  override_num_blocks=override_num_blocks, **read_args)
