"""Global indexes and search (pypaimon's names), on the native core.

    table.create_global_index("embedding", "ivf-flat", options={"distance.metric": "l2"})
    result = (table.new_vector_search_builder()
              .with_vector_column("embedding").with_query_vector(q)
              .with_limit(10).with_filter(pred).execute_local())
    scan = table.new_read_builder().new_scan().with_global_index_result(result)
    rows = table.new_read_builder().new_read().to_arrow(scan.plan().splits())

Index files are Java Paimon's and pypaimon's (btree, bitmap, ivf-flat,
ivf-sq, ivf-pq; ivf-rq and diskann through paimon-vindex's library;
full-text through paimon-ftindex's). Results hold row ids and scores
(higher is better), best first.
"""

import array as _array
import sys as _sys

from . import _native
from .errors import InvalidArgumentError

__all__ = ["GlobalIndexResult", "ScoredGlobalIndexResult", "VectorSearchBuilder",
           "BatchVectorSearchBuilder", "FullTextSearchBuilder", "HybridSearchBuilder",
           "IndexApiMixin"]


def _find_engines():
    """Points the native core at the engines shipped in the paimon-vindex and
    paimon-ftindex wheels when they are installed (without importing them)."""
    import importlib.util
    import os
    for comp, pkg, lib in (("vindex", "paimon_vindex", "libpaimon_vindex_ffi.so"),
                           ("ftindex", "paimon_ftindex", "libpaimon_ftindex_ffi.so")):
        env = "PAIMONC_%s_LIB" % comp.upper()
        if os.environ.get(env):
            continue
        try:
            spec = importlib.util.find_spec(pkg)
        except (ImportError, ValueError):
            spec = None
        for d in (spec.submodule_search_locations or []) if spec else []:
            p = os.path.join(d, lib)
            if os.path.exists(p):
                _native.set_engine_library(comp, p)
                break


_find_engines()


def _i64(b):
    a = _array.array("q")
    a.frombytes(b)
    if _sys.byteorder != "little":
        a.byteswap()
    return a


def _f32(b):
    a = _array.array("f")
    a.frombytes(b)
    if _sys.byteorder != "little":
        a.byteswap()
    return a


class GlobalIndexResult:
    """Row ids a search or an index filter selected (pypaimon's
    GlobalIndexResult): ``results()`` gives them as a sorted list."""

    def __init__(self, row_ids):
        self._ids = list(row_ids)

    def results(self):
        return sorted(self._ids)

    def row_ids(self):
        return list(self._ids)

    def is_empty(self):
        return not self._ids

    def __len__(self):
        return len(self._ids)

    def to_ranges(self):
        from .read import Range
        return Range.to_ranges(sorted(set(self._ids)))

    def __repr__(self):
        return "{}({} rows)".format(type(self).__name__, len(self._ids))


class ScoredGlobalIndexResult(GlobalIndexResult):
    """Row ids with scores, best first; ``score_getter()(row_id)`` as in
    pypaimon, ``scores()`` in row-id order of ``row_ids()``."""

    def __init__(self, row_ids, scores):
        super().__init__(row_ids)
        self._scores = list(scores)
        self._by_id = dict(zip(self._ids, self._scores))

    @classmethod
    def _from_native(cls, pair):
        ids, scores = pair
        return cls(_i64(ids), _f32(scores))

    def scores(self):
        return list(self._scores)

    def score_getter(self):
        return self._by_id.get

    def top_k(self, k):
        return ScoredGlobalIndexResult(self._ids[:k], self._scores[:k])

    def to_arrow(self):
        import pyarrow as pa
        return pa.table({"_ROW_ID": pa.array(self._ids, pa.int64()),
                         "score": pa.array(self._scores, pa.float32())})

    def _native_pair(self):
        ids = _array.array("q", self._ids)
        sc = _array.array("f", self._scores)
        if _sys.byteorder != "little":
            ids.byteswap()
            sc.byteswap()
        return (ids.tobytes(), sc.tobytes())


def _vector_bytes(v, what="query vector"):
    try:
        import numpy as np
        a = np.ascontiguousarray(np.asarray(v, dtype="<f4"))
        if a.ndim != 1:
            raise InvalidArgumentError("{} must be one-dimensional".format(what))
        return a.tobytes(), a.shape[0]
    except ImportError:  # pragma: no cover - numpy ships with pyarrow
        a = _array.array("f", [float(x) for x in v])
        return a.tobytes(), len(a)


def _opts(d):
    return {str(k): str(v) for k, v in (d or {}).items() if v is not None} or None


def _pred(p):
    return None if p is None else p._native()


