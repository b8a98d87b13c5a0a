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
"""

import json

from . import _native

__all__ = ["read_table", "read_metadata", "ParquetReader"]


class ParquetReader:
    """One pass over a Parquet file's rows, as an Arrow C stream."""

    def __init__(self, path, columns=None, batch_rows=0):
        self.path = str(path)
        self.columns = None if columns is None else [str(c) for c in columns]
        self.batch_rows = int(batch_rows)
        # Open eagerly so a missing or corrupt footer fails here.
        self._capsule = _native.parquet_open_stream(self.path, self.columns, self.batch_rows)

    def __arrow_c_stream__(self, requested_schema=None):
        cap = self._capsule
        if cap is None:
            cap = _native.parquet_open_stream(self.path, self.columns, self.batch_rows)
        self._capsule = None
        return cap

    def read_all(self):
        """The whole selection as a pyarrow.Table (needs pyarrow)."""
        import pyarrow as pa
        return pa.table(self)

    def __repr__(self):
        return "ParquetReader(%r, columns=%r)" % (self.path, self.columns)


def read_table(path, columns=None, batch_rows=0):
    """Opens ``path`` for reading ``columns`` (names or dotted paths; None =
    all). Returns a :class:`ParquetReader` (``pyarrow.table(result)`` gives a
    Table). Raises a :class:`paimonc.PaimonError` subclass on failure."""
    return ParquetReader(path, columns, batch_rows)


def read_metadata(path, pages=False):
    """The file's footer as a dict (schema, row groups, column chunks, and
    page headers when ``pages``)."""
    return json.loads(_native.parquet_meta_json(str(path), pages=bool(pages)))


try:
    from .parquet_write import write_table  # noqa
    __all__.append("write_table")
except ImportError:
    pass
