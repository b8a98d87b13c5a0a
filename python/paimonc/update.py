"""Updates of data-evolution tables with pypaimon's names.

::

    wb = table.new_batch_write_builder()
    upd = wb.new_update().with_update_type(["score"])
    msgs = upd.update_by_arrow_with_row_id(pa_table)   # columns _ROW_ID, score
    wb.new_commit().commit(msgs)

Each touched file group gets one new data file holding only the updated
columns (libpaimonc, with the GIL released); nothing else is rewritten.
"""

from . import _native
from .errors import InvalidArgumentError

__all__ = ["TableUpdate", "BatchTableUpdate", "StreamTableUpdate"]

ROW_ID = "_ROW_ID"


def _as_arrow_table(data):
    import pyarrow as pa
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    if hasattr(data, "read_all"):
        return data.read_all()
    if hasattr(data, "__arrow_c_stream__"):
        return pa.table(data)
    raise TypeError("expected Arrow data (pyarrow Table / RecordBatch / reader), not {}".format(
        type(data).__name__))


class TableUpdate:
    """Shared part of BatchTableUpdate / StreamTableUpdate."""

    def __init__(self, table, commit_user):
        self.table = table
        self.commit_user = commit_user
        self.update_cols = None
        self.projection = None

    def with_update_type(self, update_cols):
        update_cols = list(dict.fromkeys(update_cols))
        for col in update_cols:
            if col not in self.table.field_names:
                raise InvalidArgumentError("Column {} is not in table schema.".format(col))
        if len(update_cols) == len(self.table.field_names):
            update_cols = None
        self.update_cols = update_cols
        return self

    def with_read_projection(self, projection):
        self.projection = list(projection)
        return self

    def new_predicate_builder(self):
        return self.table.new_read_builder().new_predicate_builder()

    def _writer_options(self):
        dyn = getattr(self.table, "_dynamic_options", None) or {}
        return {k: v for k, v in dyn.items()
                if not k.startswith(("scan.", "commit.", "source.", "read."))} or None

    def _update_by_arrow_with_row_id(self, data):
        from .write import CommitMessage
        tbl = _as_arrow_table(data)
        if ROW_ID not in tbl.column_names:
            raise InvalidArgumentError("update_by_arrow_with_row_id: the input has no _ROW_ID column "
                                       "(table {})".format(self.table.identifier))
        cols = self.update_cols if self.update_cols is not None else [
            c for c in tbl.column_names if c != ROW_ID]
        if not cols:
            raise InvalidArgumentError("update_by_arrow_with_row_id: no columns to update")
        for c in cols:
            if c not in tbl.column_names:
                raise InvalidArgumentError("update_by_arrow_with_row_id: the input lacks update column "
                                           "'{}'".format(c))
        tbl = self._conform(tbl, cols)
        u = _native.table_update_new(self.table._t, cols, self._writer_options())
        try:
            if tbl.num_rows:
                u.write_stream(tbl.__arrow_c_stream__())
            m = CommitMessage(u.prepare_commit())
        finally:
            u.close()
        return [] if m.is_empty() else [m]

    def _conform(self, tbl, cols):
        """_ROW_ID + cols, cast to the types a read returns."""
        import pyarrow as pa
        schema = self.table.to_arrow_schema()
        fields = [pa.field(ROW_ID, pa.int64(), nullable=False)] + [schema.field(c) for c in cols]
        tbl = tbl.select([ROW_ID] + list(cols))
        target = pa.schema(fields)
        if tbl.schema.equals(target):
            return tbl
        if tbl.column(ROW_ID).null_count:
            raise InvalidArgumentError("update_by_arrow_with_row_id: _ROW_ID has nulls")
        # nullability of the target only constrains values, which the C side checks
        try:
            return tbl.cast(pa.schema([f.with_nullable(True) for f in fields]))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as e:
            raise InvalidArgumentError("update_by_arrow_with_row_id: cannot cast the input to the table's "
                                       "column types: {}".format(e)) from None

    def _update_by_predicate(self, predicate, assignments, read_columns=None):
        import pyarrow as pa
        assignments = dict(assignments)
        has_callable = any(callable(v) for v in assignments.values())
        has_array = any(isinstance(v, (pa.Array, pa.ChunkedArray)) for v in assignments.values())
        read_columns = list(dict.fromkeys(read_columns or ()))
        opts = self.table.options
        if str(opts.get("data-evolution.enabled", "false")).lower() != "true":
            raise InvalidArgumentError("update_by_predicate requires 'data-evolution.enabled' = 'true'.")
        if str(opts.get("row-tracking.enabled", "false")).lower() != "true":
            raise InvalidArgumentError("update_by_predicate requires 'row-tracking.enabled' = 'true'.")
        if not assignments:
            raise InvalidArgumentError("assignments must not be empty.")
        if read_columns and not has_callable:
            raise InvalidArgumentError("read_columns requires a callable assignment.")
        if has_callable and has_array:
            raise InvalidArgumentError("Callable assignments cannot be combined with Arrow array assignments.")
        if has_callable and not read_columns:
            raise InvalidArgumentError("Callable assignments require read_columns.")
        for c in read_columns:
            if c not in self.table.field_names:
                raise InvalidArgumentError("Read column {} is not in table schema.".format(c))
        partition_keys = set(self.table.partition_keys)
        for c in assignments:
            if c not in self.table.field_names:
                raise InvalidArgumentError("Column {} is not in table schema.".format(c))
            if c in partition_keys:
                raise InvalidArgumentError(
                    "update_by_predicate does not support updating partition column '{}'.".format(c))
        rb = self.table.new_read_builder()
        if predicate is not None:
            rb = rb.with_filter(predicate)
        rb = rb.with_projection((read_columns if has_callable else []) + [ROW_ID])
        splits = rb.new_scan().plan().splits()
        read = rb.new_read()
        schema = self.table.to_arrow_schema()
        parts = []
        if has_callable:
            # the callable sees one matched split at a time, as pypaimon
            # hands it one logical file group
            for sp in splits:
                matched = read.to_arrow([sp])
                if matched.num_rows:
                    parts.append(self._assignment_table(assignments, matched, schema))
        else:
            matched = read.to_arrow(splits)
            if matched.num_rows:
                parts.append(self._assignment_table(assignments, matched, schema))
        if not parts:
            return []
        saved = self.update_cols
        self.update_cols = list(assignments)
        try:
            return self._update_by_arrow_with_row_id(pa.concat_tables(parts))
        finally:
            self.update_cols = saved

    def _delete_by_row_id(self, row_ids):
        """Deletion-vector delete of the rows named by _ROW_ID (deduplicated;
        rows deleted already are not an error); returns commit messages."""
        import array
        import pyarrow as pa
        if isinstance(row_ids, (pa.Array, pa.ChunkedArray)):
            if row_ids.null_count:
                raise InvalidArgumentError("_ROW_ID value must not be null.")
            vals = row_ids.cast(pa.int64()).to_pylist()
        else:
            vals = list(row_ids)
            if any(v is None for v in vals):
                raise InvalidArgumentError("_ROW_ID value must not be null.")
        try:
            buf = array.array("q", (int(v) for v in vals))
        except OverflowError:
            raise InvalidArgumentError("delete_by_row_id: a _ROW_ID is out of the BIGINT range") from None
        from .write import CommitMessage
        m = CommitMessage(_native.table_delete_by_row_id(self.table._t, buf, self._writer_options()))
        return [] if m.is_empty() else [m]

    def _delete_by_predicate(self, predicate):
        """Deletion-vector delete of the rows matching predicate (None: all)."""
        from .predicate import Predicate
        if predicate is not None and not isinstance(predicate, Predicate):
            raise TypeError("delete_by_predicate expects a paimonc Predicate, not {!r}".format(type(predicate)))
        pbytes = predicate._native().serialize() if predicate is not None else None
        from .write import CommitMessage
        m = CommitMessage(_native.table_delete_by_predicate(self.table._t, pbytes, self._writer_options()))
        return [] if m.is_empty() else [m]

    @staticmethod
    def _assignment_table(assignments, matched, schema):
        import pyarrow as pa
        arrays = [matched[ROW_ID]]
        fields = [pa.field(ROW_ID, pa.int64())]
        for col, value in assignments.items():
            if callable(value):
                value = value(matched)
                if not isinstance(value, (pa.Array, pa.ChunkedArray)):
                    raise InvalidArgumentError("Callable assignment for {} must return a pyarrow.Array or "
                                               "pyarrow.ChunkedArray.".format(col))
            target = schema.field(col).type
            if isinstance(value, (pa.Array, pa.ChunkedArray)):
                if len(value) != matched.num_rows:
                    raise InvalidArgumentError("Assignment array length must match matched row count: "
                                               "{} != {}.".format(len(value), matched.num_rows))
                arr = value if value.type == target else value.cast(target)
            else:
                if isinstance(value, pa.Scalar):
                    value = value.as_py()
                arr = pa.array([value] * matched.num_rows, type=target)
            arrays.append(arr)
            fields.append(pa.field(col, target))
        return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


