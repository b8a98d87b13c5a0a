"""Predicate and PredicateBuilder with pypaimon's names.

A :class:`Predicate` keeps pypaimon's shape (``method``, ``index``, ``field``,
``literals``; ``and``/``or`` carry child predicates as ``literals``) and is
turned into a libpaimonc predicate when a read uses it. Python literals are
converted to the canonical text of include/paimonc/table.h:

=========================  ==========================================
int / bool                 ``"-12"`` / ``"true"``, ``"false"``
float                      ``repr()`` (``"0.1"``, ``"inf"``, ``"nan"``)
decimal.Decimal            plain notation, ``"-12.34"``
datetime.date              ``"2024-05-14"``
datetime.datetime          ``"2024-05-14 01:02:03.123456"`` (aware values
                           are converted to UTC first)
datetime.time              ``"01:02:03.5"``
str / bytes                UTF-8 / as they are
None                       SQL NULL (only inside ``is_in``/``is_not_in``)
=========================  ==========================================

Predicates pickle through the C library's versioned serialization
(``paimon_predicate_serialize``), so they can be shipped to workers.
"""

import datetime as _dt
import decimal
import numbers

from . import _native
from .errors import InvalidArgumentError, UnsupportedError

__all__ = ["Predicate", "PredicateBuilder"]

# paimon_predicate_op (include/paimonc/predicate.h)
_OPS = {
    "equal": 0, "notEqual": 1, "lessThan": 2, "lessOrEqual": 3, "greaterThan": 4,
    "greaterOrEqual": 5, "in": 6, "notIn": 7, "isNull": 8, "isNotNull": 9,
    "startsWith": 10, "endsWith": 11, "contains": 12,
}


def _frac(micro, nano=0):
    if nano:
        return ".{:09d}".format(micro * 1000 + nano).rstrip("0")
    if micro:
        return ".{:06d}".format(micro).rstrip("0")
    return ""


