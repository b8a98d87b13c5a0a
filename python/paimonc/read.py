"""Batch read with pypaimon's names.

::

    rb = table.new_read_builder()
    pb = rb.new_predicate_builder()
    rb = rb.with_filter(pb.greater_than("id", 10)).with_projection(["id", "name"]).with_limit(100)
    splits = rb.new_scan().plan().splits()
    arrow_table = rb.new_read().to_arrow(splits)

Planning and reading run in libpaimonc with the GIL released; batches reach
pyarrow through the Arrow C stream interface (zero copy). Splits pickle
(libpaimonc's versioned bytes) and can be read in another process.
Time travel: ``table.copy({"scan.snapshot-id": "3"})`` (or ``scan.tag-name``,
``scan.timestamp-millis``, ``scan.timestamp``) before ``new_read_builder()``;
the copy has the schema of that snapshot (old column names, later columns
absent), as in pypaimon and Java.
"""

import datetime as _dt
import decimal

from . import _native
from .errors import InvalidArgumentError
from .predicate import Predicate, PredicateBuilder

__all__ = ["ReadBuilder", "TableScan", "Plan", "Split", "DataFile", "TableRead", "Range"]

# Row-tracking system columns (pypaimon SpecialFields): BIGINT NOT NULL.
_ROW_ID_ID, _SEQ_ID = 2147483642, 2147483646


class Range:
    """An inclusive range of row ids ``[from_, to]`` (pypaimon's
    ``pypaimon.utils.range.Range``; any object with ``from_``/``to`` works
    where a Range is expected)."""

    __slots__ = ("from_", "to")

    def __init__(self, from_, to):
        from_, to = int(from_), int(to)
        if from_ > to:
            raise ValueError("Invalid range: from ({}) > to ({})".format(from_, to))
        self.from_ = from_
        self.to = to

    def contains(self, value):
        return self.from_ <= value <= self.to

    def overlaps(self, other):
        return self.from_ <= other.to and other.from_ <= self.to

    def count(self):
        return self.to - self.from_ + 1

    def __eq__(self, other):
        return (isinstance(other, Range) and self.from_ == other.from_ and self.to == other.to)

    def __hash__(self):
        return hash((self.from_, self.to))

    def __repr__(self):
        return "Range({}, {})".format(self.from_, self.to)

    @staticmethod
    def to_ranges(values):
        """Sorted, merged ranges covering the given row ids."""
        out = []
        for v in sorted(set(int(x) for x in values)):
            if out and out[-1][1] + 1 == v:
                out[-1][1] = v
            else:
                out.append([v, v])
        return [Range(a, b) for a, b in out]


def _row_tracking(table):
    v = table.table_schema.options.get("row-tracking.enabled", "false")
    return str(v).lower() == "true"


def _system_fields(table):
    """_ROW_ID and _SEQUENCE_NUMBER as DataFields when the table tracks rows."""
    if not _row_tracking(table):
        return []
    from .types import AtomicType, DataField
    return [DataField(_ROW_ID_ID, "_ROW_ID", AtomicType("BIGINT", nullable=False)),
            DataField(_SEQ_ID, "_SEQUENCE_NUMBER", AtomicType("BIGINT", nullable=False))]


def _range_pairs(ranges):
    pairs = []
    for r in ranges:
        try:
            a, b = int(r.from_), int(r.to)
        except AttributeError:
            raise TypeError("row ranges must be Range objects (with from_ and to), not {!r}".format(
                type(r))) from None
        pairs.append((a, b))
    return pairs

# Dynamic options the C read builder understands (paimon_read_builder_with_option).
_READ_OPTION_KEYS = ("scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis", "scan.timestamp",
                     "source.split.target-size", "source.split.open-file-cost", "read.batch-size",
                     "read.threads", "blob-as-descriptor", "blob-descriptor.allowed-prefixes",
                     "global-index.enabled", "scalar-index.search-mode", "global-index.search-mode")


_TIME_TRAVEL_KEYS = ("scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis", "scan.timestamp")


