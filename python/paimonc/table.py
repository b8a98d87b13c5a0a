"""Table-level entry points of the write and read APIs (pypaimon's names).

Mixed into paimonc.catalog.Table: ``new_batch_write_builder()``,
``new_stream_write_builder()``, ``new_read_builder()`` and ``copy(options)``.
"""

__all__ = ["TableApiMixin"]


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
