"""Ray integration with pypaimon.ray's functions and parameters, on
libpaimonc: planning, reading and writing are native (GIL released); Ray
tasks receive only tables (as catalog options + identifier), splits and
commit messages as bytes, and the driver commits once.

::

    from paimonc.ray import read_paimon, write_paimon, update_by_row_id
    ds = read_paimon("db.t", {"warehouse": "/data/wh"}, projection=["id", "img"])
    write_paimon(ds.map_batches(fn), "db.out", {"warehouse": "/data/wh"})

Needs ``ray[data]>=2.50``. Functions that run Ray tasks start a local Ray
(``ray.init()``) if none is running.
"""

from ..merge import WhenMatched, WhenNotMatched, lit, source_col, target_col
from .blobs import map_with_blobs
from .datasink import PaimonWriteResult, write_paimon
from .datasource import read_paimon
from .joins import bucket_join, merge_into
from .row_id import process_row_id_ranges, read_by_row_id, update_by_row_id

__all__ = [
    "read_paimon", "map_with_blobs", "write_paimon", "bucket_join", "merge_into", "update_by_row_id",
    "read_by_row_id", "process_row_id_ranges", "WhenMatched", "WhenNotMatched", "source_col", "target_col",
    "lit", "PaimonWriteResult",
]