def _apply_time_travel(table):
    """Gives a copied table the schema its time-travel options select.

    As pypaimon's ``table.copy`` (and Java's ``FileStoreTable.copy``): with
    ``scan.snapshot-id`` / ``scan.tag-name`` / ``scan.timestamp-millis`` /
    ``scan.timestamp`` the table's fields become those of the snapshot's
    schema (columns added later absent, renamed columns under their old
    names); ``table.options`` keep the current options plus the dynamic
    ones. A snapshot that cannot be resolved keeps the current schema (the
    scan then reports the error), as pypaimon does.
    """
    from .schema import TableSchema
    dyn = getattr(table, "_dynamic_options", None) or {}
    opts = {k: str(v) for k, v in dyn.items() if k in _READ_OPTION_KEYS and v is not None}
    if (not any(k in opts or k in table.table_schema.options for k in _TIME_TRAVEL_KEYS)
            and getattr(table.table_schema, "id", None) == table._t.schema().id()):
        return table  # no time travel, already the table's own schema
    try:
        sid = _native.read_builder_new(table._t, None, None, None, opts or None).schema_id()
        base = table._t.schema()
        if sid == base.id():
            ts = TableSchema(base)
        else:
            ts = TableSchema(table._t.load_schema(sid))
    except Exception:  # noqa: BLE001 - pypaimon keeps the current schema too
        return table
    table.table_schema = ts
    table.fields = ts.fields
    table.field_names = [f.name for f in ts.fields]
    table.field_dict = {f.name: f for f in ts.fields}
    table.partition_keys = list(ts.partition_keys)
    table.partition_keys_fields = [table.field_dict[n] for n in table.partition_keys if n in table.field_dict]
    table.primary_keys_fields = [table.field_dict[n] for n in table.primary_keys if n in table.field_dict]
    return table


def _type_root(dtype):
    t = getattr(dtype, "type", None)
    if not isinstance(t, str):
        return None, ""
    t = t.upper().replace(" NOT NULL", "")
    return t.split("(")[0].strip(), t


def _parse_time(text):
    hms, _, frac = text.partition(".")
    h, m, sec = (int(x) for x in hms.split(":"))
    micro = int((frac + "000000")[:6]) if frac else 0
    return _dt.time(h, m, sec, micro)


def _from_canonical(raw, dtype):
    """A partition value in libpaimonc's canonical text -> a Python value."""
    if raw is None:
        return None
    root, full = _type_root(dtype)
    if root in ("BINARY", "VARBINARY", "BYTES"):
        return bytes(raw)
    text = raw.decode("utf-8")
    if root in ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT"):
        return int(text)
    if root in ("FLOAT", "DOUBLE"):
        return float(text)
    if root == "BOOLEAN":
        return text.lower() in ("true", "1")
    if root == "DECIMAL":
        return decimal.Decimal(text)
    if root == "DATE":
        return _dt.date.fromisoformat(text)
    if root == "TIME":
        return _parse_time(text)
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        day, _, tod = text.replace("T", " ").partition(" ")
        t = _parse_time(tod) if tod else _dt.time()
        v = _dt.datetime.combine(_dt.date.fromisoformat(day), t)
        if root == "TIMESTAMP_LTZ" or "LOCAL TIME ZONE" in full:
            v = v.replace(tzinfo=_dt.timezone.utc)
        return v
    return text


class DataFile:
    """One data file of a split (the fields of pypaimon's DataFileMeta that
    a reader needs). ``file_path`` is None for a split without its table."""

    __slots__ = ("file_name", "file_size", "row_count", "schema_id", "file_path")

    def __init__(self, file_name, file_size, row_count, schema_id, file_path=None):
        self.file_name = file_name
        self.file_size = file_size
        self.row_count = row_count
        self.schema_id = schema_id
        self.file_path = file_path

    def __eq__(self, other):
        return isinstance(other, DataFile) and all(
            getattr(self, a) == getattr(other, a) for a in self.__slots__)

    def __repr__(self):
        return "DataFile({!r}, size={}, rows={})".format(self.file_name, self.file_size, self.row_count)


