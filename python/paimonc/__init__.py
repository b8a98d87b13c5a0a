"""paimonc - Python bindings of libpaimonc, a C implementation of Apache Paimon.

The API follows pypaimon's names::

    import pyarrow as pa
    from paimonc import CatalogFactory, Schema, SchemaChange

    catalog = CatalogFactory.create({"warehouse": "/data/warehouse"})
    catalog.create_database("db", ignore_if_exists=True)
    catalog.create_table("db.t", Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("name", pa.string())]), primary_keys=["id"]))
    table = catalog.get_table("db.t")
    [str(f.type) for f in table.fields]   # ['BIGINT NOT NULL', 'STRING']
"""

from . import _native
from .errors import (AlreadyExistsError, ConflictError, CorruptFileError, FileIOError,
                     InvalidArgumentError, NotFoundError, PaimonError, UnsupportedError, _code_map)

_native._register_errors(_code_map(_native), PaimonError)

from .catalog import Catalog, CatalogFactory, Database, Identifier, Snapshot, Table  # noqa: E402
from .schema import Move, MoveType, Schema, SchemaChange, TableSchema  # noqa: E402
from .predicate import Predicate, PredicateBuilder  # noqa: E402
from .read import Plan, Range, ReadBuilder, Split, TableRead, TableScan  # noqa: E402
from .ranges import plan_row_id_ranges, process_row_id_ranges  # noqa: E402
from .write import (BatchTableCommit, BatchTableWrite, BatchWriteBuilder, CommitMessage,  # noqa: E402
                    StreamTableCommit, StreamTableWrite, StreamWriteBuilder)
from .merge import WhenMatched, WhenNotMatched, lit, source_col, target_col  # noqa: E402
from .blob import Blob, BlobData, BlobDescriptor, BlobRef, BlobStream, read_blobs  # noqa: E402
from .types import (ArrayType, AtomicType, DataField, DataType, MapType, MultisetType,  # noqa: E402
                    RowType, VectorType)

__version__ = "0.1.0"


def library_version():
    """Version of the linked libpaimonc."""
    return _native.version()


__all__ = [
    "CatalogFactory", "Catalog", "Database", "Identifier", "Table", "Snapshot",
    "Schema", "SchemaChange", "Move", "MoveType", "TableSchema",
    "DataType", "AtomicType", "ArrayType", "MultisetType", "MapType", "RowType", "VectorType", "DataField",
    "PaimonError", "NotFoundError", "AlreadyExistsError", "InvalidArgumentError", "CorruptFileError",
    "UnsupportedError", "ConflictError", "FileIOError", "library_version",
    "BatchWriteBuilder", "BatchTableWrite", "BatchTableCommit", "StreamWriteBuilder", "StreamTableWrite",
    "StreamTableCommit", "CommitMessage", "ReadBuilder", "TableScan", "Plan", "Split", "TableRead", "Range",
    "Predicate", "PredicateBuilder", "plan_row_id_ranges", "process_row_id_ranges",
    "WhenMatched", "WhenNotMatched", "source_col", "target_col", "lit",
    "Blob", "BlobData", "BlobRef", "BlobStream", "BlobDescriptor", "read_blobs",
]
