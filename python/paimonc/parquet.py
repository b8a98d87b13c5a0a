"""Parquet files through libpaimonc's own reader (and writer, when present).

    import pyarrow as pa
    import paimonc.parquet as pq

    t = pa.table(pq.read_table("data.parquet", columns=["id", "name"]))

``read_table`` returns a :class:`ParquetReader`: an object implementing the
Arrow PyCapsule stream interface (``__arrow_c_stream__``), so ``pa.table``,
``pa.RecordBatchReader.from_stream``, polars, DuckDB... take its batches
without a copy. Decoding runs without the GIL while the consumer pulls
batches. Types follow pyarrow's mapping of Parquet types; a file's
``ARROW:schema`` metadata is not applied.

``read_table(path, filters=...)`` takes pyarrow's DNF filters
(``[("a", ">", 5), ("b", "in", [1, 2])]`` or a list of such lists, OR-ed)
and returns a ``pyarrow.Table`` of exactly the matching rows: the native
reader skips row groups (chunk statistics) and pages (ColumnIndex) that
cannot match, then the surviving rows are filtered with pyarrow.compute.
Exact row filtering inside the native reader is a later step.
"""

import json
import os

from . import _native

__all__ = ["read_table", "read_metadata", "ParquetReader"]


class ParquetReader:
    """One pass over a Parquet file's rows, as an Arrow C stream."""

    def __init__(self, path, columns=None, batch_rows=0, threads=1):
        self.path = str(path)
        self.columns = None if columns is None else [str(c) for c in columns]
        self.batch_rows = int(batch_rows)
        self.threads = _threads(threads)
        # Open eagerly so a missing or corrupt footer fails here.
        self._capsule = _native.parquet_open_stream(self.path, self.columns, self.batch_rows,
                                                    threads=self.threads)

    def __arrow_c_stream__(self, requested_schema=None):
        cap = self._capsule
        if cap is None:
            cap = _native.parquet_open_stream(self.path, self.columns, self.batch_rows, threads=self.threads)
        self._capsule = None
        return cap

    def read_all(self):
        """The whole selection as a pyarrow.Table (needs pyarrow)."""
        import pyarrow as pa
        return pa.table(self)

    def __repr__(self):
        return "ParquetReader(%r, columns=%r)" % (self.path, self.columns)


def _threads(threads):
    if threads is True:
        return max(1, min(1024, os.cpu_count() or 1))
    if threads is False or threads is None:
        return 1
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= 1024:
        raise ValueError("use_threads must be a bool or a thread count in 1..1024, not %r" % (threads,))
    return threads


def read_table(path, columns=None, batch_rows=0, filters=None, metrics=None, use_threads=False):
    """Opens ``path`` for reading ``columns`` (names or dotted paths; None =
    all). Returns a :class:`ParquetReader` (``pyarrow.table(result)`` gives a
    Table). Raises a :class:`paimonc.PaimonError` subclass on failure.

    ``use_threads``: False (the default) decodes on the calling thread; True
    shares the columns of each row group out among one thread per CPU; an
    int sets the thread count. The GIL is released while decoding.

    With ``filters`` (pyarrow DNF form, see the module doc) it returns a
    ``pyarrow.Table`` of the matching rows; ``metrics``, when a dict, receives
    the reader's pruning counters (row_groups_total, row_groups_pruned,
    row_groups_pruned_pages, row_groups_read, rows_pruned_pages)."""
    if filters is None:
        return ParquetReader(path, columns, batch_rows, _threads(use_threads))
    return _read_filtered(str(path), columns, int(batch_rows), filters, metrics, _threads(use_threads))


# paimon_predicate_op (include/paimonc/predicate.h)
_OPS = {"=": 0, "==": 0, "!=": 1, "<": 2, "<=": 3, ">": 4, ">=": 5, "in": 6, "not in": 7,
        "is null": 8, "is not null": 9, "starts with": 10}


def _normalize_dnf(filters):
    filters = list(filters)
    if not filters:
        return []
    if isinstance(filters[0], tuple):
        return [filters]
    return [list(c) for c in filters]


def _field_type(schema, name):
    import pyarrow as pa
    parts = name.split(".")
    if parts[0] not in schema.names:
        return None
    t = schema.field(parts[0]).type
    for p in parts[1:]:
        if not pa.types.is_struct(t) or t.get_field_index(p) < 0:
            return None
        t = t.field(p).type
    return t