class Split:
    """A unit of reading: some data files of one partition and bucket (pickles).

    As pypaimon's DataSplit: ``bucket``, ``partition``, ``files``,
    ``file_paths``, ``file_size`` and ``row_count``. ``partition`` is a dict
    of partition key -> Python value (pypaimon returns a GenericRow) and
    ``files`` holds :class:`DataFile` objects. Partition and paths need the
    table: splits of a plan have it; a split from ``Split.deserialize(data)``
    needs ``Split.deserialize(data, table)`` unless it was pickled from a
    split that had it (pickles carry the partition and the paths).
    """

    __slots__ = ("_s", "_table", "_partition", "_paths")

    def __init__(self, native, table=None, partition=None, paths=None):
        self._s = native
        self._table = table
        self._partition = partition
        self._paths = paths

    def _need_table(self, what):
        if self._table is None:
            raise InvalidArgumentError(
                "Split.{} needs the split's table: use Split.deserialize(data, table)".format(what))
        return self._table

    @property
    def row_count(self):
        return self._s.row_count()

    @property
    def file_count(self):
        return self._s.file_count()

    @property
    def bucket(self):
        return self._s.bucket()

    @property
    def snapshot_id(self):
        """Snapshot the split was planned from (paimonc extension)."""
        return self._s.snapshot_id()

    @property
    def file_size(self):
        """Bytes in the split's data files."""
        return sum(f[1] for f in self._s.files())

    @property
    def file_paths(self):
        """Absolute paths of the data files (the ones a read opens)."""
        if self._paths is None:
            self._paths = list(self._s.file_paths(self._need_table("file_paths")._t))
        return list(self._paths)

    @property
    def files(self):
        paths = self._paths
        if paths is None and self._table is not None:
            paths = self.file_paths
        return [DataFile(name, size, rows, sid, paths[i] if paths is not None else None)
                for i, (name, size, rows, sid) in enumerate(self._s.files())]

    @property
    def partition(self):
        """dict partition key -> value ({} for an unpartitioned table)."""
        if self._partition is None:
            table = self._need_table("partition")
            fields = {f.name: f for f in table.table_schema.fields}
            self._partition = {k: _from_canonical(v, fields[k].type if k in fields else None)
                               for k, v in self._s.partition(table._t)}
        return dict(self._partition)

    def merged_row_count(self):
        return self._s.row_count()

    def serialize(self):
        return self._s.serialize()

    @staticmethod
    def deserialize(data, table=None):
        return Split(_native.split_deserialize(bytes(data)), table)

    def __reduce__(self):
        part = paths = None
        if self._table is not None or self._partition is not None:
            part = self.partition
            paths = self.file_paths if (self._table is not None or self._paths is not None) else None
        return (_restore_split, (self._s.serialize(), part, paths))

    def __repr__(self):
        return "Split(bucket={}, files={}, rows={})".format(self.bucket, self.file_count, self.row_count)


def _restore_split(data, partition, paths):
    return Split(_native.split_deserialize(bytes(data)), None, partition, paths)


class Plan:
    def __init__(self, native, table=None):
        self._p = native
        self._splits = [Split(s, table) for s in native.splits()]
        sid = native.snapshot_id()
        self.snapshot_id = sid if sid >= 0 else None

    def splits(self):
        return list(self._splits)

    @property
    def files_total(self):
        """Files in the snapshot before pruning (paimonc extension)."""
        return self._p.files_total()

    @property
    def files_selected(self):
        """Files left after partition and statistics pruning (paimonc extension)."""
        return self._p.files_selected()


