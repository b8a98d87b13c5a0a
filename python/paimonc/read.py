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
``scan.timestamp-millis``, ``scan.timestamp``) before ``new_read_builder()``.
"""

from . import _native
from .predicate import Predicate, PredicateBuilder

__all__ = ["ReadBuilder", "TableScan", "Plan", "Split", "TableRead"]

# Dynamic options the C read builder understands (paimon_read_builder_with_option).
_READ_OPTION_KEYS = ("scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis", "scan.timestamp",
                     "source.split.target-size", "source.split.open-file-cost", "read.batch-size")


class Split:
    """A unit of reading: some data files of one partition and bucket (pickles)."""

    __slots__ = ("_s",)

    def __init__(self, native):
        self._s = native

    @property
    def row_count(self):
        return self._s.row_count()

    @property
    def file_count(self):
        return self._s.file_count()

    def merged_row_count(self):
        return self._s.row_count()

    def serialize(self):
        return self._s.serialize()

    @staticmethod
    def deserialize(data):
        return Split(_native.split_deserialize(bytes(data)))

    def __reduce__(self):
        return (Split.deserialize, (self._s.serialize(),))

    def __repr__(self):
        return "Split(files={}, rows={})".format(self.file_count, self.row_count)


class Plan:
    def __init__(self, native):
        self._p = native
        self._splits = [Split(s) for s in native.splits()]
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
    def __init__(self, native_rb):
        self._rb = native_rb

    def plan(self):
        return Plan(self._rb.plan())


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
    def __init__(self, native_rb, schema):
        self._rb = native_rb
        self._schema = schema

    def to_arrow_batch_reader(self, splits):
        """A pyarrow.RecordBatchReader streaming the splits' rows."""
        return _reader_from_capsule(self._rb.read(_splits_native(splits)))

    def to_arrow(self, splits, parallelism=None):
        """All rows of the splits as one pyarrow.Table (in split order)."""
        return self.to_arrow_batch_reader(splits).read_all()

    def to_pandas(self, splits, parallelism=None):
        return self.to_arrow(splits).to_pandas()

    def to_iterator(self, splits):
        """Rows as dicts (column name -> Python value)."""
        for batch in self.to_arrow_batch_reader(splits):
            yield from batch.to_pylist()

    def to_duckdb(self, splits, table_name, connection=None):
        import duckdb
        con = connection or duckdb.connect(database=":memory:")
        con.register(table_name, self.to_arrow(splits))
        return con


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
        """Columns to read, in this order; names not in the table are ignored (as pypaimon)."""
        if projection is None:
            self._projection = None
            return self
        names = set(self.table.field_names)
        self._projection = [c for c in projection if c in names]
        return self

    def with_limit(self, limit):
        self._limit = None if limit is None else int(limit)
        return self

    def new_predicate_builder(self):
        return PredicateBuilder(self.read_type())

    def read_type(self):
        """The DataFields the read produces."""
        if self._projection is None:
            return list(self.table.fields)
        return [self.table.field_dict[n] for n in self._projection]

    def _native(self):
        dyn = getattr(self.table, "_dynamic_options", None) or {}
        opts = {k: str(v) for k, v in dyn.items() if k in _READ_OPTION_KEYS and v is not None}
        pred = self._predicate._native() if self._predicate is not None else None
        proj = self._projection if self._projection else None
        return _native.read_builder_new(self.table._t, proj, pred, self._limit, opts or None)

    def new_scan(self):
        return TableScan(self._native())

    def new_read(self):
        return TableRead(self._native(), None)

    def read_arrow_schema(self):
        """pyarrow.Schema of what the read produces (paimonc extension)."""
        import pyarrow as pa
        from .schema import _CapsuleHolder
        return pa.schema(_CapsuleHolder(self._native().read_schema()))
