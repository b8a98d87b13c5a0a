"""PyTorch datasets over paimonc reads (``TableRead.to_torch``).

The parameters and their rules are pypaimon 2.1.0's (``to_torch(splits,
streaming, prefetch_concurrency, *, batch_format, batch_size,
to_tensor_fn, shuffle, seed, buffer_size, max_buffer_input_splits,
auto_detect_rank, sharding_rank, sharding_world_size)``); the reading is
native and batch-at-a-time:

* ``streaming=False``: :class:`TorchDataset`, map-style. The splits are
  read into one Arrow table the first time an item is asked for (in each
  process); ``__getitem__`` returns a row dict and ``__getitems__`` (what
  a batched DataLoader calls) converts the whole batch at once.
* ``streaming=True``: :class:`TorchIterDataset`. Splits are dealt to DDP
  ranks, then to the DataLoader workers of each rank, by balanced
  contiguous slices (as pypaimon), so every row is read by exactly one
  (rank, worker) per epoch. ``batch_format='row'`` yields dicts,
  ``'pyarrow'`` RecordBatches and ``'torch'`` dicts of tensors: numeric,
  boolean and fixed-size-list (VECTOR) columns become tensors (zero copy
  when the column has no nulls and is not boolean), string and binary
  (BLOB) columns lists of str / bytes; ``batch_size`` cuts and joins
  reader batches to exactly that many rows (the last one shorter).
* ``shuffle=True``: a seeded buffer shuffle. The worker's splits are
  visited in a seeded order, up to ``max_buffer_input_splits`` of them
  read interleaved; rows gather in a buffer of ``buffer_size`` rows that
  is permuted and emitted. The generator is seeded by (seed, epoch,
  worker, rank), so a run is reproducible; ``set_epoch(e)`` (visible to
  persistent workers) gives each epoch its own order.

The splits are planned once, so the whole run reads one snapshot (or the
tag / snapshot the table was copied to). The datasets pickle (a spawned
DataLoader worker reopens the table from its catalog options).
"""
import os
import random
import warnings

import pyarrow as pa
import torch
from torch.utils.data import Dataset, IterableDataset, get_worker_info

_FORMATS = ("row", "pyarrow", "torch")


def _check_int(value, name, positive=False):
    if isinstance(value, bool) or not isinstance(value, int) or (positive and value <= 0):
        raise ValueError("%s must be a%s int" % (name, " positive" if positive else "n"))
    return value


def _check_context(rank, world_size):
    _check_int(rank, "rank")
    _check_int(world_size, "world_size")
    if world_size <= 0:
        raise ValueError("world_size must be greater than 0")
    if rank < 0 or rank >= world_size:
        raise ValueError("rank must satisfy 0 <= rank < world_size")
    return rank, world_size


def _resolve_context(auto_detect_rank, rank, world_size):
    """(rank, world_size): explicit, else torch.distributed, else the
    RANK / WORLD_SIZE environment (with auto_detect_rank), else (0, 1)."""
    if not isinstance(auto_detect_rank, bool):
        raise ValueError("auto_detect_rank must be a bool")
    if rank is not None or world_size is not None:
        if auto_detect_rank:
            raise ValueError("explicit sharding context cannot be combined with auto_detect_rank=True")
        if rank is None or world_size is None:
            raise ValueError("sharding_rank and sharding_world_size must be set together")
        return _check_context(rank, world_size)
    if not auto_detect_rank:
        return 0, 1
    dist = getattr(torch, "distributed", None)
    if dist is not None and dist.is_available() and dist.is_initialized():
        return _check_context(dist.get_rank(), dist.get_world_size())
    er, ew = os.environ.get("RANK"), os.environ.get("WORLD_SIZE")
    if er is not None or ew is not None:
        if er is None or ew is None:
            raise ValueError("RANK and WORLD_SIZE environment variables must be set together")
        try:
            r, w = int(er), int(ew)
        except ValueError:
            raise ValueError("RANK and WORLD_SIZE environment variables must be integers")
        return _check_context(r, w)
    return 0, 1


def _balanced_slice(values, shard, shards):
    base, extra = divmod(len(values), shards)
    start = shard * base + min(shard, extra)
    return values[start:start + base + (1 if shard < extra else 0)]


def _concat(batches):
    if len(batches) == 1:
        return batches[0]
    return pa.Table.from_batches(batches).combine_chunks().to_batches()[0]