class BatchTableUpdate(TableUpdate):
    def update_by_arrow_with_row_id(self, table):
        """New values of the update columns for the rows named by _ROW_ID;
        returns the commit messages (commit them with new_commit())."""
        return self._update_by_arrow_with_row_id(table)

    def update_by_arrow_batches_with_row_id(self, tables):
        import pyarrow as pa
        tables = [_as_arrow_table(t) for t in tables]
        if not tables:
            return []
        return self._update_by_arrow_with_row_id(pa.concat_tables(tables))

    def update_by_predicate(self, predicate, assignments, read_columns=None):
        """UPDATE ... SET col = value WHERE predicate: values are literals,
        Arrow arrays (one value per matched row) or callables (given the
        matched rows with read_columns and _ROW_ID, returning an array)."""
        return self._update_by_predicate(predicate, assignments, read_columns)

    def delete_by_row_id(self, row_ids):
        """Deletes the rows named by _ROW_ID with deletion vectors (tables
        with deletion-vectors.enabled); returns the commit messages."""
        return self._delete_by_row_id(row_ids)

    def delete_by_predicate(self, predicate):
        """Deletes the rows matching predicate (None: every row) with
        deletion vectors; returns the commit messages."""
        return self._delete_by_predicate(predicate)

    # upsert / merge_into (paimonc.merge)
    def upsert_by_arrow_with_key(self, table, upsert_keys):
        """Upsert rows by one or more key columns (see paimonc.merge)."""
        from . import merge
        return merge.upsert_by_arrow_with_key(self, table, upsert_keys)

    def upsert_by_key(self, rows, upsert_keys):
        from . import merge
        return merge.upsert_by_key(self, rows, upsert_keys)

    def merge_into(self, source, *, on, when_matched=(), when_not_matched=()):
        """MERGE INTO this table (see paimonc.merge); returns commit messages."""
        from . import merge
        return merge.merge_into(self, source, on=on, when_matched=when_matched, when_not_matched=when_not_matched)


class StreamTableUpdate(TableUpdate):
    def update_by_arrow_with_row_id(self, table, commit_identifier=None):
        return self._update_by_arrow_with_row_id(table)

    def update_by_predicate(self, predicate, assignments, commit_identifier=None, read_columns=None):
        return self._update_by_predicate(predicate, assignments, read_columns)

    def delete_by_row_id(self, row_ids, commit_identifier=None):
        return self._delete_by_row_id(row_ids)

    def delete_by_predicate(self, predicate, commit_identifier=None):
        return self._delete_by_predicate(predicate)

    # upsert / merge_into (paimonc.merge)
    def upsert_by_arrow_with_key(self, table, upsert_keys, commit_identifier):
        from . import merge
        return merge.upsert_by_arrow_with_key(self, table, upsert_keys, commit_identifier)

    def upsert_by_key(self, rows, upsert_keys, commit_identifier):
        from . import merge
        return merge.upsert_by_key(self, rows, upsert_keys, commit_identifier)

    def merge_into(self, source, *, on, when_matched=(), when_not_matched=(), commit_identifier):
        from . import merge
        return merge.merge_into(self, source, on=on, when_matched=when_matched, when_not_matched=when_not_matched,
                                commit_identifier=commit_identifier)