class TableScan:
    def __init__(self, native_rb, table=None):
        self._rb = native_rb
        self._table = table

    def with_row_ranges(self, ranges):
        """Only rows whose _ROW_ID lies in one of the inclusive ranges
        (:class:`Range` or any object with ``from_``/``to``); None removes
        them. Files and pages outside them are never read; the ranges
        travel in the splits."""
        self._rb.with_row_ranges(None if ranges is None else _range_pairs(ranges))
        return self

    def with_global_index_result(self, result):
        """Only the rows of a search or index-filter result
        (paimonc.index.GlobalIndexResult; Java withGlobalIndexResult): its
        row ids become the scan's row ranges. None removes them."""
        if result is None:
            return self.with_row_ranges(None)
        ids = sorted(set(int(i) for i in result.row_ids()))
        pairs = []
        for i in ids:
            if pairs and pairs[-1][1] + 1 == i:
                pairs[-1][1] = i
            else:
                pairs.append([i, i])
        self._rb.with_row_ranges([(a, b) for a, b in pairs])
        return self

    def plan(self):
        return Plan(self._rb.plan(), self._table)


class _StreamHolder:
    def __init__(self, capsule):
        self._capsule = capsule

    def __arrow_c_stream__(self, requested_schema=None):
        cap, self._capsule = self._capsule, None
        if cap is None:
            raise RuntimeError("the stream was already consumed")
        return cap


def _reader_from_capsule(capsule):
    import pyarrow as pa
    imp = getattr(pa.RecordBatchReader, "_import_from_c_capsule", None)
    if imp is not None:
        return imp(capsule)
    return pa.RecordBatchReader.from_stream(_StreamHolder(capsule))


def _splits_native(splits):
    out = []
    for s in splits:
        if not isinstance(s, Split):
            raise TypeError("splits must be paimonc Split objects, not {!r}".format(type(s)))
        out.append(s._s)
    return out


class TableRead:
    def __init__(self, native_rb, schema, builder=None):
        self._rb = native_rb
        self._schema = schema
        self._builder = builder  # (table, projection, predicate, limit): pickling and to_torch

    @property
    def limit(self):
        return self._builder[3] if self._builder is not None else None

    def __reduce__(self):
        if self._builder is None:
            raise TypeError("this TableRead cannot be pickled (not made by ReadBuilder.new_read)")
        return (_restore_read, self._builder)

    def to_torch(self, splits, streaming=False, prefetch_concurrency=1, *, batch_format="row",
                 batch_size=None, to_tensor_fn=None, shuffle=False, seed=0, buffer_size=1000,
                 max_buffer_input_splits=10, auto_detect_rank=False, sharding_rank=None,
                 sharding_world_size=None):
        """The splits as a PyTorch Dataset, with pypaimon's parameters (see
        paimonc.torch_dataset). ``streaming=False``: a map-style dataset
        (rows as dicts, read once per process); ``streaming=True``: an
        IterableDataset whose DataLoader workers (and DDP ranks, with
        ``sharding_rank``/``sharding_world_size`` or ``auto_detect_rank``)
        each read their own splits; ``batch_format='pyarrow'|'torch'``
        yields RecordBatches or dicts of tensors (zero copy for numeric and
        VECTOR columns without nulls) of ``batch_size`` rows; ``shuffle``
        is a seeded buffer shuffle, reproducible per (seed, epoch, worker,
        rank); ``set_epoch`` reshuffles."""
        from .torch_dataset import make_torch_dataset
        return make_torch_dataset(self, list(splits), streaming, prefetch_concurrency, batch_format, batch_size,
                                  to_tensor_fn, shuffle, seed, buffer_size, max_buffer_input_splits,
                                  auto_detect_rank, sharding_rank, sharding_world_size)

    def to_ray(self, splits, *, ray_remote_args=None, concurrency=None, override_num_blocks=None, **read_args):
        """The splits' rows as a ray.data.Dataset: Ray tasks read groups of
        splits natively (paimonc.ray; needs ``ray[data]``)."""
        from .ray.datasource import to_ray
        return to_ray(self, splits, ray_remote_args=ray_remote_args, concurrency=concurrency,
                      override_num_blocks=override_num_blocks, **read_args)

    def to_arrow_batch_reader(self, splits):
        """A pyarrow.RecordBatchReader streaming the splits' rows."""
        return _reader_from_capsule(self._rb.read(_splits_native(splits)))

    def to_arrow(self, splits, parallelism=None, *, progress=None):
        """All rows of the splits as one pyarrow.Table (in split order).
        ``progress``: True for a progress bar, a callable (rows, total), or
        None (see paimonc.progress)."""
        from .progress import _Null, make_progress
        splits = list(splits)
        reader = self.to_arrow_batch_reader(splits)
        bar = make_progress(progress, "reading", sum(s.row_count for s in splits))
        if isinstance(bar, _Null):
            return reader.read_all()
        import pyarrow as pa
        batches, n = [], 0
        try:
            for b in reader:
                batches.append(b)
                n += b.num_rows
                bar.update(n)
            bar.update(n, n)
        finally:
            bar.close()
        return pa.Table.from_batches(batches, schema=reader.schema)

    def to_pandas(self, splits, parallelism=None, *, progress=None):
        return self.to_arrow(splits, progress=progress).to_pandas()

    def to_iterator(self, splits):
        """Rows as dicts (column name -> Python value)."""
        for batch in self.to_arrow_batch_reader(splits):
            yield from batch.to_pylist()

    def to_duckdb(self, splits, table_name, connection=None, parallelism=None):
        """The rows registered with DuckDB as ``table_name`` (an in-memory
        connection unless one is given); returns the connection."""
        import duckdb
        con = connection or duckdb.connect(database=":memory:")
        con.register(table_name, self.to_arrow(splits))
        return con


