"""Schema (what create_table takes), SchemaChange (what alter_table takes) and
TableSchema (a stored schema version), named as in pypaimon."""

import json

from .types import DataField, parse_json_type, to_type_string

__all__ = ["Schema", "SchemaChange", "Move", "MoveType", "TableSchema"]


class Schema:
    """Columns, keys, options and comment of a table to create.

    Build it with :meth:`from_pyarrow_schema` (the pyarrow schema is handed to
    libpaimonc through the Arrow PyCapsule interface and mapped there, as
    pypaimon maps it: large_binary -> BLOB, fixed_size_list -> VECTOR, field
    metadata ``description`` -> column comment), or directly from columns:
    ``Schema(fields=[("id", "BIGINT NOT NULL"), ("v", pa.string(), "comment")])``
    where a type is anything :func:`paimonc.types.to_type_string` accepts.
    """

    def __init__(self, fields=None, partition_keys=None, primary_keys=None, options=None, comment=None):
        self.pa_schema = None
        self.columns = []
        for f in fields or []:
            if isinstance(f, DataField):
                self.columns.append((f.name, to_type_string(f.type), f.description))
            else:
                f = tuple(f)
                if len(f) not in (2, 3):
                    raise TypeError("a column is (name, type) or (name, type, comment)")
                self.columns.append((f[0], to_type_string(f[1]), f[2] if len(f) == 3 else None))
        self.partition_keys = list(partition_keys or [])
        self.primary_keys = list(primary_keys or [])
        self.options = {str(k): str(v) for k, v in (options or {}).items()}
        self.comment = comment

    @staticmethod
    def from_pyarrow_schema(pa_schema, partition_keys=None, primary_keys=None, options=None, comment=None):
        if not hasattr(pa_schema, "__arrow_c_schema__"):
            raise TypeError("expected a pyarrow.Schema (an object with __arrow_c_schema__)")
        s = Schema(None, partition_keys, primary_keys, options, comment)
        s.pa_schema = pa_schema
        return s

    def _native_args(self):
        capsule = self.pa_schema.__arrow_c_schema__() if self.pa_schema is not None else None
        return (capsule, self.columns, self.partition_keys, self.primary_keys,
                list(self.options.items()), self.comment)

    def __repr__(self):
        cols = self.pa_schema if self.pa_schema is not None else self.columns
        return "Schema(fields={!r}, partition_keys={!r}, primary_keys={!r}, options={!r}, comment={!r})".format(
            cols, self.partition_keys, self.primary_keys, self.options, self.comment)


class MoveType:
    FIRST = "first"
    AFTER = "after"
    BEFORE = "before"
    LAST = "last"


class Move:
    """Where add_column puts the new column (pypaimon's Move)."""

    def __init__(self, field_name, type, reference_field_name=None):
        self.field_name = field_name
        self.type = type
        self.reference_field_name = reference_field_name

    @staticmethod
    def first(field_name):
        return Move(field_name, MoveType.FIRST)

    @staticmethod
    def after(field_name, reference_field_name):
        return Move(field_name, MoveType.AFTER, reference_field_name)

    @staticmethod
    def before(field_name, reference_field_name):
        return Move(field_name, MoveType.BEFORE, reference_field_name)

    @staticmethod
    def last(field_name):
        return Move(field_name, MoveType.LAST)


def _column_name(field_name):
    if isinstance(field_name, str):
        return field_name
    names = list(field_name)
    if len(names) == 1:
        return names[0]
    from .errors import UnsupportedError
    raise UnsupportedError("nested column changes are not supported by paimonc: {}".format(".".join(names)))


def _move_value(move):
    if move is None:
        return None
    t = getattr(move, "type", move)
    t = getattr(t, "name", t)  # pypaimon's MoveType enum
    return str(t).lower()


class SchemaChange:
    """A schema change; create with the static factory methods.

    ``data_type`` arguments accept a Paimon type string, a paimonc or
    pypaimon DataType, or a pyarrow DataType. Column names may be given as
    a one-element list as in pypaimon; nested paths raise UnsupportedError.
    """

    def __init__(self, *args):
        self.args = args

    @property
    def action(self):
        return self.args[0]

    def __repr__(self):
        return "SchemaChange{!r}".format(self.args)

    def __eq__(self, other):
        return isinstance(other, SchemaChange) and self.args == other.args

    def __hash__(self):
        return hash(self.args)

    @staticmethod
    def set_option(key, value):
        return SchemaChange("set_option", key, str(value))

    @staticmethod
    def remove_option(key):
        return SchemaChange("remove_option", key)

    @staticmethod
    def update_comment(comment):
        return SchemaChange("update_comment", comment)

    @staticmethod
    def add_column(field_name, data_type, comment=None, move=None):
        ref = getattr(move, "reference_field_name", None) if move is not None else None
        return SchemaChange("add_column", _column_name(field_name), to_type_string(data_type), comment,
                            _move_value(move), ref)

    @staticmethod
    def rename_column(field_name, new_name):
        return SchemaChange("rename_column", _column_name(field_name), new_name)

    @staticmethod
    def drop_column(field_name):
        return SchemaChange("drop_column", _column_name(field_name))

    @staticmethod
    def update_column_comment(field_name, comment):
        return SchemaChange("update_column_comment", _column_name(field_name), comment)

    @staticmethod
    def update_column_type(field_name, new_data_type, keep_nullability=False):
        type_str = to_type_string(new_data_type)
        if keep_nullability:
            from .errors import UnsupportedError
            raise UnsupportedError("update_column_type(keep_nullability=True) is not supported by paimonc")
        return SchemaChange("update_column_type", _column_name(field_name), type_str)


class TableSchema:
    """One stored schema version (``schema/schema-N``).

    ``to_json()`` returns the file text in Java's form (what libpaimonc
    writes); pypaimon-written files are normalized to that form on read.
    """

    CURRENT_VERSION = 3

    def __init__(self, native):
        self._native = native
        self.id = native.id()
        self.version = json.loads(native.to_json()).get("version", 1)
        self.highest_field_id = native.highest_field_id()
        self.time_millis = native.time_millis()
        self.fields = [DataField(fid, name, _parse_type(tjson), desc)
                       for fid, name, _tstr, tjson, desc in native.fields()]
        self._type_strings = [tstr for _fid, _name, tstr, _tjson, _desc in native.fields()]
        self.partition_keys = native.partition_keys()
        self.primary_keys = native.primary_keys()
        self.options = dict(native.options())
        self.comment = native.comment()

    @property
    def schema_id(self):
        return self.id

    def to_json(self):
        return self._native.to_json()

    def field_type_strings(self):
        """The C library's type strings of the top-level fields."""
        return list(self._type_strings)

    def to_arrow_schema(self):
        import pyarrow as pa
        return pa.schema(_CapsuleHolder(self._native.to_arrow_capsule()))

    def __repr__(self):
        # pypaimon's TableSchema repr (a dataclass's), field by field.
        return ("TableSchema(version={!r}, id={!r}, fields={!r}, highest_field_id={!r}, "
                "partition_keys={!r}, primary_keys={!r}, options={!r}, comment={!r}, time_millis={!r})").format(
            self.version, self.id, self.fields, self.highest_field_id, self.partition_keys,
            self.primary_keys, self.options, self.comment, self.time_millis)


def _parse_type(tjson):
    return parse_json_type(json.loads(tjson))


class _CapsuleHolder:
    """Presents a ready 'arrow_schema' capsule through the PyCapsule interface."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __arrow_c_schema__(self):
        return self._capsule