def _sized(batches, batch_size):
    """Batches of exactly batch_size rows (the last one shorter); slices of
    one reader batch stay zero copy, only batches that straddle two reader
    batches are joined."""
    if batch_size is None:
        for b in batches:
            if b.num_rows:
                yield b
        return
    pending, have = [], 0
    for b in batches:
        off = 0
        while off < b.num_rows:
            take = min(batch_size - have, b.num_rows - off)
            pending.append(b.slice(off, take))
            have += take
            off += take
            if have == batch_size:
                yield _concat(pending)
                pending, have = [], 0
    if pending:
        yield _concat(pending)


class PackedBytes(tuple):
    """A batch's binary (BLOB) column as two tensors: ``values`` (uint8, the
    payloads back to back, sharing the Arrow buffer) and ``offsets`` (int64,
    n + 1; row i is values[offsets[i]:offsets[i+1]]). Moving it between
    DataLoader processes moves two tensors instead of n bytes objects."""
    __slots__ = ()
    _fields = ("values", "offsets")  # namedtuple-like: DataLoader's convert/collate rebuild it

    def __new__(cls, values, offsets):
        return tuple.__new__(cls, (values, offsets))

    def __getnewargs__(self):
        return tuple(self)

    values = property(lambda self: tuple.__getitem__(self, 0))
    offsets = property(lambda self: tuple.__getitem__(self, 1))

    def __len__(self):
        return int(self.offsets.shape[0]) - 1

    def row(self, i):
        """Row i as a uint8 tensor view."""
        o = self.offsets
        return self.values[int(o[i]):int(o[i + 1])]

    def to_pylist(self):
        raw = self.values.numpy().tobytes()
        o = self.offsets.tolist()
        return [raw[o[i]:o[i + 1]] for i in range(len(o) - 1)]


def _packed(name, arr):
    import numpy as np
    if arr.null_count:
        raise ValueError("column %r has %d null values, which packed bytes cannot hold; provide to_tensor_fn"
                         % (name, arr.null_count))
    if pa.types.is_large_binary(arr.type) or pa.types.is_large_string(arr.type):
        odt = np.int64
    else:
        odt = np.int32
    bufs = arr.buffers()
    offs = np.frombuffer(bufs[1], dtype=odt)[arr.offset:arr.offset + len(arr) + 1]
    lo, hi = (int(offs[0]), int(offs[-1])) if len(offs) else (0, 0)
    data = np.frombuffer(bufs[2], dtype=np.uint8)[lo:hi] if bufs[2] is not None else np.zeros(0, np.uint8)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
        return PackedBytes(torch.from_numpy(data), torch.from_numpy(offs.astype(np.int64) - lo))


def _column_values(arr):
    """arr.to_pylist(), faster for numeric columns and VECTORs without
    nulls (numpy's tolist gives the same Python ints / floats / bools)."""
    t = arr.type
    if arr.null_count == 0:
        if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t):
            return arr.to_numpy(zero_copy_only=False).tolist()
        if pa.types.is_fixed_size_list(t):
            vt = t.value_type
            if pa.types.is_integer(vt) or pa.types.is_floating(vt) or pa.types.is_boolean(vt):
                vals = arr.values.slice(arr.offset * t.list_size, len(arr) * t.list_size)
                if vals.null_count == 0:
                    return vals.to_numpy(zero_copy_only=False).reshape(len(arr), t.list_size).tolist()
    return arr.to_pylist()


_ROW_CHUNK = 2048


def batch_rows(batch):
    """The rows of a RecordBatch as dicts (RecordBatch.to_pylist()),
    converted column by column in chunks of 2048 rows, so a consumer that
    stops early does not pay for the whole batch."""
    if isinstance(batch, pa.Table):
        for b in batch.to_batches():
            yield from batch_rows(b)
        return
    names = batch.schema.names
    for lo in range(0, batch.num_rows, _ROW_CHUNK):
        part = batch.slice(lo, _ROW_CHUNK)
        cols = [_column_values(c) for c in part.columns]
        for vals in zip(*cols):
            yield dict(zip(names, vals))


def _lazy(arr):
    from .blob import BlobData, BlobDescriptor, BlobRef
    out = []
    for v in arr.to_pylist():
        if v is None:
            out.append(None)
        elif BlobDescriptor.is_blob_descriptor(v):
            out.append(BlobRef(BlobDescriptor.deserialize(v)))
        else:
            out.append(BlobData(v))
    return out