def literal_text(value, field=None):
    """The canonical bytes of one literal (None stays None)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return b"true" if value else b"false"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise InvalidArgumentError("literal {!r} for field '{}' is not a finite decimal".format(value, field))
        return format(value, "f").encode()
    if isinstance(value, numbers.Integral):
        return str(int(value)).encode()
    if isinstance(value, numbers.Real):
        return repr(float(value)).encode()
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None and value.utcoffset() is not None:
            value = value.astimezone(_dt.timezone.utc).replace(tzinfo=None)
        nano = getattr(value, "nanosecond", 0) or 0  # pandas.Timestamp
        return "{:04d}-{:02d}-{:02d} {:02d}:{:02d}:{:02d}{}".format(
            value.year, value.month, value.day, value.hour, value.minute, value.second,
            _frac(value.microsecond, nano)).encode()
    if isinstance(value, _dt.date):
        return "{:04d}-{:02d}-{:02d}".format(value.year, value.month, value.day).encode()
    if isinstance(value, _dt.time):
        return "{:02d}:{:02d}:{:02d}{}".format(value.hour, value.minute, value.second,
                                               _frac(value.microsecond)).encode()
    raise InvalidArgumentError("unsupported literal {!r} of type {} for field '{}'".format(
        value, type(value).__name__, field))


class Predicate:
    """One filter condition (pypaimon's Predicate fields)."""

    __slots__ = ("method", "index", "field", "literals", "_nat")

    def __init__(self, method, index, field, literals=None, _native_pred=None):
        self.method = method
        self.index = index
        self.field = field
        self.literals = literals
        self._nat = _native_pred

    # ---------------------------------------------------------------- native

    def _tree(self):
        m = self.method
        if m is None:
            return ("native", self._native())
        if m in ("and", "or"):
            return (m, [p._tree() for p in self.literals])
        if m == "between":
            lo, hi = self.literals
            return ("and", [self._leaf("greaterOrEqual", [lo]), self._leaf("lessOrEqual", [hi])])
        if m == "notBetween":
            lo, hi = self.literals
            return ("or", [self._leaf("lessThan", [lo]), self._leaf("greaterThan", [hi])])
        if m == "like":
            return self._like_tree(self.literals[0])
        if m not in _OPS:
            raise UnsupportedError("predicate method '{}' is not supported".format(m))
        return self._leaf(m, self.literals or [])

    def _leaf(self, method, literals):
        if method not in ("in", "notIn") and any(v is None for v in literals):
            raise InvalidArgumentError("predicate '{}' on field '{}' has a None literal".format(method, self.field))
        return ("leaf", self.field, _OPS[method], [literal_text(v, self.field) for v in literals])

    def _like_tree(self, pattern):
        if not isinstance(pattern, str):
            raise InvalidArgumentError("LIKE pattern for field '{}' must be str".format(self.field))
        body = pattern.strip("%")
        if "%" in body or "_" in body:
            raise UnsupportedError("LIKE pattern {!r} is not supported (only 'x%', '%x', '%x%', 'x')".format(pattern))
        if pattern.startswith("%") and pattern.endswith("%") and len(pattern) >= 2:
            return self._leaf("contains", [body])
        if pattern.endswith("%"):
            return self._leaf("startsWith", [body])
        if pattern.startswith("%"):
            return self._leaf("endsWith", [body])
        return self._leaf("equal", [body])

    def _native(self):
        if self._nat is None:
            self._nat = _native.predicate_build(self._tree())
        return self._nat

    @staticmethod
    def from_string(text):
        """Parses SQL-like text, e.g. ``"a > 3 AND s LIKE 'x%'"`` (paimonc extension)."""
        return Predicate(None, None, None, None, _native.predicate_parse(text))

    def to_string(self):
        """SQL-like text of the predicate, as libpaimonc prints it."""
        return self._native().to_string()

    def serialize(self):
        """Versioned bytes (libpaimonc's format)."""
        return self._native().serialize()

    @staticmethod
    def deserialize(data):
        return Predicate(None, None, None, None, _native.predicate_deserialize(bytes(data)))

    def __reduce__(self):
        return (_restore, (self.serialize(), self.method, self.index, self.field,
                           self.literals if self.method in ("and", "or") or self.method is None
                           else list(self.literals or [])))

    # ----------------------------------------------------------------- misc

    def __eq__(self, other):
        if not isinstance(other, Predicate):
            return NotImplemented
        if self.method is None or other.method is None:
            return self.serialize() == other.serialize()
        return (self.method, self.field, self.literals) == (other.method, other.field, other.literals)

    def __hash__(self):
        return hash((self.method, self.field))

    def __repr__(self):
        if self.method is None:
            return "Predicate({!r})".format(self.to_string())
        return "Predicate(method={!r}, field={!r}, literals={!r})".format(self.method, self.field, self.literals)


def _restore(data, method, index, field, literals):
    return Predicate(method, index, field, literals, _native.predicate_deserialize(data))


class PredicateBuilder:
    """Builds predicates on the given fields (names checked as pypaimon does)."""

    def __init__(self, row_field):
        self.field_names = [f.name if hasattr(f, "name") else str(f) for f in row_field]

    def _get_field_index(self, field):
        try:
            return self.field_names.index(field)
        except ValueError:
            raise InvalidArgumentError("The field {} is not in field list {}.".format(field, self.field_names)) \
                from None

    def _build(self, method, field, literals=None):
        index = self._get_field_index(field)
        p = Predicate(method, index, field, literals)
        p._native()  # convert literals now: a bad literal fails here, not at read time
        return p

    def equal(self, field, literal):
        return self._build("equal", field, [literal])

    def not_equal(self, field, literal):
        return self._build("notEqual", field, [literal])

    def less_than(self, field, literal):
        return self._build("lessThan", field, [literal])

    def less_or_equal(self, field, literal):
        return self._build("lessOrEqual", field, [literal])

    def greater_than(self, field, literal):
        return self._build("greaterThan", field, [literal])

    def greater_or_equal(self, field, literal):
        return self._build("greaterOrEqual", field, [literal])

    def is_null(self, field):
        return self._build("isNull", field)

    def is_not_null(self, field):
        return self._build("isNotNull", field)

    def startswith(self, field, pattern_literal):
        return self._build("startsWith", field, [pattern_literal])

    def endswith(self, field, pattern_literal):
        return self._build("endsWith", field, [pattern_literal])

    def contains(self, field, pattern_literal):
        return self._build("contains", field, [pattern_literal])

    def like(self, field, pattern_literal):
        return self._build("like", field, [pattern_literal])

    def is_in(self, field, literals):
        return self._build("in", field, list(literals))

    def is_not_in(self, field, literals):
        return self._build("notIn", field, list(literals))

    def between(self, field, included_lower_bound, included_upper_bound):
        return self._build("between", field, [included_lower_bound, included_upper_bound])

    def not_between(self, field, included_lower_bound, included_upper_bound):
        return self._build("notBetween", field, [included_lower_bound, included_upper_bound])

    @staticmethod
    def and_predicates(predicates):
        predicates = list(predicates)
        if not predicates:
            return None
        if len(predicates) == 1:
            return predicates[0]
        return Predicate("and", None, None, predicates)

    @staticmethod
    def or_predicates(predicates):
        predicates = list(predicates)
        if not predicates:
            return None
        if len(predicates) == 1:
            return predicates[0]
        return Predicate("or", None, None, predicates)