def _restore_read(table, projection, predicate, limit):
    rb = ReadBuilder(table)
    rb._projection, rb._predicate, rb._limit = projection, predicate, limit
    return rb.new_read()


class ReadBuilder:
    def __init__(self, table):
        self.table = table
        self._predicate = None
        self._projection = None
        self._limit = None

    def with_filter(self, predicate):
        if predicate is not None and not isinstance(predicate, Predicate):
            raise TypeError("with_filter expects a paimonc Predicate, not {!r}".format(type(predicate)))
        self._predicate = predicate
        return self

    def with_projection(self, projection):
        """Columns to read, in this order. On row-tracking tables also
        ``_ROW_ID`` and ``_SEQUENCE_NUMBER``. A name the table lacks is an
        error (pypaimon silently drops it)."""
        if projection is None:
            self._projection = None
            return self
        projection = list(projection)
        names = set(self.table.field_names) | {f.name for f in _system_fields(self.table)}
        for c in projection:
            if c not in names:
                if c in ("_ROW_ID", "_SEQUENCE_NUMBER"):
                    raise InvalidArgumentError(
                        "projection: column '{}' exists only in tables with "
                        "'row-tracking.enabled' = 'true'".format(c))
                raise InvalidArgumentError("projection: column '{}' does not exist in the table (columns: {})"
                                           .format(c, ", ".join(self.table.field_names)))
        self._projection = projection
        return self

    def with_limit(self, limit):
        self._limit = None if limit is None else int(limit)
        return self

    def new_predicate_builder(self):
        fields = self.read_type()
        have = {f.name for f in fields}
        return PredicateBuilder(fields + [f for f in _system_fields(self.table) if f.name not in have])

    def read_type(self):
        """The DataFields the read produces."""
        if self._projection is None:
            return list(self.table.fields)
        sysf = {f.name: f for f in _system_fields(self.table)}
        return [self.table.field_dict[n] if n in self.table.field_dict else sysf[n] for n in self._projection]

    def _native(self):
        dyn = getattr(self.table, "_dynamic_options", None) or {}
        opts = {k: str(v) for k, v in dyn.items() if k in _READ_OPTION_KEYS and v is not None}
        pred = self._predicate._native() if self._predicate is not None else None
        proj = self._projection if self._projection else None
        return _native.read_builder_new(self.table._t, proj, pred, self._limit, opts or None)

    def new_scan(self):
        return TableScan(self._native(), self.table)

    def new_read(self):
        return TableRead(self._native(), None, (self.table, self._projection, self._predicate, self._limit))

    def read_arrow_schema(self):
        """pyarrow.Schema of what the read produces (paimonc extension)."""
        import pyarrow as pa
        from .schema import _CapsuleHolder
        return pa.schema(_CapsuleHolder(self._native().read_schema()))
