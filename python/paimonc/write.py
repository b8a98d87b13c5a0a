"""Batch (and stream) write and commit with pypaimon's names.

::

    wb = table.new_batch_write_builder()        # .overwrite({"dt": "2024-01-01"})
    with wb.new_write() as w, wb.new_commit() as c:
        w.write_arrow(pa_table)                 # or write_arrow_batch / write_pandas
        c.commit(w.prepare_commit())

Commit messages pickle (libpaimonc's versioned bytes), so many workers can
write and one process commit.
"""

import uuid

from . import _native
from ._base import Closing, commit_once
from .predicate import literal_text

__all__ = ["BATCH_COMMIT_IDENTIFIER", "CommitMessage", "WriteBuilder", "BatchWriteBuilder", "StreamWriteBuilder",
           "TableWrite", "BatchTableWrite", "StreamTableWrite", "TableCommit", "BatchTableCommit",
           "StreamTableCommit"]

BATCH_COMMIT_IDENTIFIER = 0x7FFFFFFFFFFFFFFF


class CommitMessage:
    """The data files one write produced (opaque; pickles)."""

    __slots__ = ("_m",)

    def __init__(self, native):
        self._m = native

    @property
    def file_count(self):
        return self._m.file_count()

    @property
    def row_count(self):
        return self._m.row_count()

    @property
    def index_count(self):
        return self._m.index_count()

    def is_empty(self):
        return self._m.file_count() == 0 and self._m.index_count() == 0

    def serialize(self):
        return self._m.serialize()

    @staticmethod
    def deserialize(data):
        return CommitMessage(_native.commit_message_deserialize(bytes(data)))

    def __reduce__(self):
        return (CommitMessage.deserialize, (self._m.serialize(),))

    def __repr__(self):
        return "CommitMessage(files={}, rows={}, index_changes={})".format(
            self.file_count, self.row_count, self.index_count)


def _counting_reader(data, bar):
    """A RecordBatchReader over data that reports rows to bar as the
    native writer pulls batches."""
    import pyarrow as pa
    if isinstance(data, pa.RecordBatch):
        data = pa.Table.from_batches([data])
    if isinstance(data, pa.Table):
        schema, batches = data.schema, data.to_batches(max_chunksize=65536)
    elif isinstance(data, pa.RecordBatchReader):
        schema, batches = data.schema, data
    elif hasattr(data, "__arrow_c_stream__"):
        r = pa.RecordBatchReader.from_stream(data)
        schema, batches = r.schema, r
    else:
        raise TypeError("write_arrow expects Arrow data, not {}".format(type(data).__name__))
    total = getattr(data, "num_rows", None)

    def gen():
        n = 0
        for b in batches:
            yield b
            n += b.num_rows
            bar.update(n, total)
    return pa.RecordBatchReader.from_batches(schema, gen())


def _native_messages(messages):
    out = []
    for m in messages:
        if not isinstance(m, CommitMessage):
            raise TypeError("commit messages must be paimonc CommitMessage objects, not {!r}".format(type(m)))
        out.append(m._m)
    return out


def _options_with_prefix(table, prefixes, exclude=()):
    dyn = getattr(table, "_dynamic_options", None) or {}
    return {k: v for k, v in dyn.items()
            if any(k.startswith(p) for p in prefixes) and not any(k.startswith(e) for e in exclude)}


class WriteBuilder:
    def __init__(self, table):
        self.table = table
        self.commit_user = self._create_commit_user()
        self.static_partition = None

    def _create_commit_user(self):
        prefix = self.table.options.get("commit.user-prefix")
        return "{}_{}".format(prefix, uuid.uuid4()) if prefix else str(uuid.uuid4())

    def _with_commit_user(self, commit_user):
        self.commit_user = commit_user
        return self


class BatchWriteBuilder(WriteBuilder):
    def overwrite(self, static_partition=None):
        """INSERT OVERWRITE, with the rules of pypaimon / Java Paimon.

        On a partitioned table with ``dynamic-partition-overwrite`` = true
        (the default; set it per write with ``table.copy({...})``) only the
        partitions the committed data lies in are replaced, and
        ``static_partition`` is ignored; committing no data changes nothing.
        Otherwise (option false, or an unpartitioned table) the partitions
        matching ``static_partition`` are replaced - None / {} means the whole
        table, and the dict may name only some partition keys; data outside it
        is rejected, and a commit without data still deletes the matching
        partitions. A None value (or ``partition.default-name``) means null.
        """
        self.static_partition = dict(static_partition) if static_partition is not None else {}
        return self

    def new_write(self):
        return BatchTableWrite(self.table, self.commit_user, self.static_partition)

    def new_update(self):
        """Updates of a data-evolution table (update_by_arrow_with_row_id,
        update_by_predicate), committed with new_commit()."""
        from .update import BatchTableUpdate
        return BatchTableUpdate(self.table, self.commit_user)

    def new_commit(self):
        return BatchTableCommit(self.table, self.commit_user, self.static_partition)


