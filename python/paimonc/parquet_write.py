"""Writing Parquet files with libpaimonc (imported by paimonc.parquet).

Files are laid out as Java Paimon writes its data files: schema
``paimon_schema`` with field ids, data page v1, dictionary with PLAIN
fallback, ZSTD level 1, page CRCs, statistics, column and offset indexes.
"""
import os

from . import _native

__all__ = ["write_table"]

# Python keyword -> writer option key
_OPTION_KEYS = {
    "compression_level": "compression.level",
    "page_size": "page.size",
    "data_page_size": "page.size",
    "page_row_limit": "page.row-limit",
    "row_group_size": "row-group.size",
    "dictionary": "dictionary",
    "use_dictionary": "dictionary",
    "dictionary_page_size": "dictionary.page.size",
    "statistics": "statistics",
    "write_statistics": "statistics",
    "page_index": "page-index",
    "write_page_index": "page-index",
    "page_crc": "page.crc",
}


def _opt_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def write_table(data, path, compression="zstd", **options):
    """Writes ``data`` to a Parquet file at ``path``.

    ``data`` is any object with the Arrow PyCapsule interface
    (``__arrow_c_stream__`` or ``__arrow_c_array__`` of a struct array),
    e.g. a pyarrow Table, RecordBatch or RecordBatchReader.

    Options: compression ('zstd', 'snappy', 'gzip', 'lz4', 'lz4_raw', 'none'
    or None), compression_level, page_size (bytes), page_row_limit,
    row_group_size (bytes), dictionary (bool), dictionary_page_size,
    statistics (bool), page_index (bool), page_crc (bool). Option keys of
    the C API ("page.size", ...) are accepted too. The GIL is released
    while writing.
    """
    keys, values = ["compression"], ["none" if compression is None else str(compression)]
    for k, v in options.items():
        if v is None:
            continue
        keys.append(_OPTION_KEYS.get(k, k))
        values.append(_opt_value(v))
    path = os.fspath(path)
    if hasattr(data, "__arrow_c_stream__"):
        _native._parquet_write_stream(data.__arrow_c_stream__(), path, keys, values)
    elif hasattr(data, "__arrow_c_array__"):
        schema_cap, array_cap = data.__arrow_c_array__()
        _native._parquet_write_array(schema_cap, array_cap, path, keys, values)
    else:
        raise TypeError("write_table needs an Arrow PyCapsule source (__arrow_c_stream__ or "
                        "__arrow_c_array__), got %s" % type(data).__name__)
