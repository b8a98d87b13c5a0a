"""Row-id group planning for batch backfills of row-tracking tables.

``plan_row_id_ranges(table, rows_per_commit)`` mirrors the planning of
pypaimon's ``pypaimon.ray.process_row_id_ranges``: one snapshot (the latest
unless ``snapshot_id`` is given) is planned once; data files whose inclusive
row-id ranges ``[first_row_id, first_row_id + row_count - 1]`` overlap
(a base file, its partial-column files, BLOB / vector sidecars) form one
indivisible group; groups, in row-id order and across all partitions, are
accumulated until their row count reaches ``rows_per_commit`` (so a batch
may exceed it); the rest forms a last batch. Each batch is a list of
inclusive :class:`paimonc.Range`, one per group (not merged).

``process_row_id_ranges(table, *, rows_per_commit, processor)`` calls
``processor(list[Range])`` synchronously for each batch in row-id order
(single process; the processor reads ``scan.with_row_ranges(ranges)``,
computes and commits). Resumability is the processor's: filter on the
output column being NULL, so a rerun after a stop skips the rows already
committed. An exception from the processor propagates and stops the run.
"""

from . import _native
from .read import Range

__all__ = ["plan_row_id_ranges", "process_row_id_ranges"]


def _native_table(table):
    t = getattr(table, "_t", None)
    if t is None:
        raise TypeError("expected a paimonc Table, not {!r}".format(type(table).__name__))
    return t


def _check_rows(rows_per_commit):
    if isinstance(rows_per_commit, bool) or not isinstance(rows_per_commit, int) or rows_per_commit <= 0:
        raise ValueError("rows_per_commit must be a positive integer.")


def plan_row_id_ranges(table, rows_per_commit, snapshot_id=None):
    """Batches of row-id ranges of ``table`` (a paimonc Table):
    ``list[list[Range]]`` in row-id order. Raises
    :class:`paimonc.InvalidArgumentError` on a table without
    'row-tracking.enabled'."""
    _check_rows(rows_per_commit)
    if snapshot_id is not None and (isinstance(snapshot_id, bool) or not isinstance(snapshot_id, int)
                                    or snapshot_id < 0):
        raise ValueError("snapshot_id must be a non-negative integer or None.")
    _, batches = _native.table_plan_row_id_ranges(_native_table(table), rows_per_commit,
                                                  -1 if snapshot_id is None else snapshot_id)
    return [[Range(a, b) for a, b in batch] for batch in batches]


def process_row_id_ranges(table, *, rows_per_commit, processor, snapshot_id=None, progress=None):
    """Plans once, then calls ``processor(list[Range])`` for each batch in
    row-id order, synchronously. Returns the number of batches processed.
    ``progress``: True for a bar over the rows of the batches done, a
    callable (rows, total), or None (see paimonc.progress)."""
    from .progress import make_progress
    _check_rows(rows_per_commit)
    if not callable(processor):
        raise ValueError("processor must be callable.")
    batches = plan_row_id_ranges(table, rows_per_commit, snapshot_id)
    total = sum(r.count() for b in batches for r in b)
    bar = make_progress(progress, "row-id ranges", total)
    done = 0
    try:
        for batch in batches:
            processor(batch)
            done += sum(r.count() for r in batch)
            bar.update(done, total)
    finally:
        bar.close()
    return len(batches)
