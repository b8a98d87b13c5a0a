"""Upsert by key and single-process MERGE INTO for data-evolution tables,
with pypaimon 2.1.0's names (``pypaimon.table.data_evolution_merge_into``,
``pypaimon.write.table_upsert_by_key``)::

    from paimonc import WhenMatched, WhenNotMatched, source_col, lit
    wb = table.new_batch_write_builder()
    upd = wb.new_update()
    msgs = upd.merge_into(src, on=["id"],
                          when_matched=[WhenMatched.update({"score": "s.score"}, condition="s.score > t.score"),
                                        WhenMatched.delete()],
                          when_not_matched=[WhenNotMatched(insert="*")])
    wb.new_commit().commit(msgs)

    msgs = upd.upsert_by_arrow_with_key(pa_table, ["id"])

How it works: the target is read once (one planned snapshot, projection
``_ROW_ID`` + the key and needed columns), matched with a hash join
(``pyarrow.Table.join``), and the matched rows go through the row-id update
path (``update_by_arrow_with_row_id``), the unmatched ones through a normal
write; every message can be committed together in one commit.

Which columns an update writes (differs from pypaimon, same read result):
pypaimon writes every assigned column of every touched file group
(``_WRITE_COLS`` = all columns for ``'*'`` and for upserts, partition and
key columns included). paimonc compares the new values with the current
ones (null-safe; floats by bit pattern) and writes only the columns in
which at least one matched row really changes, and only the file groups
holding such a row. Key and partition columns of matched rows never change
(they are equal by the match), so they are never rewritten; a re-upsert of
identical rows writes nothing.

Conditions: SQL strings over ``s.``/``t.`` columns, as pypaimon (which
evaluates them with DataFusion; paimonc uses polars' SQL expressions, which
must be installed), or - a paimonc extension - callables given the joined
Arrow table (``s.``/``t.``-prefixed columns) returning one boolean per row.
SET values may also be callables (paimonc extension; pypaimon allows them
only in self-merges) given the same table and returning an array.
"""

import re
from dataclasses import dataclass
from typing import Any, Optional

from .errors import ConflictError, InvalidArgumentError, UnsupportedError

__all__ = ["merge_into", "upsert_by_arrow_with_key", "upsert_by_key", "WhenMatched", "WhenNotMatched",
           "source_col", "target_col", "lit", "SourceColumnRef", "TargetColumnRef", "LiteralValue"]

ROW_ID = "_ROW_ID"
_RETRIES = 3


# ------------------------------------------------------------ clause objects

@dataclass(frozen=True)
class SourceColumnRef:
    column: str


@dataclass(frozen=True)
class TargetColumnRef:
    column: str


@dataclass(frozen=True)
class LiteralValue:
    value: Any


def source_col(name):
    return SourceColumnRef(name)


def target_col(name):
    return TargetColumnRef(name)


def lit(value):
    return LiteralValue(value)


class WhenMatched:
    """``WhenMatched.update(spec='*', condition=None)`` or
    ``WhenMatched.delete(condition=None)`` (the instance attributes
    ``update`` / ``delete`` then hold the spec / a bool, as in pypaimon)."""

    def __init__(self, action, *, update=None, condition=None):
        if action not in ("update", "delete"):
            raise InvalidArgumentError("WhenMatched action must be 'update' or 'delete'.")
        if action == "update" and update is None:
            raise InvalidArgumentError("WhenMatched.update requires an update spec.")
        if action == "delete" and update is not None:
            raise InvalidArgumentError("WhenMatched.delete must not specify update.")
        self.update = update
        self.condition = condition
        self.delete = action == "delete"

    @classmethod
    def update(cls, update="*", condition=None):  # noqa: F811 - shadowed per instance, as pypaimon
        return cls("update", update=update, condition=condition)

    @classmethod
    def delete(cls, condition=None):  # noqa: F811
        return cls("delete", condition=condition)

    def __repr__(self):
        if self.delete:
            return "WhenMatched.delete(condition={!r})".format(self.condition)
        return "WhenMatched.update({!r}, condition={!r})".format(self.update, self.condition)


@dataclass
class WhenNotMatched:
    insert: Any
    condition: Optional[Any] = None


@dataclass
class _Clause:
    spec: dict
    condition: Any = None
    delete: bool = False


def _ref_kind(v):
    """Spec values of pypaimon's own classes are accepted too (duck typing)."""
    name = type(v).__name__
    if isinstance(v, SourceColumnRef) or (name == "SourceColumnRef" and hasattr(v, "column")):
        return "s"
    if isinstance(v, TargetColumnRef) or (name == "TargetColumnRef" and hasattr(v, "column")):
        return "t"
    if isinstance(v, LiteralValue) or (name == "LiteralValue" and hasattr(v, "value")):
        return "lit"
    return None


# ----------------------------------------------------------------- helpers

def _pa():
    import pyarrow as pa
    return pa


