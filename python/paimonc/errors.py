"""Exceptions raised by paimonc.

Every failing libpaimonc call is reported as a subclass of :class:`PaimonError`
chosen by the C error code; the exception text is the library's one-line
message (``paimon_error_message()``), and the instance carries ``code`` (the
negative ``paimon_error_code``) and ``code_name`` (e.g. ``"ENOTFOUND"``).

Builtin bases are added where they describe the failure, so code written
against plain Python exceptions keeps working:

* NotFoundError is a LookupError (not a KeyError: KeyError's ``str()`` quotes
  the message, which would garble the library's text).
* InvalidArgumentError is a ValueError (pypaimon raises ValueError for bad
  schemas/options).
* UnsupportedError is a NotImplementedError.
* FileIOError is an OSError.
"""


class PaimonError(Exception):
    """Base class of every error reported by libpaimonc."""

    code = -1
    code_name = "ERROR"


class NotFoundError(PaimonError, LookupError):
    """A database, table, snapshot, tag or file does not exist."""


class AlreadyExistsError(PaimonError):
    """The database, table or tag to create already exists."""


class InvalidArgumentError(PaimonError, ValueError):
    """Bad argument: a name, an option, a type string, a schema change."""


class CorruptFileError(PaimonError):
    """A metadata or data file is malformed."""


class UnsupportedError(PaimonError, NotImplementedError):
    """Valid, but not implemented by paimonc."""


class ConflictError(PaimonError):
    """Lost a race with a concurrent writer."""


class FileIOError(PaimonError, OSError):
    """An operating-system I/O call failed."""


def _code_map(native):
    return {
        native.ENOTFOUND: NotFoundError,
        native.EEXISTS: AlreadyExistsError,
        native.EINVAL: InvalidArgumentError,
        native.ECORRUPT: CorruptFileError,
        native.EUNSUPPORTED: UnsupportedError,
        native.ECONFLICT: ConflictError,
        native.EIO: FileIOError,
        native.ENOMEM: MemoryError,
        native.ERROR: PaimonError,
    }
