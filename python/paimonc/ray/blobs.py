"""map_with_blobs: BLOB payloads fetched inside Ray batches."""

from concurrent.futures import ThreadPoolExecutor

__all__ = ["map_with_blobs"]


def _payload(v):
    from ..blob import BlobDescriptor, BlobRef
    if v is None:
        return None
    v = bytes(v)
    if BlobDescriptor.is_blob_descriptor(v):
        return BlobRef(BlobDescriptor.deserialize(v)).to_data()
    return v


def _cell(v):
    if isinstance(v, list):
        return [_cell(x) for x in v]
    if isinstance(v, tuple):
        return (v[0], _cell(v[1]))
    if isinstance(v, dict):
        return {k: _cell(x) for k, x in v.items()}
    return _payload(v)


def _apply(batch, blob_cols, fn, parallelism, fn_kwargs):
    import pyarrow as pa
    if isinstance(batch, dict):
        batch = pa.table(batch)
    scalar = batch.drop_columns([c for c in blob_cols if c in batch.column_names])
    blobs = {}
    with ThreadPoolExecutor(max_workers=max(1, min(parallelism, batch.num_rows or 1))) as pool:
        for c in blob_cols:
            if c not in batch.column_names:
                raise ValueError("map_with_blobs: the dataset has no column {!r} (it has {})".format(
                    c, batch.column_names))
            blobs[c] = list(pool.map(_cell, batch.column(c).to_pylist()))
    out = fn(scalar, blobs, **(fn_kwargs or {}))
    if out is None:
        raise ValueError("map_with_blobs: fn returned None; return a (possibly empty) pyarrow.Table")
    return out


def map_with_blobs(dataset, columns, fn, *, file_io=None, all_blob_columns=None, map_blob_columns=None,
                   array_blob_columns=None, parallelism=64, batch_size=1024, blob_uri_affinity=False,
                   prefetch_bytes=64 * 1024 * 1024, fn_kwargs=None, ray_remote_args=None, **map_args):
    """Calls ``fn(scalar_batch, {col: [bytes]}, **fn_kwargs)`` per Ray batch
    of ``dataset``, with the BLOB columns ``columns`` given as payloads:
    descriptor cells (a read with ``blob-as-descriptor=true``) are fetched
    with up to ``parallelism`` threads per batch, other cells are already
    payloads; nulls stay None, ARRAY / MAP cells become lists. The other
    BLOB columns of ``all_blob_columns`` are dropped from the scalar batch.
    ``fn`` returns a small batch (pyarrow Table or dict of columns)."""
    from . import _common as C
    C.require_ray()
    if not callable(fn):
        raise ValueError("fn must be callable")
    blob_cols = [columns] if isinstance(columns, str) else list(dict.fromkeys(columns))
    if not blob_cols:
        raise ValueError("columns must contain at least one BLOB column")
    if parallelism < 1:
        raise ValueError("parallelism must be at least 1, got {}".format(parallelism))
    if batch_size is not None and batch_size < 1:
        raise ValueError("batch_size must be at least 1, got {}".format(batch_size))
    if not isinstance(blob_uri_affinity, bool):
        raise ValueError("blob_uri_affinity must be a boolean")
    drop = [c for c in (all_blob_columns or []) if c not in blob_cols]
    if drop:
        dataset = dataset.drop_columns(drop)
    kw = dict(map_args)
    if ray_remote_args:
        kw.update(ray_remote_args)
    return dataset.map_batches(_apply, batch_format="pyarrow", batch_size=batch_size,
                               fn_args=(blob_cols, fn, parallelism, fn_kwargs), **kw)