def _as_source_table(source, what="source"):
    pa = _pa()
    if isinstance(source, pa.Table):
        return source
    if isinstance(source, pa.RecordBatch):
        return pa.Table.from_batches([source])
    if hasattr(source, "new_read_builder") and hasattr(source, "latest_snapshot"):
        rb = source.new_read_builder()
        return rb.new_read().to_arrow(rb.new_scan().plan().splits())
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is optional
        pd = None
    if pd is not None and isinstance(source, pd.DataFrame):
        return pa.Table.from_pandas(source, preserve_index=False)
    raise TypeError("{} must be a pyarrow.Table, a pyarrow.RecordBatch, a pandas.DataFrame, or a Paimon "
                    "table; got {}.".format(what, type(source).__name__))


def _opt_true(table, key):
    return str(table.options.get(key, "false")).lower() == "true"


def _cast(arr, dtype, what):
    pa = _pa()
    if arr.type == dtype:
        return arr
    try:
        return arr.cast(dtype)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as e:
        raise InvalidArgumentError("{}: cannot cast {} to {}: {}".format(what, arr.type, dtype, e)) from None


def _combine(arr):
    pa = _pa()
    if isinstance(arr, pa.ChunkedArray):
        return arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    return arr


def _joinable(dtype, col, what):
    pa = _pa()
    t = pa.types
    if t.is_nested(dtype) or t.is_dictionary(dtype) or t.is_null(dtype):
        raise InvalidArgumentError("{}: key column '{}' has type {}, which cannot be matched (only "
                                   "scalar types can be keys)".format(what, col, dtype))


def _encode_keys(cols, null_safe, fillers=None):
    """Key columns for Table.join: with null_safe, nulls are replaced by
    fillers[i] (the same value on both sides of a join) plus a validity
    column, so null matches null."""
    import pyarrow.compute as pc
    out = []
    for i, arr in enumerate(cols):
        arr = _combine(arr)
        if null_safe:
            out.append(pc.fill_null(arr, fillers[i] if fillers else _filler(arr)) if arr.null_count else arr)
            out.append(pc.is_valid(arr))
        else:
            out.append(arr)
    return out