def to_tensors(batch, blobs="bytes"):
    """The default ``to_tensor_fn``: a RecordBatch -> {column: tensor or
    list}. Numeric and boolean columns and fixed-size lists of them (VECTOR)
    become tensors (sharing the Arrow buffers when there are no nulls and
    the type is not boolean); strings and binaries (BLOB) become lists of
    str / bytes, or with ``blobs='packed'`` binaries become
    :class:`PackedBytes` (use ``functools.partial(to_tensors,
    blobs='packed')`` as to_tensor_fn), or with ``blobs='lazy'`` lists of
    :class:`paimonc.Blob` objects: a BlobRef (nothing read until
    ``to_data()`` / ``read()``; pickles as its descriptor) for each
    descriptor cell of a read with ``blob-as-descriptor=true``, a BlobData
    for an inline value, None for null. A null in a tensor column, or
    another type, is an error naming the column (pass a to_tensor_fn, or
    batch_format='pyarrow')."""
    if blobs not in ("bytes", "packed", "lazy"):
        raise ValueError("blobs must be 'bytes', 'packed' or 'lazy', got %r" % (blobs,))
    out = {}
    for name, arr in zip(batch.schema.names, batch.columns):
        t = arr.type
        if blobs == "packed" and (pa.types.is_binary(t) or pa.types.is_large_binary(t)):
            out[name] = _packed(name, arr)
            continue
        if blobs == "lazy" and (pa.types.is_binary(t) or pa.types.is_large_binary(t)):
            out[name] = _lazy(arr)
            continue
        if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) or \
                pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
            out[name] = arr.to_pylist()
            continue
        if arr.null_count:
            raise ValueError("column %r has %d null values, which a tensor cannot hold; provide to_tensor_fn "
                             "or use batch_format='pyarrow'" % (name, arr.null_count))
        if pa.types.is_fixed_size_list(t):
            vt = t.value_type
            if not (pa.types.is_integer(vt) or pa.types.is_floating(vt) or pa.types.is_boolean(vt)):
                raise ValueError("column %r of type %s has no tensor form; provide to_tensor_fn" % (name, t))
            vals = arr.values.slice(arr.offset * t.list_size, len(arr) * t.list_size)
            if vals.null_count:
                raise ValueError("column %r has null vector elements; provide to_tensor_fn" % name)
            nd = vals.to_numpy(zero_copy_only=False).reshape(len(arr), t.list_size)
        elif pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t):
            nd = arr.to_numpy(zero_copy_only=False)
        else:
            raise ValueError("column %r of type %s has no tensor form; use batch_format='pyarrow' or provide "
                             "to_tensor_fn" % (name, t))
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
            out[name] = torch.from_numpy(nd)
    return out


class TorchDataset(Dataset):
    """Map-style: all rows of the splits, read once per process."""

    def __init__(self, table_read, splits):
        self.table_read = table_read
        self.splits = splits
        self._table = None

    def __getstate__(self):
        st = dict(self.__dict__)
        st["_table"] = None  # a worker reads for itself rather than unpickling the data
        return st

    def _data(self):
        if self._table is None:
            self._table = self.table_read.to_arrow(self.splits).combine_chunks()
        return self._table

    def __len__(self):
        return self._data().num_rows

    def _index(self, i):
        n = len(self)
        i = int(i)
        if i < 0:
            i += n
        if i < 0 or i >= n:
            raise IndexError("index %d out of range for %d rows" % (i, n))
        return i

    def __getitem__(self, i):
        return next(batch_rows(self._data().slice(self._index(i), 1)))

    def __getitems__(self, indices):
        return list(batch_rows(self._data().take([self._index(i) for i in indices])))