class StreamWriteBuilder(WriteBuilder):
    def new_write(self):
        return StreamTableWrite(self.table, self.commit_user)

    def new_update(self):
        from .update import StreamTableUpdate
        return StreamTableUpdate(self.table, self.commit_user)

    def new_commit(self):
        return StreamTableCommit(self.table, self.commit_user)


class TableWrite(Closing):
    def __init__(self, table, commit_user, static_partition=None):
        self.table = table
        self.commit_user = commit_user
        self.static_partition = static_partition
        # Dynamic options (table.copy) other than scan/commit ones tune the write.
        opts = {k: v for k, v in (getattr(table, "_dynamic_options", None) or {}).items()
                if not k.startswith(("scan.", "commit.", "source.", "read."))}
        self._w = _native.table_write_new(table._t, opts or None)
        from .blob import _stream_read
        self._w.set_blob_stream(_stream_read)

    def write_arrow(self, data, *, progress=None):
        """Writes a pyarrow Table / RecordBatch / RecordBatchReader, or anything
        exporting the Arrow PyCapsule interface (zero copy). ``progress``:
        True for a progress bar, a callable (rows, total), or None (see
        paimonc.progress)."""
        from .progress import _Null, make_progress
        bar = make_progress(progress, "writing", getattr(data, "num_rows", None))
        if not isinstance(bar, _Null):
            try:
                self._w.write_stream(_counting_reader(data, bar).__arrow_c_stream__())
            finally:
                bar.close()
            return
        if hasattr(data, "__arrow_c_array__") and not hasattr(data, "to_batches"):
            schema_cap, array_cap = data.__arrow_c_array__()
            self._w.write_batch(schema_cap, array_cap)
        elif hasattr(data, "__arrow_c_stream__"):
            self._w.write_stream(data.__arrow_c_stream__())
        elif hasattr(data, "__arrow_c_array__"):
            schema_cap, array_cap = data.__arrow_c_array__()
            self._w.write_batch(schema_cap, array_cap)
        else:
            raise TypeError("write_arrow expects Arrow data (pyarrow Table/RecordBatch or an object with "
                            "__arrow_c_stream__ / __arrow_c_array__), not {}".format(type(data).__name__))

    def write_arrow_batch(self, data):
        self.write_arrow(data)

    def with_write_type(self, write_cols):
        """Partial-column writes (data-evolution tables): the files hold only
        these columns; the rows get new row ids and read null elsewhere."""
        from .errors import InvalidArgumentError
        write_cols = list(write_cols)
        for col in write_cols:
            if col not in self.table.field_names:
                raise InvalidArgumentError("Column {} is not in table schema.".format(col))
        self._w.with_write_type(write_cols if write_cols else None)
        self._write_cols = write_cols or None
        return self

    def write_pandas(self, dataframe):
        import pyarrow as pa
        schema = self.table.to_arrow_schema()
        if getattr(self, "_write_cols", None):
            schema = pa.schema([schema.field(c) for c in self._write_cols])
        ts = self.table.table_schema
        blob_cols = [f.name for f, t in zip(ts.fields, ts.field_type_strings())
                     if t.upper().startswith("BLOB") and f.name in dataframe.columns]
        if blob_cols:
            from .blob import _to_blob_cell
            dataframe = dataframe.copy(deep=False)
            for n in blob_cols:
                dataframe[n] = [_to_blob_cell(v) for v in dataframe[n]]
        batch = pa.RecordBatch.from_pandas(dataframe, schema=schema, preserve_index=False)
        self.write_arrow(batch)

    def write_ray(self, dataset, overwrite=False, concurrency=None, ray_remote_args=None,
                  hash_fixed_precluster="auto", static_partition=None):
        """Writes a ray.data.Dataset with Ray tasks and commits once on the
        driver (pypaimon's TableWrite.write_ray; this writer itself stays
        unused). Returns a paimonc.ray.PaimonWriteResult or None."""
        from .ray.datasink import write_ray
        # a writer from an overwrite() builder overwrites, as its commit would
        overwrite = bool(overwrite) or self.static_partition is not None
        return write_ray(self.table, dataset, overwrite=overwrite, concurrency=concurrency,
                         ray_remote_args=ray_remote_args, hash_fixed_precluster=hash_fixed_precluster,
                         static_partition=static_partition if static_partition is not None else self.static_partition)

    @property
    def row_count(self):
        """Rows written so far (paimonc extension)."""
        return self._w.row_count()

    def _prepare(self):
        m = CommitMessage(self._w.prepare_commit())
        return [] if m.is_empty() else [m]

    def close(self):
        """Closes the writer; files not returned by prepare_commit are deleted."""
        self._w.close()

    def abort(self):
        self._w.close()


