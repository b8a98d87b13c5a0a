"""write_paimon / TableWrite.write_ray: a Ray Datasink.

Each write task opens the table from its pickle (catalog options +
identifier), writes its blocks natively and returns its commit messages as
bytes; the driver commits all of them once, as one snapshot. A task Ray
retries returns only the messages of its successful attempt, and an append
is committed under the sink's own commit user and identifier 1, so a
replayed commit cannot apply it twice (the commit protocol finds the
snapshot of that identifier and skips it). Files of failed attempts are orphans (``remove_orphan_files``).
"""

import uuid

from ..errors import InvalidArgumentError, UnsupportedError
from . import _common as C

__all__ = ["write_paimon", "PaimonWriteResult", "write_ray"]

_PRECLUSTER = ("auto", "off", "map_groups")


class PaimonWriteResult:
    """What one write committed: ``row_count`` and ``snapshot_id``."""

    __slots__ = ("row_count", "snapshot_id")

    def __init__(self, row_count, snapshot_id):
        self.row_count = row_count
        self.snapshot_id = snapshot_id

    def __repr__(self):
        return "PaimonWriteResult(row_count={}, snapshot_id={})".format(self.row_count, self.snapshot_id)


def _conform(block, schema):
    """Ray turns large_binary (BLOB) into binary and may widen types; cast
    back where the table's Arrow type differs only in layout."""
    import pyarrow as pa
    cols, changed = [], False
    for name in block.column_names:
        arr = block.column(name)
        if name in schema.names:
            want = schema.field(name).type
            if arr.type != want and (pa.types.is_binary(arr.type) or pa.types.is_string(arr.type)
                                     or pa.types.is_large_string(arr.type)
                                     or pa.types.is_large_binary(arr.type)):
                try:
                    arr = arr.cast(want)
                    changed = True
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
                    pass
        cols.append(arr)
    return pa.Table.from_arrays(cols, names=block.column_names) if changed else block


def _sink_class():
    from ray.data.block import BlockAccessor
    from ray.data.datasource import Datasink

    class _PaimonDatasink(Datasink):
        def __init__(self, table, overwrite, static_partition):
            self.table = table
            self.overwrite = bool(overwrite)
            self.static_partition = static_partition
            self.commit_user = "paimonc-ray-" + uuid.uuid4().hex
            self.result = None

        def _builder(self):
            wb = self.table.new_batch_write_builder()
            wb.commit_user = self.commit_user
            if self.overwrite:
                wb = wb.overwrite(self.static_partition)
            return wb

        def get_name(self):
            return "Paimon"

        def on_write_start(self, schema=None):
            return None

        def write(self, blocks, ctx):
            schema = self.table.to_arrow_schema()
            w = self._builder().new_write()
            rows = 0
            try:
                for block in blocks:
                    tbl = BlockAccessor.for_block(block).to_arrow()
                    if tbl.num_rows == 0:
                        continue
                    rows += tbl.num_rows
                    w.write_arrow(_conform(tbl, schema))
                msgs = w.prepare_commit()
            finally:
                w.close()
            return ([m.serialize() for m in msgs], rows)

        def on_write_complete(self, write_result):
            returns = getattr(write_result, "write_returns", write_result)
            blobs = [b for r in returns for b in r[0]]
            rows = sum(r[1] for r in returns)
            messages = C.messages_from_bytes(blobs)
            if not messages and not self.overwrite:
                self.result = None
                return
            if self.overwrite:
                commit = self._builder().new_commit()
                do = commit.commit
            else:
                # identifier 1 under this sink's own commit user: a replayed
                # commit finds its snapshot and is skipped
                swb = self.table.new_stream_write_builder()
                swb.commit_user = self.commit_user
                commit = swb.new_commit()

                def do(msgs):
                    return commit.commit(msgs, 1)
            # never abort on a failed commit: the files may belong to a snapshot
            # that did land (a replay, an uncertain I/O error); orphans are
            # removed by remove_orphan_files
            try:
                sid = do(messages)
            finally:
                commit.close()
            self.result = PaimonWriteResult(rows, sid) if sid is not None else None

        def on_write_failed(self, error):
            # files of completed tasks are kept: their messages may be replayed
            return None

    return _PaimonDatasink


def write_ray(table, dataset, overwrite=False, concurrency=None, ray_remote_args=None,
              hash_fixed_precluster="auto", static_partition=None):
    C.require_ray()
    if hash_fixed_precluster not in _PRECLUSTER:
        raise ValueError("hash_fixed_precluster must be one of {}, got {!r}".format(
            sorted(_PRECLUSTER), hash_fixed_precluster))
    if hash_fixed_precluster == "map_groups":
        raise UnsupportedError("write_paimon: hash_fixed_precluster='map_groups' (clustering rows by bucket "
                               "before writing) is not implemented in paimonc; use 'auto'")
    if not C.is_dataset(dataset):
        raise TypeError("write_paimon expects a ray.data.Dataset, not {}".format(type(dataset).__name__))
    if getattr(table, "is_primary_key_table", False):
        raise UnsupportedError("write_paimon: primary-key tables are not supported by paimonc yet ('{}')"
                               .format(table.identifier))
    if static_partition is not None and not overwrite:
        raise InvalidArgumentError("write_paimon: static_partition needs overwrite=True")
    sink = _sink_class()(table, overwrite, static_partition)
    kw = {}
    if concurrency is not None:
        kw["concurrency"] = concurrency
    if ray_remote_args:
        kw["ray_remote_args"] = ray_remote_args
    dataset.write_datasink(sink, **kw)
    return sink.result


def write_paimon(dataset, table_identifier, catalog_options, *, overwrite=False, concurrency=None,
                 ray_remote_args=None, hash_fixed_precluster="auto"):
    """Writes a ray.data.Dataset into a Paimon table (pypaimon.ray's
    write_paimon): Ray tasks write natively, the driver commits once.
    Returns a PaimonWriteResult (row_count, snapshot_id), or None when
    nothing was committed."""
    table = C.open_table(table_identifier, catalog_options)
    return write_ray(table, dataset, overwrite=overwrite, concurrency=concurrency,
                     ray_remote_args=ray_remote_args, hash_fixed_precluster=hash_fixed_precluster)
