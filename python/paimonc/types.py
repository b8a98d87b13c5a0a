"""Paimon data types and fields, as read from schema files.

The class names follow pypaimon (``pypaimon.schema.data_types``): AtomicType,
ArrayType, MultisetType, MapType, RowType, VectorType and DataField, each
with ``nullable`` and ``to_dict()``.

* ``str(t)`` and ``repr(t)`` (and ``repr``/``str`` of a DataField) print what
  pypaimon prints for the same type: ``ROW<a: INT, b: STRING COMMENT c>``,
  ``MAP<STRING NOT NULL, INT>``, ``VECTOR<FLOAT, 4> NOT NULL``; an atomic type
  prints its text (``AtomicType.type``, upper case when parsed) and
  ``NOT NULL``. The fields of a loaded table come from libpaimonc, which
  stores and reads Java's text, so a column pypaimon wrote as
  ``TIMESTAMP_LTZ(6)`` prints as ``TIMESTAMP(6) WITH LOCAL TIME ZONE`` here.
  pypaimon's ROW form is not parseable SQL: for Paimon's (Java's) SQL form,
  the text libpaimonc prints and parses
  (``ROW<`a` INT, `b` STRING COMMENT 'c'>``), use :func:`to_type_string`.
* ``to_dict()`` is the JSON form Java writes in schema files (no extra
  ``"nullable"`` key); pypaimon adds ``"nullable"`` to nested types.

Types are parsed with :func:`parse_json_type` from the JSON form; the parser
accepts both Java's and pypaimon's variants (``"nullable"`` key, ``MAP<K, V>``
and ``MULTISET<E>`` type strings of older pypaimon versions).
"""

import json
import re

from . import _native

__all__ = [
    "DataType", "AtomicType", "ArrayType", "MultisetType", "MapType", "RowType",
    "VectorType", "DataField", "parse_json_type", "to_type_string",
]


def _suffix(nullable):
    return "" if nullable else " NOT NULL"


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

    # Each subclass has pypaimon's __str__ and __repr__ (pypaimon's types are
    # dataclasses: the generated repr shows the declared fields, not
    # ``nullable``). Java's SQL form is _sql_string().


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

    def __repr__(self):
        return "AtomicType(type={!r})".format(self.type)


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

    def __repr__(self):
        return "ArrayType(element={!r})".format(self.element)


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

    def __repr__(self):
        return "MultisetType(element={!r})".format(self.element)


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

    def __repr__(self):
        return "MapType(key={!r}, value={!r})".format(self.key, self.value)


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

    def __repr__(self):
        return "VectorType(element={!r}, length={!r})".format(self.element, self.length)


class RowType(DataType):
    def __init__(self, nullable, fields):
        super().__init__(nullable)
        self.fields = list(fields or [])

    def copy(self, nullable):
        return RowType(nullable, self.fields)

    def to_dict(self):
        return {"type": "ROW" + _suffix(self.nullable), "fields": [f.to_dict() for f in self.fields]}

    def __str__(self):
        # pypaimon's form: names unquoted, "name: TYPE", a non-empty
        # description as " COMMENT text" (unquoted), no DEFAULT.
        return "ROW<{}>{}".format(", ".join(
            "{}: {}{}".format(f.name, f.type, " COMMENT {}".format(f.description) if f.description else "")
            for f in self.fields), _suffix(self.nullable))

    def __repr__(self):
        return "RowType(fields={!r})".format(self.fields)


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
        # pypaimon's (a dataclass repr); str() is the same, as in pypaimon.
        return "DataField(id={!r}, name={!r}, type={!r}, description={!r}, default_value={!r})".format(
            self.id, self.name, self.type, self.description, self.default_value)


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


def _atomic_text(text):
    """The text an AtomicType keeps: upper case, as pypaimon's parser keeps
    it (so that str() agrees), except GEOMETRY/GEOGRAPHY, whose CRS argument
    is kept as written. Other atomic types have only numeric arguments and
    libpaimonc parses keywords in any case, so this changes no type."""
    up = text.upper()
    if up.startswith(("GEOMETRY", "GEOGRAPHY")):
        return text
    return up


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
        return AtomicType(_atomic_text(base), nullable)
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
    """Paimon type of a pyarrow type, by libpaimonc's mapping (pypaimon's)."""
    import pyarrow as pa
    field = pa.field("f", pa_type, nullable=nullable)
    return _native.type_from_arrow(pa.schema([field]).__arrow_c_schema__())


def _sql_string(dtype):
    """Paimon's (Java's) SQL text of a paimonc DataType, rendered by
    libpaimonc: ``ROW<`a` INT, `b` STRING COMMENT 'c'>``. This, not str(),
    is what goes to the C library (str() is pypaimon's form)."""
    return _native.type_to_sql(json.dumps(dtype.to_dict()))


def to_type_string(type_):
    """Paimon type text for whatever a user passes as a column type.

    Accepted: a Paimon type string (returned as is); a paimonc DataType or a
    pypaimon DataType (anything with ``to_dict()``), both rendered in Java's
    SQL form from their JSON form, since their ``str()`` (pypaimon's form)
    of ROW types is not parseable SQL; a pyarrow DataType (mapped as
    pypaimon maps it).
    """
    if isinstance(type_, str):
        return type_
    if isinstance(type_, DataType):
        return _sql_string(type_)
    mod = type(type_).__module__ or ""
    if mod.startswith("pyarrow"):
        return _pyarrow_type_string(type_)
    to_dict = getattr(type_, "to_dict", None)
    if callable(to_dict):
        return _sql_string(parse_json_type(to_dict()))
    raise TypeError("cannot use {!r} as a Paimon data type".format(type_))