class BatchTableWrite(TableWrite):
    def __init__(self, table, commit_user, static_partition=None):
        super().__init__(table, commit_user, static_partition)
        self.batch_committed = False

    def prepare_commit(self):
        commit_once(self, "BatchTableWrite")
        return self._prepare()


class StreamTableWrite(TableWrite):
    def prepare_commit(self, commit_identifier):
        return self._prepare()


def _partition_spec(static_partition, default_name="__DEFAULT_PARTITION__"):
    spec = {}
    for k, v in static_partition.items():
        text = literal_text(v, k)
        spec[str(k)] = text.decode("utf-8", "surrogateescape") if text is not None else default_name
    return spec


# Committer options taken from the table's dynamic options (table.copy).
# commit options, and the maintenance options the commit applies after it (expiration)
_COMMIT_OPTION_PREFIXES = ("commit.", "dynamic-partition-overwrite", "snapshot.", "write-only", "consumer.",
                           "changelog.", "partition.expiration-", "partition.timestamp-",
                           "end-input.check-partition-expire")


class TableCommit(Closing):
    def __init__(self, table, commit_user, static_partition=None):
        self.table = table
        self.commit_user = commit_user
        self.overwrite_partition = static_partition
        opts = _options_with_prefix(table, _COMMIT_OPTION_PREFIXES)
        opts["commit.user"] = commit_user
        self._opts = opts
        self._c = _native.table_commit_new(table._t, opts)
        self.last_snapshot_id = None

    def _spec(self, static_partition):
        default = self.table.options.get("partition.default-name", "__DEFAULT_PARTITION__")
        return _partition_spec(static_partition, default) or None

    def _commit(self, commit_messages, commit_identifier):
        natives = _native_messages(commit_messages)
        if self.overwrite_partition is not None:
            self._c.set_overwrite(self._spec(self.overwrite_partition))
        sid = self._c.commit(natives, int(commit_identifier))
        self.last_snapshot_id = sid if sid >= 0 else None
        return self.last_snapshot_id

    def abort(self, commit_messages):
        """Deletes the data files of messages that will not be committed."""
        self._c.abort(_native_messages(commit_messages))

    def close(self):
        self._c.close()


class BatchTableCommit(TableCommit):
    def __init__(self, table, commit_user, static_partition=None):
        super().__init__(table, commit_user, static_partition)
        self.batch_committed = False

    def commit(self, commit_messages, commit_identifier=BATCH_COMMIT_IDENTIFIER):
        """Commits once as one snapshot; returns its id (None if nothing was committed)."""
        self._check_committed()
        return self._commit(commit_messages, commit_identifier)

    def truncate_table(self):
        """Removes every row: an OVERWRITE snapshot deleting all files, whatever
        ``dynamic-partition-overwrite`` says (Java truncateTable; unlike
        pypaimon, an already empty table gets that snapshot too)."""
        self._check_committed()
        if hasattr(self._c, "truncate"):
            sid = self._c.truncate()
        else:
            # a static whole-table overwrite without files is a truncate
            opts = dict(self._opts)
            opts["dynamic-partition-overwrite"] = "false"
            c = _native.table_commit_new(self.table._t, opts)
            try:
                c.set_overwrite(None)
                sid = c.commit([], BATCH_COMMIT_IDENTIFIER)
            finally:
                c.close()
        self.last_snapshot_id = sid if sid >= 0 else None
        return self.last_snapshot_id

    def _check_committed(self):
        commit_once(self, "BatchTableCommit")


class StreamTableCommit(TableCommit):
    def __init__(self, table, commit_user):
        super().__init__(table, commit_user, None)

    def commit(self, commit_messages, commit_identifier):
        return self._commit(commit_messages, commit_identifier)