def _literal(t, v):
    """The literal as the bytes paimon_parquet_filter parses for type t; None
    when it cannot be expressed exactly (the leaf is then not used)."""
    import decimal
    import pyarrow as pa
    if v is None:
        return None
    try:
        if pa.types.is_boolean(t):
            return b"true" if v is True else b"false" if v is False else None
        if pa.types.is_integer(t):
            if isinstance(v, bool) or not isinstance(v, (int, float, decimal.Decimal)) or v != int(v):
                return None
            return str(int(v)).encode()
        if pa.types.is_floating(t) and not pa.types.is_float16(t):
            if isinstance(v, bool) or not isinstance(v, (int, float, decimal.Decimal)):
                return None
            return repr(float(v)).encode()
        if pa.types.is_decimal(t):
            if isinstance(v, float):
                return None
            return format(decimal.Decimal(v), "f").encode()
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            return v.encode() if isinstance(v, str) else None
        if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
            return bytes(v) if isinstance(v, (bytes, bytearray)) else None
        if pa.types.is_date32(t) or pa.types.is_time32(t):
            return str(pa.scalar(v, type=t).cast(pa.int32()).as_py()).encode()
        if pa.types.is_date64(t) or pa.types.is_time64(t) or pa.types.is_timestamp(t):
            return str(pa.scalar(v, type=t).cast(pa.int64()).as_py()).encode()
    except (TypeError, ValueError, OverflowError, decimal.InvalidOperation, pa.ArrowException):
        return None
    return None


def _native_filter(schema, dnf):
    """pyarrow DNF -> the native tuple tree, or None (no pruning). Leaves that
    cannot be expressed are left out of their conjunction (a weaker, still
    conservative predicate)."""
    disj = []
    for conj in dnf:
        leaves = []
        for col, op, val in conj:
            op = op.lower() if isinstance(op, str) else op
            t = _field_type(schema, col)
            if op not in _OPS or t is None:
                continue
            code = _OPS[op]
            if code in (8, 9):
                vals = []
            elif code in (6, 7):
                vals = [_literal(t, x) for x in val]
                if any(x is None for x in vals):
                    continue
            else:
                lit = _literal(t, val)
                if lit is None:
                    continue
                vals = [lit]
            leaf = ("leaf", col, code, vals)
            if code == 7:
                # pyarrow's "not in" is ~is_in(): true for nulls
                leaf = ("or", [leaf, ("leaf", col, 8, [])])
            leaves.append(leaf)
        if not leaves:
            return None  # this disjunct may be true anywhere
        disj.append(("and", leaves))
    return ("or", disj) if disj else None


def _expression(dnf):
    """pyarrow.parquet.filters_to_expression's semantics, with dotted names
    for nested struct fields."""
    import pyarrow.compute as pc
    ors = None
    for conj in dnf:
        ands = None
        for col, op, val in conj:
            f = pc.field(*col.split("."))
            op = op.lower()
            if op in ("=", "=="):
                e = f == val
            elif op == "!=":
                e = f != val
            elif op == "<":
                e = f < val
            elif op == "<=":
                e = f <= val
            elif op == ">":
                e = f > val
            elif op == ">=":
                e = f >= val
            elif op == "in":
                e = f.isin(val)
            elif op == "not in":
                e = ~f.isin(val)
            elif op == "is null":
                e = f.is_null()
            elif op == "is not null":
                e = f.is_valid()
            elif op == "starts with":
                e = pc.starts_with(f, pattern=val)
            else:
                raise ValueError("unsupported filter operator %r" % (op,))
            ands = e if ands is None else ands & e
        ors = ands if ors is None else ors | ands
    return ors


def _read_filtered(path, columns, batch_rows, filters, metrics, threads=1):
    import pyarrow as pa
    dnf = _normalize_dnf(filters)
    cols = None
    if columns is not None:
        cols = [str(c) for c in columns]
        for conj in dnf:
            for col, _, _ in conj:
                top = col.split(".")[0]
                if top not in cols:
                    cols.append(top)
    schema = pa.RecordBatchReader.from_stream(ParquetReader(path, cols, batch_rows)).schema
    tree = _native_filter(schema, dnf)
    cap, m = _native.parquet_open_stream(path, cols, batch_rows, filter=tree, metrics=True, threads=threads)

    class _Cap:
        def __arrow_c_stream__(self, requested_schema=None):
            return cap

    t = pa.table(_Cap())
    if isinstance(metrics, dict):
        metrics.update(m)
    if dnf:
        t = t.filter(_expression(dnf))
    if columns is not None:
        t = t.select([str(c) for c in columns])
    return t


def read_metadata(path, pages=False):
    """The file's footer as a dict (schema, row groups, column chunks, and
    page headers when ``pages``)."""
    return json.loads(_native.parquet_meta_json(str(path), pages=bool(pages)))


try:
    from .parquet_write import write_table  # noqa
    __all__.append("write_table")
except ImportError:
    pass
