"""Paimon data types and fields, as read from schema files.

The class names follow pypaimon (``pypaimon.schema.data_types``): AtomicType,
ArrayType, MultisetType, MapType, RowType, VectorType and DataField, each
with ``nullable`` and ``to_dict()``. Two deliberate differences:

* ``str(t)`` is Paimon's (Java's) SQL form, the same text libpaimonc prints:
  ``ROW<`a` INT, `b` STRING 'comment'>``, ``TIMESTAMP(6) WITH LOCAL TIME ZONE``.
  pypaimon prints ``ROW<a: INT, b: STRING>`` and ``TIMESTAMP_LTZ(6)``.
* ``to_dict()`` is the JSON form Java writes in schema files (no extra
  ``"nullable"`` key).

Types are parsed with :func:`parse_json_type` from the JSON form; the parser
accepts both Java's and pypaimon's variants (``"nullable"`` key, ``MAP<K, V>``
and ``MULTISET<E>`` type strings of older pypaimon versions).
"""

import json
import re

__all__ = [
    "DataType", "AtomicType", "ArrayType", "MultisetType", "MapType", "RowType",
    "VectorType", "DataField", "parse_json_type", "to_type_string",
]


def _suffix(nullable):
    return "" if nullable else " NOT NULL"


def _quote_ident(name):
    return "`" + name.replace("`", "``") + "`"


def _quote_str(s):
    return "'" + s.replace("'", "''") + "'"


class DataType:
    """Base class; ``nullable`` is True unless the type is NOT NULL."""

    def __init__(self, nullable=True):
        self.nullable = nullable

    def copy(self, nullable):
        raise NotImplementedError

    def __eq__(self, other):
        return type(self) is type(other) and self.to_dict() == other.to_dict()

    def __hash__(self):
        return hash(json.dumps(self.to_dict(), sort_keys=True))

    def __repr__(self):
        return "{}({!r})".format(type(self).__name__, str(self))


class AtomicType(DataType):
    """A non-nested type. ``type`` is its text without the nullability suffix."""

    def __init__(self, type, nullable=True):
        super().__init__(nullable)
        self.type = type

    def copy(self, nullable):
        return AtomicType(self.type, nullable)

    def to_dict(self):
        return self.type + _suffix(self.nullable)

    def __str__(self):
        return self.type + _suffix(self.nullable)


class ArrayType(DataType):
    def __init__(self, nullable, element_type):
        super().__init__(nullable)
        self.element = element_type

    def copy(self, nullable):
        return ArrayType(nullable, self.element)

    def to_dict(self):
        return {"type": "ARRAY" + _suffix(self.nullable), "element": self.element.to_dict()}

    def __str__(self):
        return "ARRAY<{}>{}".format(self.element, _suffix(self.nullable))


class MultisetType(DataType):
    def __init__(self, nullable, element_type):
        super().__init__(nullable)
        self.element = element_type

    def copy(self, nullable):
        return MultisetType(nullable, self.element)

    def to_dict(self):
        return {"type": "MULTISET" + _suffix(self.nullable), "element": self.element.to_dict()}

    def __str__(self):
        return "MULTISET<{}>{}".format(self.element, _suffix(self.nullable))


class MapType(DataType):
    def __init__(self, nullable, key_type, value_type):
        super().__init__(nullable)
        self.key = key_type
        self.value = value_type

    def copy(self, nullable):
        return MapType(nullable, self.key, self.value)

    def to_dict(self):
        return {"type": "MAP" + _suffix(self.nullable), "key": self.key.to_dict(),
                "value": self.value.to_dict()}

    def __str__(self):
        return "MAP<{}, {}>{}".format(self.key, self.value, _suffix(self.nullable))


class VectorType(DataType):
    def __init__(self, nullable, element_type, length):
        super().__init__(nullable)
        self.element = element_type
        self.length = length

    def copy(self, nullable):
        return VectorType(nullable, self.element, self.length)

    def to_dict(self):
        return {"type": "VECTOR" + _suffix(self.nullable), "element": self.element.to_dict(),
                "length": self.length}

    def __str__(self):
        return "VECTOR<{}, {}>{}".format(self.element, self.length, _suffix(self.nullable))


