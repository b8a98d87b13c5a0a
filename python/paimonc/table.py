"""Table-level entry points of the write and read APIs (pypaimon's names).

Mixed into paimonc.catalog.Table: ``new_batch_write_builder()``,
``new_stream_write_builder()``, ``new_read_builder()``, ``copy(options)``
``remove_orphan_files(older_than=None, dry_run=False)``,
``expire_snapshots(...)``, ``rollback_to(...)``, ``find_missing_files()``
and ``compact(...)`` / ``compact_plan(...)``.
"""

import collections

__all__ = ["TableApiMixin", "ExpireResult", "CompactResult"]

ExpireResult = collections.namedtuple("ExpireResult", ["expired", "deleted_files", "bytes"])
ExpireResult.__doc__ = (
    "What expire_snapshots did (or would do, in a dry run): the number of snapshots expired, the "
    "absolute paths of the files deleted in deletion order, and their total size in bytes.")

CompactResult = collections.namedtuple(
    "CompactResult", ["snapshot_id", "base_snapshot", "tasks", "files_before", "files_after", "bytes_before",
                      "bytes_after", "rows"])
CompactResult.__doc__ = (
    "What compact did (or would do, in a dry run): the COMPACT snapshot committed (None when nothing "
    "was), the snapshot planned on, the groups of files merged, the input and output file counts and "
    "bytes, and the rows rewritten.")


def _millis_before_now(value, what):
    """datetime (naive = local), timedelta before now, or epoch millis -> epoch millis."""
    import datetime as _dt
    import time as _time
    from .errors import InvalidArgumentError
    now_ms = int(_time.time() * 1000)
    if isinstance(value, _dt.datetime):
        ms = int(value.timestamp() * 1000)
    elif isinstance(value, _dt.timedelta):
        ms = now_ms - int(value.total_seconds() * 1000)
    elif isinstance(value, int) and not isinstance(value, bool):
        ms = value
    else:
        raise InvalidArgumentError(
            "%s must be a datetime, a timedelta or epoch milliseconds, not %s" % (what, type(value).__name__))
    if not -(1 << 63) <= ms < (1 << 63):
        raise InvalidArgumentError("%s out of range: %r" % (what, value))
    return ms, now_ms