class TorchIterDataset(IterableDataset):
    """Streaming: each (rank, DataLoader worker) reads its own splits."""

    def __init__(self, table_read, splits, batch_format="row", batch_size=None, to_tensor_fn=None,
                 shuffle=False, seed=0, buffer_size=1000, max_buffer_input_splits=10,
                 auto_detect_rank=False, sharding_rank=None, sharding_world_size=None):
        self.table_read = table_read
        self.splits = splits
        self.batch_format = batch_format
        self.batch_size = batch_size
        self.to_tensor_fn = to_tensor_fn
        self.shuffle = shuffle
        self.seed = _check_int(seed, "seed")
        self.buffer_size = _check_int(buffer_size, "buffer_size", True)
        self.max_buffer_input_splits = _check_int(max_buffer_input_splits, "max_buffer_input_splits", True)
        self.auto_detect_rank = auto_detect_rank
        self.sharding_rank = sharding_rank
        self.sharding_world_size = sharding_world_size
        self.rank, self.world_size = _resolve_context(auto_detect_rank, sharding_rank, sharding_world_size)
        self._epoch = torch.zeros((), dtype=torch.long).share_memory_()

    # ---- epochs (shared memory, so persistent workers see set_epoch)
    @property
    def epoch(self):
        return int(self._epoch)

    @epoch.setter
    def epoch(self, value):
        self._epoch.fill_(_check_int(value, "epoch"))

    def set_epoch(self, epoch):
        self.epoch = epoch
        return self

    def _context(self):
        # a worker process resolves again (RANK may be set there), but keeps
        # the parent's explicit context
        if self.sharding_rank is not None or not self.auto_detect_rank:
            return self.rank, self.world_size
        return _resolve_context(True, None, None)

    def worker_splits(self, worker_id=None, num_workers=None):
        """The splits this (rank, worker) reads."""
        info = get_worker_info()
        if worker_id is None:
            worker_id = info.id if info is not None else 0
            num_workers = info.num_workers if info is not None else 1
        rank, world = self._context()
        limit = self.table_read.limit
        if limit == 0:
            return []
        if limit is not None and sum(s.row_count for s in self.splits) > limit:
            if world > 1:
                raise ValueError("limit is not supported with distributed Torch sharding")
            return self.splits if worker_id == 0 else []  # a binding limit cannot be shared
        return _balanced_slice(_balanced_slice(self.splits, rank, world), worker_id, num_workers)

    def _rng(self, worker_id):
        rank, world = self._context()
        s = self.seed + self.epoch * 1000003 + worker_id
        return random.Random("%d:%d" % (s, rank) if world > 1 else s)

    def _ordered(self, splits):
        if not splits:
            return
        yield from self.table_read.to_arrow_batch_reader(splits)

    def _interleaved(self, splits, rng):
        """The splits' batches in a seeded order: splits visited shuffled,
        up to max_buffer_input_splits open at a time, each next batch taken
        from a random open one."""
        order = list(splits)
        rng.shuffle(order)
        active = []
        while order or active:
            while order and len(active) < self.max_buffer_input_splits:
                active.append(iter(self.table_read.to_arrow_batch_reader([order.pop(0)])))
            k = rng.randrange(len(active))
            b = next(active[k], None)
            if b is None:
                active.pop(k)
            else:
                yield b

    def _shuffled(self, splits, rng):
        """Buffers of buffer_size rows, each permuted."""
        import numpy as np
        nrng = np.random.default_rng(rng.getrandbits(64))
        for b in _sized(self._interleaved(splits, rng), self.buffer_size):
            yield b.take(pa.array(nrng.permutation(b.num_rows)))

    def __iter__(self):
        info = get_worker_info()
        wid = info.id if info is not None else 0
        splits = self.worker_splits()
        batches = self._shuffled(splits, self._rng(wid)) if self.shuffle else self._ordered(splits)
        if self.batch_format == "row":
            for b in batches:
                yield from batch_rows(b)
            return
        conv = self.to_tensor_fn or to_tensors
        for b in _sized(batches, self.batch_size):
            yield b if self.batch_format == "pyarrow" else conv(b)


def make_torch_dataset(table_read, splits, streaming, prefetch_concurrency, batch_format, batch_size,
                       to_tensor_fn, shuffle, seed, buffer_size, max_buffer_input_splits, auto_detect_rank,
                       sharding_rank, sharding_world_size):
    if batch_format not in _FORMATS:
        raise ValueError("batch_format must be one of %s, got %r" % (sorted(_FORMATS), batch_format))
    if (auto_detect_rank or sharding_rank is not None or sharding_world_size is not None) and not streaming:
        raise ValueError("distributed sharding requires streaming=True")
    if batch_size is not None:
        _check_int(batch_size, "batch_size", True)
    _check_int(prefetch_concurrency, "prefetch_concurrency", True)
    if batch_format == "row":
        if batch_size is not None:
            raise ValueError("batch_size requires batch_format='pyarrow' or 'torch'")
        if to_tensor_fn is not None:
            raise ValueError("to_tensor_fn requires batch_format='torch'")
    else:
        if not streaming:
            raise ValueError("batch_format=%r requires streaming=True" % batch_format)
        if batch_format == "pyarrow" and to_tensor_fn is not None:
            raise ValueError("to_tensor_fn requires batch_format='torch'")
        if to_tensor_fn is not None and not callable(to_tensor_fn):
            raise ValueError("to_tensor_fn must be callable")
        if prefetch_concurrency != 1:
            raise ValueError("batch formats require prefetch_concurrency=1")
    if shuffle:
        if not streaming:
            raise ValueError("shuffle=True only supports streaming=True")
        if prefetch_concurrency > 1:
            raise ValueError("shuffle=True does not support prefetch_concurrency > 1")
    if not streaming:
        return TorchDataset(table_read, splits)
    # prefetch_concurrency: the native reader already decodes ahead on its
    # own threads, so it is accepted (as pypaimon) and not needed
    return TorchIterDataset(table_read, splits, batch_format, batch_size, to_tensor_fn, shuffle, seed,
                            buffer_size, max_buffer_input_splits, auto_detect_rank, sharding_rank,
                            sharding_world_size)