class RowType(DataType):
    def __init__(self, nullable, fields):
        super().__init__(nullable)
        self.fields = list(fields or [])

    def copy(self, nullable):
        return RowType(nullable, self.fields)

    def to_dict(self):
        return {"type": "ROW" + _suffix(self.nullable), "fields": [f.to_dict() for f in self.fields]}

    def __str__(self):
        parts = []
        for f in self.fields:
            s = "{} {}".format(_quote_ident(f.name), f.type)
            if f.description is not None:
                s += " " + _quote_str(f.description)
            parts.append(s)
        return "ROW<{}>{}".format(", ".join(parts), _suffix(self.nullable))


class DataField:
    """A column: ``id``, ``name``, ``type`` (a DataType), ``description``."""

    def __init__(self, id, name, type, description=None, default_value=None):
        self.id = id
        self.name = name
        self.type = type
        self.description = description
        self.default_value = default_value

    def to_dict(self):
        d = {"id": self.id, "name": self.name, "type": self.type.to_dict()}
        if self.description is not None:
            d["description"] = self.description
        if self.default_value is not None:
            d["defaultValue"] = self.default_value
        return d

    def __eq__(self, other):
        return isinstance(other, DataField) and self.to_dict() == other.to_dict()

    def __hash__(self):
        return hash(json.dumps(self.to_dict(), sort_keys=True))

    def __repr__(self):
        return "DataField(id={!r}, name={!r}, type={!r}, description={!r})".format(
            self.id, self.name, str(self.type), self.description)


_NOT_NULL = re.compile(r"\s+NOT\s+NULL\s*$", re.IGNORECASE)
_NULL = re.compile(r"\s+NULL\s*$", re.IGNORECASE)


def _split_nullability(text):
    text = text.strip()
    m = _NOT_NULL.search(text)
    if m:
        return text[:m.start()], False
    m = _NULL.search(text)
    if m:
        return text[:m.start()], True
    return text, True


def _object_nullable(d, type_text):
    if "nullable" in d and d["nullable"] is not None:
        return bool(d["nullable"])
    return "NOT NULL" not in type_text.upper()