class _SearchBase:
    def __init__(self, table):
        self._table = table
        self._limit = None
        self._options = {}
        self._filter = None

    def with_limit(self, limit):
        limit = int(limit)
        if limit <= 0:
            raise InvalidArgumentError("limit must be positive, not {}".format(limit))
        self._limit = limit
        return self

    def with_option(self, key, value):
        self._options[str(key)] = str(value)
        return self

    def with_options(self, options):
        for k, v in (options or {}).items():
            self.with_option(k, v)
        return self

    def with_filter(self, predicate):
        self._filter = predicate
        return self

    def with_partition_filter(self, partition_filter):
        # partition predicates are ordinary predicates on partition columns
        if partition_filter is None:
            return self
        if self._filter is None:
            self._filter = partition_filter
        else:
            from .predicate import PredicateBuilder
            self._filter = PredicateBuilder.and_predicates([self._filter, partition_filter])
        return self

    def _all_options(self):
        o = dict(getattr(self._table, "_dynamic_options", None) or {})
        o.update(self._options)
        return _opts(o)


class VectorSearchBuilder(_SearchBase):
    """pypaimon's VectorSearchBuilder: with_vector_column, with_query_vector,
    with_limit, with_option(s) (ivf.nprobe, refine_factor,
    vector-index.search-mode, ...), with_filter; execute_local()."""

    def __init__(self, table):
        super().__init__(table)
        self._column = None
        self._vector = None

    def with_vector_column(self, name):
        self._column = str(name)
        return self

    def with_query_vector(self, vector):
        self._vector = vector
        return self

    def execute_local(self):
        if self._column is None:
            raise InvalidArgumentError("vector search: with_vector_column() is required")
        if self._vector is None:
            raise InvalidArgumentError("vector search: with_query_vector() is required")
        if self._limit is None:
            raise InvalidArgumentError("vector search: with_limit() is required")
        buf, dim = _vector_bytes(self._vector)
        out = _native.table_vector_search(self._table._t, self._column, buf, 1, dim, self._limit,
                                          _pred(self._filter), self._all_options())
        return ScoredGlobalIndexResult._from_native(out[0])


class BatchVectorSearchBuilder(VectorSearchBuilder):
    """Many query vectors at once: with_query_vectors(list or 2-D array);
    execute_batch_local() -> one result per query."""

    def with_query_vectors(self, vectors):
        self._vector = vectors
        return self

    def execute_batch_local(self):
        if self._column is None or self._vector is None or self._limit is None:
            raise InvalidArgumentError("batch vector search: vector column, query vectors and limit are required")
        import numpy as np
        a = np.ascontiguousarray(np.asarray(self._vector, dtype="<f4"))
        if a.ndim != 2 or a.shape[0] == 0:
            raise InvalidArgumentError("query vectors must be a non-empty 2-D array")
        out = _native.table_vector_search(self._table._t, self._column, a.tobytes(), a.shape[0], a.shape[1],
                                          self._limit, _pred(self._filter), self._all_options())
        return [ScoredGlobalIndexResult._from_native(p) for p in out]

    execute_local = execute_batch_local


class FullTextSearchBuilder(_SearchBase):
    """pypaimon's FullTextSearchBuilder: with_query(column, query) where
    query is the JSON DSL ({"match": ...}) or a plain string; with_limit;
    execute_local()."""

    def __init__(self, table):
        super().__init__(table)
        self._column = None
        self._query = None

    def with_query(self, field_name, query):
        self._column = str(field_name)
        if isinstance(query, dict):
            import json
            query = json.dumps(query)
        self._query = str(query)
        return self

    def execute_local(self):
        if self._column is None or self._query is None:
            raise InvalidArgumentError("full-text search: with_query(column, query) is required")
        if self._limit is None:
            raise InvalidArgumentError("full-text search: with_limit() is required")
        out = _native.table_full_text_search(self._table._t, self._column, self._query, self._limit,
                                             _pred(self._filter), self._all_options())
        return ScoredGlobalIndexResult._from_native(out)


class HybridSearchBuilder(_SearchBase):
    """pypaimon's HybridSearchBuilder: add_vector_route / add_full_text_route,
    with_limit, with_rrf_ranker / with_weighted_score_ranker /
    with_ranker("mrr"); execute_local() fuses the routes."""

    def __init__(self, table):
        super().__init__(table)
        self._routes = []
        self._ranker = "rrf"

    def add_vector_route(self, vector_column, query_vector, limit=None, weight=1.0, options=None):
        self._routes.append(("vector", vector_column, query_vector, limit, float(weight), dict(options or {})))
        return self

    def add_full_text_route(self, column, query, limit=None, weight=1.0, options=None):
        if options:
            raise InvalidArgumentError("full-text route options must be empty")
        self._routes.append(("text", column, query, limit, float(weight), {}))
        return self

    def with_ranker(self, ranker):
        r = str(ranker).lower().replace("-", "_")
        if r not in ("rrf", "mrr", "weighted_score"):
            raise InvalidArgumentError("unknown ranker '{}' (rrf, mrr, weighted_score)".format(ranker))
        self._ranker = r
        return self

    def with_rrf_ranker(self):
        return self.with_ranker("rrf")

    def with_weighted_score_ranker(self):
        return self.with_ranker("weighted_score")

    def execute_local(self):
        if not self._routes:
            raise InvalidArgumentError("hybrid search: add at least one route")
        if self._limit is None:
            raise InvalidArgumentError("hybrid search: with_limit() is required")
        pairs, weights = [], []
        for kind, col, q, limit, w, o in self._routes:
            lim = self._limit if limit is None else limit
            if kind == "vector":
                b = VectorSearchBuilder(self._table).with_vector_column(col).with_query_vector(q)
                b.with_options(self._options).with_options(o)
            else:
                b = FullTextSearchBuilder(self._table).with_query(col, q)
            b.with_limit(lim).with_filter(self._filter)
            pairs.append(b.execute_local()._native_pair())
            weights.append(w)
        return ScoredGlobalIndexResult._from_native(
            _native.search_fuse(self._ranker, pairs, weights, self._limit))