def _filler(*arrays):
    """A non-null value of the arrays' type (any will do: the validity column tells nulls apart)."""
    pa = _pa()
    import pyarrow.compute as pc
    for arr in arrays:
        valid = pc.drop_null(arr)
        if len(valid):
            return valid[0]
    dtype = arrays[0].type
    t = pa.types
    if t.is_string(dtype) or t.is_large_string(dtype):
        return pa.scalar("", dtype)
    if t.is_binary(dtype) or t.is_large_binary(dtype):
        return pa.scalar(b"", dtype)
    if t.is_boolean(dtype):
        return pa.scalar(False, dtype)
    # fixed width: all-zero bytes
    return pa.Array.from_buffers(dtype, 1, [None, pa.py_buffer(b"\0" * (dtype.bit_width // 8))])[0]


def _join_indices(left_cols, right_cols, join_type, null_safe=False):
    """(left_index, right_index) of an inner join, or the left indices of a
    left anti join, sorted by left index then right index."""
    pa = _pa()
    import pyarrow.compute as pc
    fillers = [_filler(_combine(a), _combine(b)) for a, b in zip(left_cols, right_cols)] if null_safe else None
    lk = _encode_keys(left_cols, null_safe, fillers)
    rk = _encode_keys(right_cols, null_safe, fillers)
    names = ["k%d" % i for i in range(len(lk))]
    nl = len(lk[0]) if lk else 0
    nr = len(rk[0]) if rk else 0
    left = pa.Table.from_arrays(lk + [pa.array(range(nl), pa.int64())], names=names + ["__l"])
    right = pa.Table.from_arrays(rk + [pa.array(range(nr), pa.int64())], names=names + ["__r"])
    if join_type == "left anti":
        j = left.join(right.drop_columns(["__r"]), keys=names, join_type="left anti", use_threads=False)
        if j.num_rows == 0:
            return pa.array([], pa.int64())
        return _combine(pc.take(j["__l"], pc.sort_indices(j["__l"])))
    j = left.join(right, keys=names, join_type="inner", use_threads=False)
    if j.num_rows == 0:
        return pa.array([], pa.int64()), pa.array([], pa.int64())
    order = pc.sort_indices(j, sort_keys=[("__l", "ascending"), ("__r", "ascending")])
    return _combine(pc.take(j["__l"], order)), _combine(pc.take(j["__r"], order))


def _values_differ(new, old):
    """Boolean array: the new value is not the old one (nulls equal each
    other; floats compared by bit pattern; nested types compared through
    their Python values)."""
    pa = _pa()
    import pyarrow.compute as pc
    new, old = _combine(new), _combine(old)
    n = len(new)
    if n == 0:
        return pa.array([], pa.bool_())
    t = pa.types
    dtype = old.type
    if t.is_floating(dtype):
        width = {16: pa.int16(), 32: pa.int32(), 64: pa.int64()}[dtype.bit_width]
        new, old = new.view(width), old.view(width)
    try:
        ne = pc.not_equal(new, old)
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError):
        a, b = new.to_pylist(), old.to_pylist()
        return pa.array([x != y or type(x) is not type(y) for x, y in zip(a, b)], pa.bool_())
    nv, ov = pc.is_valid(new), pc.is_valid(old)
    both = pc.and_(nv, ov)
    # both valid: ne; exactly one null: changed; both null: same
    return pc.if_else(both, ne, pc.not_equal(nv, ov))


# -------------------------------------------------------------- conditions

_COL_REF = re.compile(r'\b([st])\.(\w+)\b')
_STRING_LIT = re.compile(r"'(?:[^']|'')*'")


def _condition_refs(cond):
    if not isinstance(cond, str):
        return set()
    stripped = _STRING_LIT.sub("", cond)
    return {(m.group(1), m.group(2)) for m in _COL_REF.finditer(stripped)}


def _rewrite_sql(cond):
    parts, last = [], 0
    for m in _STRING_LIT.finditer(cond):
        parts.append(_COL_REF.sub(r'"\1.\2"', cond[last:m.start()]))
        parts.append(m.group())
        last = m.end()
    parts.append(_COL_REF.sub(r'"\1.\2"', cond[last:]))
    return "".join(parts)


def _load_sql():
    try:
        import polars
    except ImportError:
        raise UnsupportedError(
            "merge_into condition strings need a SQL expression engine: pypaimon uses DataFusion, paimonc uses "
            "polars, which is not installed. Install polars, or pass a callable condition (given the joined "
            "Arrow table with s./t. columns, returning a boolean array).") from None
    return polars


def _eval_condition(cond, batch):
    """Boolean numpy-free pyarrow array: True where cond holds (null -> False)."""
    pa = _pa()
    import pyarrow.compute as pc
    if batch.num_rows == 0:
        return pa.array([], pa.bool_())
    if callable(cond):
        res = cond(batch)
        if isinstance(res, pa.ChunkedArray):
            res = _combine(res)
        if not isinstance(res, pa.Array):
            try:
                res = pa.array(res)
            except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as e:
                raise InvalidArgumentError("merge_into: a callable condition must return a boolean array, "
                                           "got {}: {}".format(type(res).__name__, e)) from None
        if len(res) != batch.num_rows:
            raise InvalidArgumentError("merge_into: callable condition returned {} values for {} rows"
                                       .format(len(res), batch.num_rows))
        if not pa.types.is_boolean(res.type):
            raise InvalidArgumentError("merge_into: a callable condition must return booleans, got {}"
                                       .format(res.type))
    elif isinstance(cond, str):
        pl = _load_sql()
        try:
            df = pl.from_arrow(batch)
            expr = pl.sql_expr(_rewrite_sql(cond))
            out = df.select(expr.alias("__cond")).to_arrow()["__cond"]
        except Exception as e:  # polars raises several exception types
            raise InvalidArgumentError("merge_into: cannot evaluate condition {!r}: {}".format(cond, e)) from None
        res = _combine(out)
        if not pa.types.is_boolean(res.type):
            raise InvalidArgumentError("merge_into: condition {!r} is not boolean (it gives {})".format(
                cond, res.type))
    else:
        raise TypeError("merge_into: a condition must be a SQL string or a callable, not {}".format(
            type(cond).__name__))
    return pc.fill_null(res, False)


# ------------------------------------------------------------ target read

def _read_target(table, projection):
    """One read of the latest snapshot: (snapshot id or None, arrow table)."""
    rb = table.new_read_builder().with_projection(projection)
    plan = rb.new_scan().plan()
    data = rb.new_read().to_arrow(plan.splits())
    return plan.snapshot_id, data


def _plain_table(table):
    """The table without time-travel options (a merge reads and writes the latest snapshot)."""
    dyn = getattr(table, "_dynamic_options", None) or {}
    keys = [k for k in dyn if k.startswith("scan.")]
    return table.copy({k: None for k in keys}) if keys else table


def _row_id_update(upd, update_table, cols, base):
    """Commit messages of an update by row id, planned on snapshot ``base``
    (ConflictError if the table moved on since the read)."""
    from . import _native
    from .write import CommitMessage
    u = _native.table_update_new(upd.table._t, list(cols), upd._writer_options())
    try:
        got = u.base_snapshot()
        if (got if got >= 0 else None) != base:
            raise _Moved(got)
        tbl = upd._conform(update_table, cols)
        if tbl.num_rows:
            u.write_stream(tbl.__arrow_c_stream__())
        m = CommitMessage(u.prepare_commit())
    finally:
        u.close()
    return [] if m.is_empty() else [m]


class _Moved(Exception):
    pass


def _append(upd, data, commit_identifier, cols=None):
    from .write import BATCH_COMMIT_IDENTIFIER, BatchTableWrite, StreamTableWrite
    if data.num_rows == 0:
        return []
    stream = commit_identifier is not None and commit_identifier != BATCH_COMMIT_IDENTIFIER
    w = (StreamTableWrite if stream else BatchTableWrite)(upd.table, upd.commit_user)
    try:
        if cols is not None and list(cols) != list(upd.table.field_names):
            w.with_write_type(list(cols))
        w.write_arrow(data)
        return w.prepare_commit(commit_identifier) if stream else w.prepare_commit()
    finally:
        w.close()


def _with_retries(fn):
    last = None
    for _ in range(_RETRIES):
        try:
            return fn()
        except _Moved as e:
            last = e
    raise ConflictError("the table kept changing while the update was prepared (last planned on snapshot {}); "
                        "try again".format(last.args[0]))


def _changed_update(row_ids, new_cols, old_cols, names):
    """(update table with only the changed columns and rows, changed column names)."""
    pa = _pa()
    import pyarrow.compute as pc
    changed = {c: _values_differ(new_cols[c], old_cols[c]) for c in names}
    keep = [c for c in names if pc.any(changed[c]).as_py()]
    if not keep:
        return None, []
    mask = changed[keep[0]]
    for c in keep[1:]:
        mask = pc.or_(mask, changed[c])
    arrays = [pc.filter(row_ids, mask)] + [pc.filter(_combine(new_cols[c]), mask) for c in keep]
    return pa.Table.from_arrays(arrays, names=[ROW_ID] + keep), keep


# ------------------------------------------------------------------ upsert

def upsert_by_arrow_with_key(upd, data, upsert_keys, commit_identifier=None, _label="upsert_by_arrow_with_key",
                             _row_fields=None):
    """pypaimon's TableUpsertByKey.upsert: rows whose (partition, upsert
    key) matches existing rows update all of them, the others are appended;
    the last of duplicate input keys wins; null keys match null keys."""
    pa = _pa()
    import pyarrow.compute as pc
    table = upd.table
    if not _opt_true(table, "data-evolution.enabled"):
        raise InvalidArgumentError("{} requires 'data-evolution.enabled' = 'true'.".format(_label))
    if not _opt_true(table, "row-tracking.enabled"):
        raise InvalidArgumentError("{} requires 'row-tracking.enabled' = 'true'.".format(_label))
    if _row_fields is None:
        data = _as_source_table(data, "data")
    if isinstance(upsert_keys, str):
        upsert_keys = [upsert_keys]
    upsert_keys = list(upsert_keys or [])
    if not upsert_keys:
        raise InvalidArgumentError("upsert_keys must not be empty.")
    fields = list(table.field_names)
    for key in upsert_keys:
        if key not in fields:
            raise InvalidArgumentError("upsert_key '{}' is not in table schema fields: {}".format(key, fields))
        if key not in data.column_names:
            raise InvalidArgumentError("upsert_key '{}' is not in input data columns: {}".format(
                key, data.column_names))
    parts = list(table.partition_keys)
    missing = [p for p in parts if p not in data.column_names]
    if missing:
        raise InvalidArgumentError("For partitioned tables, input data must contain all partition key columns. "
                                   "Missing: {}".format(missing))
    update_cols = upd.update_cols
    if update_cols is not None:
        for col in update_cols:
            if col not in fields:
                raise InvalidArgumentError("Column '{}' in update_cols is not in table schema fields: {}".format(
                    col, fields))
    if data.num_rows == 0:
        raise InvalidArgumentError("Input data is empty." if _row_fields is None else "rows must not be empty.")
    schema = table.to_arrow_schema()
    for key in upsert_keys:
        dtype = schema.field(key).type
        if _is_blob(table, key):
            raise InvalidArgumentError("Blob values are not supported as upsert keys.")
        _joinable(dtype, key, _label)
    # the table's columns of the input, cast to the table's types
    present = [c for c in fields if c in data.column_names]
    data = pa.Table.from_arrays([_cast(_combine(data[c]), schema.field(c).type,
                                       "{}: column '{}'".format(_label, c)) for c in present], names=present)
    match_keys = [k for k in upsert_keys if k not in set(parts)]
    join_keys = parts + match_keys

    # last duplicate wins, per (partition, key); nulls group together
    idx = pa.array(range(data.num_rows), pa.int64())
    keyed = pa.Table.from_arrays(_encode_keys([data[k] for k in join_keys], True) + [idx],
                                 names=["k%d" % i for i in range(2 * len(join_keys))] + ["__i"])
    last = keyed.group_by(["k%d" % i for i in range(2 * len(join_keys))], use_threads=False).aggregate(
        [("__i", "max")])["__i_max"]
    keep = pc.sort_indices(last)
    keep = _combine(pc.take(last, keep))
    if len(keep) != data.num_rows:
        data = data.take(keep)
        if _row_fields is not None:
            _row_fields = [_row_fields[i] for i in keep.to_pylist()]

    cols_to_update = list(update_cols) if update_cols is not None else list(fields)
    # equal by the match: never rewritten
    candidates = [c for c in cols_to_update if c not in set(join_keys)]

    def attempt():
        proj = [ROW_ID] + join_keys + [c for c in candidates if c in data.column_names]
        base, target = _read_target(_plain_table(table), proj)
        ti, di = (_join_indices([target[k] for k in join_keys], [data[k] for k in join_keys], "inner",
                                null_safe=True)
                  if target.num_rows else (pa.array([], pa.int64()), pa.array([], pa.int64())))
        msgs = []
        if len(di):
            if _row_fields is not None:
                for i in sorted(set(di.to_pylist())):
                    miss = [c for c in cols_to_update if c not in _row_fields[i]]
                    if miss:
                        raise InvalidArgumentError("{} requires row field(s) {}, but row only contains {}.".format(
                            _label, miss, list(_row_fields[i])))
            else:
                miss = [c for c in cols_to_update if c not in data.column_names]
                if miss:
                    raise InvalidArgumentError(
                        "{}: the input lacks column(s) {} that the update of matched rows writes (give every "
                        "column, or choose the columns with with_update_type)".format(_label, miss))
            new_cols = {c: data[c].take(di) for c in candidates}
            old_cols = {c: target[c].take(ti) for c in candidates}
            tbl, cols = _changed_update(_combine(target[ROW_ID].take(ti)), new_cols, old_cols, candidates)
            if tbl is not None:
                msgs.extend(_row_id_update(upd, tbl, cols, base))
        new_rows = (pc.filter(pa.array(range(data.num_rows), pa.int64()),
                              pc.invert(pc.is_in(pa.array(range(data.num_rows), pa.int64()), value_set=di)))
                    .to_pylist() if len(di) else list(range(data.num_rows)))
        if new_rows:
            rows = data.take(pa.array(new_rows, pa.int64()))
            cols = list(data.column_names)
            if _row_fields is not None:
                first = _row_fields[new_rows[0]]
                for i in new_rows[1:]:
                    if set(_row_fields[i]) != set(first):
                        miss = [n for n in fields if n in first and n not in _row_fields[i]]
                        extra = [n for n in fields if n in _row_fields[i] and n not in first]
                        raise InvalidArgumentError(
                            "{} requires appended rows in the same batch to have the same field set. Compared "
                            "with the first appended row, missing fields: {}; extra fields: {}.".format(
                                _label, miss, extra))
                cols = [n for n in fields if n in first]
                rows = rows.select(cols)
            msgs.extend(_append(upd, rows, commit_identifier, cols))
        return msgs

    return _with_retries(attempt)


def _is_blob(table, col):
    f = table.field_dict.get(col)
    return f is not None and str(f.type).upper().startswith("BLOB")


def upsert_by_key(upd, rows, upsert_keys, commit_identifier=None):
    """pypaimon's upsert_rows: rows are dicts (by name), pypaimon rows (with
    ``fields``) or sequences with one value per table column."""
    pa = _pa()
    from collections.abc import Mapping
    table = upd.table
    if isinstance(rows, Mapping) or hasattr(rows, "get_field"):
        rows = [rows]
    rows = list(rows)
    if not rows:
        raise InvalidArgumentError("rows must not be empty.")
    fields = list(table.field_names)
    named = []
    for r in rows:
        if isinstance(r, Mapping):
            d = dict(r)
        elif getattr(r, "fields", None) is not None and hasattr(r, "get_field"):
            d = {f.name: r.get_field(i) for i, f in enumerate(r.fields)}
        else:
            vals = [r.get_field(i) for i in range(len(r))] if hasattr(r, "get_field") else list(r)
            if len(vals) != len(fields):
                raise InvalidArgumentError("Rows without field metadata must have the same arity as the table "
                                           "schema: {} != {}.".format(len(vals), len(fields)))
            d = dict(zip(fields, vals))
        named.append(d)
    if not _opt_true(table, "data-evolution.enabled"):
        raise InvalidArgumentError("upsert_by_key requires 'data-evolution.enabled' = 'true'.")
    if not _opt_true(table, "row-tracking.enabled"):
        raise InvalidArgumentError("upsert_by_key requires 'row-tracking.enabled' = 'true'.")
    if isinstance(upsert_keys, str):
        upsert_keys = [upsert_keys]
    if not upsert_keys:
        raise InvalidArgumentError("upsert_keys must not be empty.")
    for key in upsert_keys:
        if key not in fields:
            raise InvalidArgumentError("upsert_key '{}' is not in table schema fields: {}".format(key, fields))
    for d in named:
        unknown = [n for n in d if n not in fields]
        if unknown:
            raise InvalidArgumentError("upsert_by_key got row field(s) {} that are not in table schema fields: "
                                       "{}".format(unknown, fields))
        for need in (list(upsert_keys), list(table.partition_keys)):
            miss = [c for c in need if c not in d]
            if miss:
                raise InvalidArgumentError("upsert_by_key requires row field(s) {}, but row only contains {}."
                                           .format(miss, list(d)))
    schema = table.to_arrow_schema()
    union = [n for n in fields if any(n in d for d in named)]
    try:
        data = pa.Table.from_pylist([{n: d.get(n) for n in union} for d in named],
                                    schema=pa.schema([schema.field(n).with_nullable(True) for n in union]))
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as e:
        raise InvalidArgumentError("upsert_by_key: cannot convert the rows to the table's types: {}".format(e)) \
            from None
    return upsert_by_arrow_with_key(upd, data, upsert_keys, commit_identifier, _label="upsert_by_key",
                                    _row_fields=[set(d) for d in named])


# -------------------------------------------------------------- merge_into

def _normalize_on(on):
    from collections.abc import Mapping
    if isinstance(on, str):
        on = [on]
    if isinstance(on, Mapping):
        t, s = list(on.keys()), list(on.values())
    else:
        t = list(on)
        s = list(t)
    if not t:
        raise InvalidArgumentError("'on' must be non-empty.")
    return t, s


def _normalize_spec(spec, fields, on_map, allow_target_refs=True):
    from collections.abc import Mapping
    if isinstance(spec, str) and spec == "*":
        return {c: SourceColumnRef(on_map.get(c, c)) for c in fields}
    if not isinstance(spec, Mapping):
        raise TypeError("SET spec must be '*' or a mapping, got {}".format(type(spec).__name__))
    if not spec:
        raise InvalidArgumentError("SET spec must not be empty")
    fset = set(fields)
    for key in spec:
        if key not in fset:
            raise InvalidArgumentError("SET spec references unknown target column '{}'".format(key))
    out = {}
    for key, val in spec.items():
        kind = _ref_kind(val)
        if kind == "s":
            out[key] = SourceColumnRef(val.column)
        elif kind == "t" or (isinstance(val, str) and val.startswith("t.")):
            ref = val.column if kind == "t" else val[2:]
            if not allow_target_refs:
                raise InvalidArgumentError("INSERT spec must not reference target columns (t.*), but found: "
                                           "'t.{}'".format(ref))
            if ref not in fset:
                raise InvalidArgumentError("SET spec references unknown target column '{}'".format(ref))
            if ref == key:
                continue
            out[key] = TargetColumnRef(ref)
        elif kind == "lit":
            out[key] = LiteralValue(val.value)
        elif isinstance(val, str) and val.startswith("s."):
            out[key] = SourceColumnRef(val[2:])
        elif callable(val) and not isinstance(val, type):
            out[key] = val
        else:
            out[key] = LiteralValue(val)
    return out


def _resolve(val, batch, dtype, col):
    pa = _pa()
    n = batch.num_rows
    what = "merge_into: value for column '{}'".format(col)
    if isinstance(val, LiteralValue):
        try:
            return pa.array([val.value] * n, type=dtype)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as e:
            raise InvalidArgumentError("{}: literal {!r} is not a {}: {}".format(what, val.value, dtype, e)) \
                from None
    if isinstance(val, SourceColumnRef):
        name = "s." + val.column
        return _cast(_combine(batch[name]), dtype, what) if name in batch.column_names else pa.nulls(n, dtype)
    if isinstance(val, TargetColumnRef):
        name = "t." + val.column
        return _cast(_combine(batch[name]), dtype, what) if name in batch.column_names else pa.nulls(n, dtype)
    res = val(batch)
    if isinstance(res, pa.ChunkedArray):
        res = _combine(res)
    if not isinstance(res, pa.Array):
        raise InvalidArgumentError("Callable SET values must return a pyarrow.Array or pyarrow.ChunkedArray.")
    if len(res) != n:
        raise InvalidArgumentError("Callable SET result length must match matched row count: {} != {}.".format(
            len(res), n))
    return _cast(res, dtype, what)


def _prefixed(tbl, prefix):
    return tbl.rename_columns([prefix + c for c in tbl.column_names])


def _concat_side_by_side(a, b):
    pa = _pa()
    return pa.Table.from_arrays(list(a.columns) + list(b.columns), names=a.column_names + b.column_names)


def _take(tbl, idx):
    return tbl.take(idx) if tbl.num_columns else tbl.slice(0, 0)


def merge_into(upd, source, *, on, when_matched=(), when_not_matched=(), commit_identifier=None, stats=None,
               _plan_only=False, _source_names=None):
    """pypaimon's single-process merge_into (data_evolution_merge_into).
    ``stats``, a dict, receives num_matched (target rows a WhenMatched
    clause applied to) and num_inserted. ``_plan_only`` (paimonc.ray):
    validate only and return (job, target projection, self_merge, source
    table or None); ``_source_names`` then stands for a source that is not
    materialised (a Ray Dataset)."""
    pa = _pa()
    import pyarrow.compute as pc
    table = upd.table
    when_matched, when_not_matched = list(when_matched or ()), list(when_not_matched or ())
    if not when_matched and not when_not_matched:
        raise InvalidArgumentError("At least one of when_matched or when_not_matched must be non-empty.")
    for label, clauses in (("when_matched", when_matched), ("when_not_matched", when_not_matched)):
        for i, c in enumerate(clauses[:-1]):
            if c.condition is None:
                raise InvalidArgumentError(
                    "Only the last {} clause may omit its condition. Clause at index {} has no condition, making "
                    "subsequent clauses unreachable.".format(label, i))
    for c in when_matched:
        if not hasattr(c, "delete") or not hasattr(c, "update"):
            raise TypeError("when_matched must hold WhenMatched clauses, not {}".format(type(c).__name__))
    for c in when_not_matched:
        if not hasattr(c, "insert"):
            raise TypeError("when_not_matched must hold WhenNotMatched clauses, not {}".format(type(c).__name__))
    t_on, s_on = _normalize_on(on)
    if not _opt_true(table, "data-evolution.enabled"):
        raise InvalidArgumentError("merge_into requires 'data-evolution.enabled' = 'true' on target table.")
    if not _opt_true(table, "row-tracking.enabled"):
        raise InvalidArgumentError("merge_into requires 'row-tracking.enabled' = 'true' on target table.")
    if any(c.delete for c in when_matched) and not _opt_true(table, "deletion-vectors.enabled"):
        raise InvalidArgumentError("merge_into DELETE requires 'deletion-vectors.enabled' = 'true' on target "
                                   "table.")
    fields = list(table.field_names)
    target_names = set(fields) | {ROW_ID}
    miss = [c for c in t_on if c not in target_names]
    if miss:
        raise InvalidArgumentError("'on' columns {} missing from target table fields {}.".format(miss, fields))
    on_map = dict(zip(t_on, s_on))
    matched = []
    for c in when_matched:
        spec = {} if c.delete else _normalize_spec(c.update, fields, on_map)
        matched.append(_Clause(spec=spec, condition=c.condition, delete=bool(c.delete)))
    if matched and table.partition_keys:
        pset = set(table.partition_keys)
        for c in matched:
            bad = pset & set(c.spec)
            if bad:
                raise InvalidArgumentError("merge_into does not support updating partition columns {}; "
                                           "cross-partition row movement is not implemented.".format(sorted(bad)))
    for c in when_not_matched:
        t_refs = sorted(col for p, col in _condition_refs(c.condition) if p == "t")
        if t_refs:
            raise InvalidArgumentError("WhenNotMatched condition must not reference target columns (t.*), but "
                                       "found: {}".format(t_refs))
    not_matched = []
    for c in when_not_matched:
        spec = _normalize_spec(c.insert, fields, on_map, allow_target_refs=False)
        for tk, sk in on_map.items():
            if tk in fields and tk not in spec:
                spec[tk] = SourceColumnRef(sk)
        not_matched.append(_Clause(spec=spec, condition=c.condition))
    self_merge = (hasattr(source, "new_read_builder") and getattr(source, "table_path", None) == table.table_path
                  and t_on == [ROW_ID] and s_on == [ROW_ID])
    if self_merge and not_matched:
        raise InvalidArgumentError("Self-merge (source == target with ON _ROW_ID) does not support WHEN NOT "
                                   "MATCHED clauses.")
    # a self-merge uses the one target read as its source too (one snapshot)
    if self_merge or _source_names is not None:
        src = None
    else:
        src = _as_source_table(source)
    names = (set(fields) | {ROW_ID} if self_merge
             else set(_source_names) if _source_names is not None else set(src.column_names))
    miss = [c for c in s_on if c not in names]
    if miss:
        raise InvalidArgumentError("'on' columns {} missing from source schema {}.".format(miss, list(names)))
    needed = sorted({v.column for c in matched + not_matched for v in c.spec.values()
                     if isinstance(v, SourceColumnRef)} - names)
    if needed:
        raise InvalidArgumentError("source is missing columns {} referenced by SET spec".format(needed))
    for c in list(when_matched) + list(when_not_matched):
        if c.condition is not None and not isinstance(c.condition, str) and not callable(c.condition):
            raise TypeError("merge_into: a condition must be a SQL string or a callable, not {}".format(
                type(c.condition).__name__))
        for p, col in _condition_refs(c.condition):
            if p == "s" and col not in names:
                raise InvalidArgumentError("condition references unknown source column '{}'".format(col))
            if p == "t" and col not in target_names:
                raise InvalidArgumentError("condition references unknown target column '{}'".format(col))
    if any(isinstance(c.condition, str) for c in list(when_matched) + list(when_not_matched)):
        _load_sql()
    schema = table.to_arrow_schema()
    key_types = []
    for tk, sk in zip(t_on, s_on):
        dtype = pa.int64() if tk == ROW_ID else schema.field(tk).type
        _joinable(dtype, tk, "merge_into")
        key_types.append(dtype)

    union = []
    for c in matched:
        for col in c.spec:
            if col not in union:
                union.append(col)
    has_callable = any(callable(x) for x in [c.condition for c in matched]
                       + [v for c in matched for v in c.spec.values()]
                       if x is not None and not isinstance(x, (str, SourceColumnRef, TargetColumnRef,
                                                               LiteralValue)))
    if has_callable or self_merge:
        t_cols = list(fields)
    else:
        need = set(t_on) | set(union)
        for c in matched:
            need |= {v.column for v in c.spec.values() if isinstance(v, TargetColumnRef)}
            need |= {col for p, col in _condition_refs(c.condition) if p == "t"}
        t_cols = [f for f in fields if f in need]
    proj = [ROW_ID] + [c for c in t_cols if c != ROW_ID]
    only_delete = len(matched) == 1 and matched[0].delete and matched[0].condition is None
    job = _MergeJob(t_on, s_on, key_types, matched, not_matched, union, only_delete, schema, fields)
    if _plan_only:
        return job, proj, self_merge, src
    src0 = src
    src_keys0 = job.source_keys(src) if src is not None else None
    counts = stats if stats is not None else {}

    def attempt():
        base, target = _read_target(_plain_table(table), proj)
        src, src_keys = (target, job.source_keys(target)) if self_merge else (src0, src_keys0)
        out = job.evaluate(target, src, src_keys)
        counts["num_matched"], counts["num_inserted"] = out.num_matched, out.num_inserted
        msgs = []
        if out.row_ids is not None:
            tbl, cols = _changed_update(out.row_ids, out.new, out.old, union)
            if tbl is not None:
                msgs.extend(_row_id_update(upd, tbl, cols, base))
        if out.delete_ids:
            msgs.extend(_deleter(upd)(out.delete_ids))
        if out.inserts is not None:
            msgs.extend(_append(upd, out.inserts, commit_identifier))
        return msgs

    return _with_retries(attempt)


def _deleter(upd):
    deleter = getattr(upd, "_delete_by_row_id", None)
    if deleter is None:
        raise UnsupportedError("merge_into: WhenMatched.delete needs deletes by deletion vector "
                               "(TableUpdate._delete_by_row_id), which this paimonc build lacks")
    return deleter


class _Outcome:
    """What merging one target slice with one source slice produces:
    matched rows to update (``row_ids`` + ``new`` / ``old`` values of the
    SET columns, or None), target row ids to delete, rows to insert (a
    table in the target's columns, or None) and the counts."""

    __slots__ = ("row_ids", "new", "old", "delete_ids", "inserts", "num_matched", "num_inserted")

    def __init__(self):
        self.row_ids = self.new = self.old = self.inserts = None
        self.delete_ids = []
        self.num_matched = self.num_inserted = 0


class _MergeJob:
    """A validated merge: the clauses and key types, applied to (slices
    of) the target and the source. Picklable (with cloudpickle when a
    clause holds a callable), so Ray tasks can run it on hash partitions:
    a target row and the source rows it matches always share a key."""

    def __init__(self, t_on, s_on, key_types, matched, not_matched, union, only_delete, schema, fields):
        self.t_on, self.s_on, self.key_types = t_on, s_on, key_types
        self.matched, self.not_matched, self.union = matched, not_matched, union
        self.only_delete, self.schema, self.fields = only_delete, schema, fields

    def source_keys(self, s):
        return [_cast(_combine(s[sk]), dt, "merge_into: source key column '{}'".format(sk))
                for sk, dt in zip(self.s_on, self.key_types)]

    def target_keys(self, target):
        return [target[k] for k in self.t_on]

    def evaluate(self, target, src, src_keys=None):
        pa = _pa()
        import pyarrow.compute as pc
        schema, union, matched, not_matched = self.schema, self.union, self.matched, self.not_matched
        if src_keys is None:
            src_keys = self.source_keys(src)
        out = _Outcome()
        tkeys = self.target_keys(target)
        update_parts, delete_ids = [], []
        if matched and target.num_rows and src.num_rows:
            ti, si = _join_indices(tkeys, src_keys, "inner")
            if not self.only_delete and len(ti) and pc.count_distinct(ti).as_py() != len(ti):
                raise InvalidArgumentError("MERGE matched multiple source rows to the same target _ROW_ID. "
                                           "Deduplicate the source before merging.")
            if self.only_delete:
                delete_ids = sorted(set(target[ROW_ID].take(ti).to_pylist()))
                out.num_matched = len(delete_ids)
            else:
                joined = _concat_side_by_side(_prefixed(target.take(ti), "t."), _prefixed(_take(src, si), "s."))
                remaining = joined
                for c in matched:
                    if remaining.num_rows == 0:
                        break
                    if c.condition is None:
                        sel, remaining = remaining, remaining.slice(0, 0)
                    else:
                        mask = _eval_condition(c.condition, remaining)
                        sel, remaining = remaining.filter(mask), remaining.filter(pc.invert(mask))
                    if sel.num_rows == 0:
                        continue
                    out.num_matched += sel.num_rows
                    if c.delete:
                        delete_ids.extend(sel["t." + ROW_ID].to_pylist())
                        continue
                    new = {}
                    for col in union:
                        dtype = schema.field(col).type
                        new[col] = (_resolve(c.spec[col], sel, dtype, col) if col in c.spec
                                    else _combine(sel["t." + col]))
                    update_parts.append((_combine(sel["t." + ROW_ID]), new, {col: sel["t." + col] for col in union}))
        if update_parts and union:
            out.row_ids = pa.concat_arrays([p[0] for p in update_parts])
            out.new = {c: pa.concat_arrays([_combine(p[1][c]) for p in update_parts]) for c in union}
            out.old = {c: pa.concat_arrays([_combine(p[2][c]) for p in update_parts]) for c in union}
        out.delete_ids = delete_ids
        if not_matched and src.num_rows:
            if target.num_rows:
                keep = _join_indices(src_keys, tkeys, "left anti")
                unmatched = _prefixed(_take(src, keep), "s.")
            else:
                unmatched = _prefixed(src, "s.")
            parts = []
            remaining = unmatched
            for c in not_matched:
                if remaining.num_rows == 0:
                    break
                if c.condition is None:
                    sel, remaining = remaining, remaining.slice(0, 0)
                else:
                    mask = _eval_condition(c.condition, remaining)
                    sel, remaining = remaining.filter(mask), remaining.filter(pc.invert(mask))
                if sel.num_rows == 0:
                    continue
                arrays = [(_resolve(c.spec[f], sel, schema.field(f).type, f) if f in c.spec
                           else pa.nulls(sel.num_rows, schema.field(f).type)) for f in self.fields]
                parts.append(pa.Table.from_arrays(arrays, names=self.fields))
            if parts:
                out.inserts = pa.concat_tables(parts)
                out.num_inserted = out.inserts.num_rows
        return out