def _split_top_level(text):
    """Splits "K, V" on the comma at nesting depth 0 (for "MAP<K, V>" strings)."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif ch == "," and depth == 0:
            return text[:i].strip(), text[i + 1:].strip()
    raise ValueError("cannot split type arguments: {!r}".format(text))


def parse_json_type(obj):
    """DataType from the JSON form of a schema file (a str or a dict)."""
    if isinstance(obj, str):
        base, nullable = _split_nullability(obj)
        # Old pypaimon wrote MAP/MULTISET in type strings; accept them.
        up = base.upper()
        if up.startswith("MAP<") and base.endswith(">"):
            k, v = _split_top_level(base[4:-1])
            return MapType(nullable, parse_json_type(k), parse_json_type(v))
        if up.startswith("MULTISET<") and base.endswith(">"):
            return MultisetType(nullable, parse_json_type(base[9:-1]))
        if up.startswith("ARRAY<") and base.endswith(">"):
            return ArrayType(nullable, parse_json_type(base[6:-1]))
        return AtomicType(base, nullable)
    if isinstance(obj, dict):
        t = obj["type"]
        up = t.upper()
        nullable = _object_nullable(obj, t)
        if up.startswith("ARRAY"):
            return ArrayType(nullable, parse_json_type(obj["element"]))
        if up.startswith("MULTISET"):
            if "element" in obj:
                return MultisetType(nullable, parse_json_type(obj["element"]))
            return parse_json_type(t).copy(nullable)
        if up.startswith("MAP"):
            if "key" in obj:
                return MapType(nullable, parse_json_type(obj["key"]), parse_json_type(obj["value"]))
            # pypaimon <= 1.x: {"type": "MAP<K, V>", "nullable": b}
            return parse_json_type(_split_nullability(t)[0]).copy(nullable)
        if up.startswith("VECTOR"):
            return VectorType(nullable, parse_json_type(obj["element"]), int(obj["length"]))
        if up.startswith("ROW"):
            return RowType(nullable, [parse_json_field(f) for f in obj.get("fields", [])])
        return parse_json_type(t).copy(nullable)
    raise ValueError("cannot parse data type from {!r}".format(obj))


def parse_json_field(d):
    return DataField(d.get("id"), d["name"], parse_json_type(d["type"]),
                     d.get("description"), d.get("defaultValue"))


# ------------------------------------------------------------ type coercion

def _pyarrow_type_string(pa_type, nullable=True):
    """Paimon type text for a pyarrow DataType, mapped as pypaimon maps it."""
    import pyarrow as pa
    t = pa.types
    sfx = _suffix(nullable)
    if t.is_int8(pa_type):
        name = "TINYINT"
    elif t.is_int16(pa_type):
        name = "SMALLINT"
    elif t.is_int32(pa_type):
        name = "INT"
    elif t.is_int64(pa_type):
        name = "BIGINT"
    elif t.is_float32(pa_type):
        name = "FLOAT"
    elif t.is_float64(pa_type):
        name = "DOUBLE"
    elif t.is_boolean(pa_type):
        name = "BOOLEAN"
    elif t.is_string(pa_type) or t.is_large_string(pa_type):
        name = "STRING"
    elif t.is_fixed_size_binary(pa_type):
        name = "BINARY({})".format(pa_type.byte_width)
    elif t.is_binary(pa_type):
        name = "BYTES"
    elif t.is_large_binary(pa_type):
        name = "BLOB"
    elif t.is_decimal(pa_type):
        name = "DECIMAL({}, {})".format(pa_type.precision, pa_type.scale)
    elif t.is_timestamp(pa_type):
        p = {"s": 0, "ms": 3, "us": 6, "ns": 9}[pa_type.unit]
        name = ("TIMESTAMP({})" if pa_type.tz is None else "TIMESTAMP({}) WITH LOCAL TIME ZONE").format(p)
    elif t.is_date32(pa_type):
        name = "DATE"
    elif t.is_time(pa_type):
        name = "TIME(0)"  # as pypaimon maps every Arrow time type
    elif t.is_fixed_size_list(pa_type):
        return "VECTOR<{}, {}>{}".format(
            _pyarrow_type_string(pa_type.value_type, pa_type.value_field.nullable), pa_type.list_size, sfx)
    elif t.is_list(pa_type) or t.is_large_list(pa_type):
        return "ARRAY<{}>{}".format(
            _pyarrow_type_string(pa_type.value_type, pa_type.value_field.nullable), sfx)
    elif t.is_map(pa_type):
        return "MAP<{}, {}>{}".format(
            _pyarrow_type_string(pa_type.key_type, pa_type.key_field.nullable),
            _pyarrow_type_string(pa_type.item_type, pa_type.item_field.nullable), sfx)
    elif t.is_struct(pa_type):
        names = {pa_type.field(i).name for i in range(pa_type.num_fields)}
        if names == {"value", "metadata"} and all(
                t.is_binary(pa_type.field(n).type) and not pa_type.field(n).nullable for n in names):
            return "VARIANT" + sfx
        parts = []
        for i in range(pa_type.num_fields):
            f = pa_type.field(i)
            # Like pypaimon, nested struct fields carry no description.
            parts.append("{} {}".format(_quote_ident(f.name), _pyarrow_type_string(f.type, f.nullable)))
        return "ROW<{}>{}".format(", ".join(parts), sfx)
    else:
        raise ValueError("Unsupported pyarrow type: {}".format(pa_type))
    return name + sfx


def to_type_string(type_):
    """Paimon type text for whatever a user passes as a column type.

    Accepted: a Paimon type string; a paimonc DataType; a pypaimon DataType
    (anything with ``to_dict()``, converted through its JSON form, since
    pypaimon's ``str()`` of ROW types is not parseable SQL); a pyarrow
    DataType (mapped as pypaimon maps it).
    """
    if isinstance(type_, str):
        return type_
    if isinstance(type_, DataType):
        return str(type_)
    mod = type(type_).__module__ or ""
    if mod.startswith("pyarrow"):
        return _pyarrow_type_string(type_)
    to_dict = getattr(type_, "to_dict", None)
    if callable(to_dict):
        return str(parse_json_type(to_dict()))
    raise TypeError("cannot use {!r} as a Paimon data type".format(type_))