class IndexApiMixin:
    """Mixed into paimonc.catalog.Table."""

    def _index_partition_filter(self, what, partition_filter, partitions):
        """pypaimon's rule: partition_filter wins; else partitions (a dict
        or a list of dicts of partition key -> value) as an OR of ANDs."""
        if partition_filter is not None:
            return partition_filter._native()
        if partitions is None:
            return None
        from .predicate import PredicateBuilder
        if isinstance(partitions, dict):
            partitions = [partitions]
        keys = list(self.partition_keys)
        pb = PredicateBuilder(self.partition_keys_fields)
        ors = []
        for spec in partitions:
            ands = []
            for k, v in dict(spec).items():
                if k not in keys:
                    raise InvalidArgumentError("{}: partition spec key '{}' is not a partition column; partition "
                                               "keys: {}".format(what, k, keys))
                ands.append(pb.is_null(k) if v is None else pb.equal(k, v))
            if not ands:
                return None  # an empty spec selects every partition
            ors.append(PredicateBuilder.and_predicates(ands))
        if not ors:
            raise InvalidArgumentError("{}: 'partitions' is an empty list".format(what))
        return PredicateBuilder.or_predicates(ors)._native()

    def create_global_index(self, index_column, index_type="btree", partition_filter=None, partitions=None,
                            options=None, progress=None):
        """Builds and commits a global index over index_column for the rows
        no index of that type covers yet; returns the number of index files
        committed (pypaimon's create_global_index). partition_filter (a
        predicate on partition keys) or partitions ({key: value} or a list
        of them) limit it to some partitions. progress: True for a bar on
        stderr (tqdm's when installed), a callable (rows_done, rows_total),
        or None (a bar when PAIMONC_PROGRESS=1 on a terminal; see
        paimonc.progress)."""
        if not isinstance(index_column, str):
            cols = list(index_column)
            if len(cols) != 1:
                raise InvalidArgumentError("create_global_index supports one column, got {}".format(cols))
            index_column = cols[0]
        part = self._index_partition_filter("create_global_index", partition_filter, partitions)
        from .progress import make_progress
        bar = make_progress(progress, "building {} index on {}".format(index_type, index_column))
        merged = dict(getattr(self, "_dynamic_options", None) or {})
        merged.update(options or {})
        try:
            return _native.table_create_global_index(self._t, index_column, str(index_type), _opts(merged),
                                                     bar.update, part)
        finally:
            bar.close()

    def drop_global_index(self, index_column, index_type=None, partition_filter=None, partitions=None,
                          dry_run=False):
        """Drops the index files of index_column (of index_type, None = any),
        of the selected partitions only when partition_filter / partitions
        are given; returns the number of files (dry_run: only counted)."""
        part = self._index_partition_filter("drop_global_index", partition_filter, partitions)
        return _native.table_drop_global_index(self._t, index_column, index_type, bool(dry_run), part)

    def list_global_indexes(self, snapshot_id=None):
        """The global index files ($table_indexes): dicts with index_type,
        file_name, index_field_name, index_field_id, file_size, row_count,
        row_range_start, row_range_end."""
        return _native.table_list_global_indexes(self._t, -1 if snapshot_id is None else int(snapshot_id))

    def index_filter(self, predicate, options=None):
        """The candidate rows the scalar indexes give for predicate
        (GlobalIndexResult), or None when they cannot answer it."""
        merged = dict(getattr(self, "_dynamic_options", None) or {})
        merged.update(options or {})
        out = _native.table_index_filter(self._t, predicate._native(), _opts(merged))
        return None if out is None else GlobalIndexResult(_i64(out[0]))

    def new_vector_search_builder(self):
        return VectorSearchBuilder(self)

    def new_batch_vector_search_builder(self):
        return BatchVectorSearchBuilder(self)

    def new_full_text_search_builder(self):
        return FullTextSearchBuilder(self)

    def new_hybrid_search_builder(self):
        return HybridSearchBuilder(self)