class TableApiMixin:
    """Builders and dynamic options; expects ``_t``, ``options``, ``fields``."""

    _dynamic_options = None

    def new_batch_write_builder(self):
        from .write import BatchWriteBuilder
        return BatchWriteBuilder(self)

    def new_stream_write_builder(self):
        from .write import StreamWriteBuilder
        return StreamWriteBuilder(self)

    def new_read_builder(self):
        from .read import ReadBuilder
        return ReadBuilder(self)

    def copy(self, options):
        """A view of this table with dynamic options applied (a None value
        removes a key), e.g. ``{"scan.snapshot-id": "3"}`` for time travel or
        ``{"target-file-size": "64mb"}`` for writes. Changing ``bucket`` is
        rejected, as in pypaimon. With a time-travel option the copy has the
        fields of that snapshot's schema (as pypaimon and Java)."""
        from .errors import InvalidArgumentError
        options = dict(options)
        if "bucket" in options and str(options["bucket"]) != str(self.options.get("bucket", "-1")):
            raise InvalidArgumentError("Cannot change bucket number")
        # immutable options (row-tracking.enabled, data-evolution.enabled, ...)
        # cannot change on a copy either (Java checkImmutability)
        from . import _native
        _native.table_check_options(self._t, {str(k): str(v) for k, v in options.items() if v is not None})
        t = object.__new__(type(self))
        t.__dict__.update(self.__dict__)
        merged = dict(self.options)
        dyn = dict(self._dynamic_options or {})
        for k, v in options.items():
            if v is None:
                merged.pop(k, None)
                dyn.pop(k, None)
            else:
                merged[str(k)] = str(v)
                dyn[str(k)] = str(v)
        t.options = merged
        t._dynamic_options = dyn
        from .read import _apply_time_travel
        return _apply_time_travel(t)

    def remove_orphan_files(self, older_than=None, dry_run=False):
        """Deletes files under the table directory that no snapshot, tag or
        changelog references (left by failed or crashed writes and commits),
        as Java Paimon's RemoveOrphanFiles; returns their absolute paths,
        sorted. Only files modified strictly before ``older_than`` are
        touched: a ``datetime`` (naive = local time), a ``timedelta`` before
        now, or epoch milliseconds (int); default: one day ago, so files of
        writes still running survive. ``dry_run=True`` deletes nothing and
        returns what would be deleted. Schema, snapshot, hint and tag files
        and branch/ and consumer/ are never touched. If any snapshot, tag or
        manifest cannot be read nothing is deleted and the error names it."""
        import datetime as _dt
        import time as _time
        from .errors import InvalidArgumentError
        now_ms = int(_time.time() * 1000)
        if older_than is None:
            older_ms = now_ms - 24 * 3600 * 1000
        elif isinstance(older_than, _dt.datetime):
            older_ms = int(older_than.timestamp() * 1000)
        elif isinstance(older_than, _dt.timedelta):
            older_ms = now_ms - int(older_than.total_seconds() * 1000)
        elif isinstance(older_than, int) and not isinstance(older_than, bool):
            older_ms = older_than
        else:
            raise InvalidArgumentError(
                "older_than must be a datetime, a timedelta or epoch milliseconds, not %s"
                % type(older_than).__name__)
        if not -(1 << 63) <= older_ms < (1 << 63):
            raise InvalidArgumentError("older_than out of range: %r" % (older_than,))
        from . import _native
        paths, _bytes = _native.table_remove_orphan_files(self._t, older_ms, bool(dry_run))
        return paths

    def expire_snapshots(self, retain_max=None, retain_min=None, older_than=None, max_deletes=None,
                         options=None, dry_run=False):
        """Expires old snapshots as Java Paimon does (its ``expire_snapshots``
        procedure's parameters): snapshots beyond the newest ``retain_max``
        (option ``snapshot.num-retained.max``) and older than ``older_than``
        (a datetime, a timedelta before now or epoch millis; default: option
        ``snapshot.time-retained``, 1 hour) expire, keeping at least
        ``retain_min`` (``snapshot.num-retained.min``, 10) and at most
        ``max_deletes`` per call (``snapshot.expire.limit``, 50), and never a
        snapshot a consumer has not read yet. Files only expired snapshots
        used are deleted; every retained snapshot and tag stays readable.
        ``options`` may give any ``snapshot.*`` expiration option.
        ``dry_run=True`` deletes nothing. Returns an ``ExpireResult``."""
        from . import _native
        opts = {str(k): str(v) for k, v in (options or {}).items()}
        if retain_max is not None:
            opts["snapshot.num-retained.max"] = str(int(retain_max))
        if retain_min is not None:
            opts["snapshot.num-retained.min"] = str(int(retain_min))
        if max_deletes is not None:
            opts["snapshot.expire.limit"] = str(int(max_deletes))
        if older_than is not None:
            older_ms, now_ms = _millis_before_now(older_than, "older_than")
            opts["snapshot.time-retained"] = "%d ms" % max(0, now_ms - older_ms)
        expired, paths, nbytes = _native.table_expire_snapshots(self._t, opts or None, bool(dry_run))
        return ExpireResult(expired, paths, nbytes)

    def expire_partitions(self, expiration_time=None, timestamp_formatter=None, timestamp_pattern=None,
                          expire_strategy=None, max_expires=None, options=None, dry_run=False):
        """Drops the partitions older than ``expiration_time`` as Java
        Paimon's ``expire_partitions`` procedure (its parameter names):
        the partition's time comes from its values (``timestamp_pattern``
        such as "$dt $hour:00:00", parsed with ``timestamp_formatter`` such
        as "yyyyMMdd"; ``expire_strategy`` "values-time") or from its newest
        file ("update-time"). Unset parameters take the table's
        ``partition.*`` options. At most ``max_expires`` partitions (100),
        in one OVERWRITE snapshot. Returns their "k=v/k2=v2" specs
        (``dry_run=True``: what would be dropped)."""
        from . import _native
        opts = {str(k): str(v) for k, v in (options or {}).items()}
        if expiration_time is not None:
            if hasattr(expiration_time, "total_seconds"):
                expiration_time = "%d ms" % int(expiration_time.total_seconds() * 1000)
            opts["partition.expiration-time"] = str(expiration_time)
        for key, val in (("partition.timestamp-formatter", timestamp_formatter),
                         ("partition.timestamp-pattern", timestamp_pattern),
                         ("partition.expiration-strategy", expire_strategy),
                         ("partition.expiration-max-num", max_expires)):
            if val is not None:
                opts[key] = str(val)
        return _native.table_expire_partitions(self._t, opts or None, bool(dry_run))

    def rollback_to(self, target, dry_run=False):
        """Rolls the table back to a snapshot id (int) or a tag name (str), as
        pypaimon's and Java's rollback_to: later snapshots and their tags are
        deleted; a tag whose snapshot expired becomes the snapshot again.
        Their data files stay for remove_orphan_files. Returns the paths
        deleted (``dry_run=True``: that would be)."""
        from . import _native
        from .errors import InvalidArgumentError
        if isinstance(target, bool) or not isinstance(target, (int, str)):
            raise InvalidArgumentError("rollback target must be a snapshot id (int) or a tag name (str), not %s"
                                       % type(target).__name__)
        if isinstance(target, int):
            return _native.table_rollback_to(self._t, target, None, bool(dry_run))
        return _native.table_rollback_to(self._t, 0, target, bool(dry_run))

    def rollback_to_timestamp(self, timestamp_millis, dry_run=False):
        """Rolls back to the latest snapshot committed at or before
        timestamp_millis (pypaimon's rollback_to_timestamp)."""
        from .errors import InvalidArgumentError
        best = None
        for s in self.snapshots():
            if s.time_millis <= timestamp_millis and (best is None or s.id > best.id):
                best = s
        if best is None:
            raise InvalidArgumentError(
                "No snapshot found with timestamp earlier than or equal to %dms." % timestamp_millis)
        return self.rollback_to(best.id, dry_run=dry_run)

    def find_missing_files(self):
        """A consistency check: names of the files a snapshot, tag or
        changelog references that exist nowhere under the table directory
        (a healthy table has none)."""
        from . import _native
        return _native.table_find_missing_files(self._t)

    def _compact_args(self, partition_filter, partitions, options, threads):
        part = self._index_partition_filter("compact", partition_filter, partitions)
        opts = dict(getattr(self, "_dynamic_options", None) or {})
        opts.update({str(k): str(v) for k, v in (options or {}).items()})
        if threads is not None:
            opts["compaction.threads"] = str(int(threads))
        return part, {str(k): str(v) for k, v in opts.items()} or None

    def compact(self, partition_filter=None, partitions=None, options=None, threads=None, dry_run=False,
                progress=None):
        """Merges the small files of an append table as Java Paimon's compact
        procedure does and commits one COMPACT snapshot; returns a
        ``CompactResult``. Unaware-bucket tables: per partition, files below
        70% of ``target-file-size`` are packed by size into groups reaching
        twice ``target-file-size`` (each file counting
        ``source.split.open-file-cost`` extra), plus a last group of at least
        ``compaction.min.file-num`` files; fixed-bucket tables: each bucket
        with 3+ files, more small than large, is rewritten; data-evolution
        tables: runs of consecutive row-id groups fold into one file each,
        row ids kept, .blob files untouched (Java 1.4.2's plan). ``options``
        override table options for this run (``target-file-size``,
        ``compaction.*``, ``file.*``); ``threads`` groups are rewritten at
        once; ``partition_filter`` / ``partitions`` limit it to some
        partitions; ``dry_run=True`` only plans. progress: True for a bar
        on stderr, a callable (files_done, files_total), or None."""
        from . import _native
        from .progress import make_progress
        part, opts = self._compact_args(partition_filter, partitions, options, threads)
        bar = make_progress(progress, "compacting", unit="files")
        try:
            r = _native.table_compact(self._t, opts, bar.update, part, bool(dry_run))
        finally:
            bar.close()
        if r["snapshot_id"] < 0:
            r["snapshot_id"] = None
        if r["base_snapshot"] < 0:
            r["base_snapshot"] = None
        return CompactResult(**r)

    def compact_plan(self, partition_filter=None, partitions=None, options=None):
        """The groups of data file names ``compact`` would merge now, each in
        the order its rows would be rewritten."""
        from . import _native
        part, opts = self._compact_args(partition_filter, partitions, options, None)
        return _native.table_compact_plan(self._t, opts, part)
