"""A multimodal AI-data pipeline on a local Paimon warehouse, with paimonc.

Real data that is already on the machine: the manual pages under
/usr/share/man (text documents: the troff source is the BLOB payload, the
rendered text a STRING column) and scikit-learn's bundled handwritten digits
(8x8 images, PNG-encoded into the same BLOB column, label INT). One
data-evolution table `ml.corpus`, partitioned by `kind` ('man' / 'digit'):

  1. ingest   render and write the pages in commits of a few hundred, then the
              digits; `embedding VECTOR<FLOAT, 384>` starts NULL;
  2. tag      `release-1`: the raw data as ingested;
  3. embed    a resumable Ray back-fill: `process_row_id_ranges` walks the
              table's row-id file groups, Ray actors running all-MiniLM-L6-v2
              read their share of each batch (`embedding IS NULL` pushed down)
              and embed it, `update_by_row_id` commits the vectors (only the
              embedding column is written). Stop it part-way (--stop-after-
              batches N, or Ctrl-C) and run again with --resume: it skips the
              rows already embedded;
  4. index    IVF-FLAT on `embedding`, BTree on `section`, full-text on `text`;
  5. search   semantic, full-text, hybrid (RRF) and filtered (vector + section)
              searches; recall@10 of IVF-FLAT against exact numpy search over
              several nprobe values (the recall curve);
  6. train    a digits classifier (PyTorch MLP) fed by `TableRead.to_torch`
              from the TAGGED snapshot, the pixels decoded from the BLOBs;
              its accuracy on a held-out split;
  7. report   timings, row counts, recall per nprobe, search hits, accuracy;
              a PNG plot and a JSON of every number.

Usage: python multimodal_pipeline.py [WAREHOUSE] [--small] [--resume]
                                     [--stop-after-batches N] [--png PATH]
"""
import argparse
import contextlib
import logging
import os
import sys
import time
import warnings

import numpy as np
import pyarrow as pa

import paimonc
from paimonc import PredicateBuilder

from mmdemo import embed, report, sources

# The Ray back-fill API, pypaimon 2.1.0's signatures (`from pypaimon.ray import ...`
# runs the same pipeline on the same table, more slowly).
from paimonc.ray import process_row_id_ranges, update_by_row_id
BACKFILL_BACKEND = process_row_id_ranges.__module__.split(".")[0] + ".ray"

TABLE = "ml.corpus"
TAG = "release-1"
SIZES = {
    # man pages, rows per ingest commit, rows per back-fill commit, embedding workers
    # (Ray actors), tokens per page, IVF lists, nprobe values, recall queries, training epochs
    "default": dict(man_pages=4000, ingest_chunk=500, rows_per_commit=1000, workers=2, max_seq_length=128,
                    nlist=64, nprobes=[1, 2, 4, 8, 16, 32, 64], queries=200, epochs=30),
    # one worker: loading the model is most of a small run's back-fill
    "small": dict(man_pages=240, ingest_chunk=120, rows_per_commit=120, workers=1, max_seq_length=64,
                  nlist=8, nprobes=[1, 2, 4, 8], queries=60, epochs=8),
}
K = 10

SCHEMA = paimonc.Schema(
    fields=[
        ("id", "BIGINT NOT NULL", "document id, unique within kind"),
        ("kind", "STRING NOT NULL", "man | digit"),
        ("name", "STRING", "page name (ls) or image name"),
        ("section", "STRING", "manual section 1-8 (NULL for images)"),
        ("title", "STRING", "one-line summary"),
        ("text", "STRING", "the page rendered to plain text (NULL for images)"),
        ("payload", "BLOB", "the raw asset: troff source or PNG"),
        ("n_bytes", "INT", "payload size"),
        ("label", "INT", "digit class (NULL for pages)"),
        ("split", "STRING", "train | test"),
        ("embedding", "VECTOR<FLOAT, 384>", "all-MiniLM-L6-v2 of title + text, back-filled"),
    ],
    partition_keys=["kind"],
    options={"row-tracking.enabled": "true", "data-evolution.enabled": "true"},
    comment="man pages and handwritten digits for retrieval and training")


class BackfillInterrupted(Exception):
    """--stop-after-batches: the run stops as a killed one would, after N
    committed batches."""


class Timings:
    def __init__(self):
        self.t0 = time.perf_counter()
        self.stages = {}

    @contextlib.contextmanager
    def stage(self, name):
        print("\n--- {} ---".format(name), flush=True)
        t = time.perf_counter()
        try:
            yield
        finally:
            self.stages[name] = round(time.perf_counter() - t, 3)
            print("    ({:.2f} s)".format(self.stages[name]), flush=True)

    def total(self):
        return round(time.perf_counter() - self.t0, 3)


def read_arrow(table, columns, predicate=None, ranges=None):
    rb = table.new_read_builder().with_projection(columns)
    if predicate is not None:
        rb = rb.with_filter(predicate)
    scan = rb.new_scan()
    if ranges is not None:
        scan = scan.with_row_ranges(ranges)
    return rb.new_read().to_arrow(scan.plan().splits())


def count(table, predicate):
    return read_arrow(table, ["_ROW_ID"], predicate).num_rows


# ------------------------------------------------------------------ 1. ingest

def ingest(catalog, cfg, resume):
    catalog.create_database("ml", True)
    if resume and TABLE.split(".")[1] in catalog.list_tables("ml"):
        table = catalog.get_table(TABLE)
        if TAG in table.list_tags():                   # tagged right after a complete ingest
            print("table {} exists: resuming, nothing ingested".format(TABLE))
            return table, None
        print("table {} exists without tag {}: its ingest did not finish, starting over".format(TABLE, TAG))
    catalog.drop_table(TABLE, True)                    # a fresh run starts from scratch
    catalog.create_table(TABLE, SCHEMA, False)
    table = catalog.get_table(TABLE)

    docs, available = sources.man_documents(cfg["man_pages"])
    if len(docs) < cfg["man_pages"]:
        print("note: {} man pages wanted, {} usable on this machine".format(cfg["man_pages"], len(docs)))
    if len(docs) < 2 * cfg["nlist"]:
        sys.exit("only {} man pages under {}: install some (apt-get install manpages manpages-dev)"
                 .format(len(docs), sources.MAN_ROOT))
    vec_type = pa.list_(pa.float32(), embed.DIM)
    chunk = cfg["ingest_chunk"]
    for lo in range(0, len(docs), chunk):             # one commit per chunk: one row-id file group each
        part = docs[lo:lo + chunk]
        n = len(part)
        write(table, pa.table({
            "id": pa.array(range(lo, lo + n), pa.int64()),
            "kind": ["man"] * n,
            "name": [d["name"] for d in part],
            "section": [d["section"] for d in part],
            "title": [d["title"] for d in part],
            "text": [d["text"] for d in part],
            "payload": pa.array([d["payload"] for d in part], pa.large_binary()),
            "n_bytes": pa.array([len(d["payload"]) for d in part], pa.int32()),
            "label": pa.nulls(n, pa.int32()),
            "split": ["test" if (lo + i) % 5 == 0 else "train" for i in range(n)],
            "embedding": pa.nulls(n, vec_type),
        }))
    print("man pages: {} rows in {} commits ({:.1f} MB of troff, {:.1f} MB of text)".format(
        len(docs), -(-len(docs) // chunk), sum(len(d["payload"]) for d in docs) / 1e6,
        sum(len(d["text"]) for d in docs) / 1e6))

    digits = sources.digit_images()
    n = len(digits)
    write(table, pa.table({
        "id": pa.array(range(n), pa.int64()),
        "kind": ["digit"] * n,
        "name": ["digit-%04d" % i for i in range(n)],
        "section": pa.nulls(n, pa.string()),
        "title": ["handwritten digit %d" % lab for _, lab in digits],
        "text": pa.nulls(n, pa.string()),
        "payload": pa.array([png for png, _ in digits], pa.large_binary()),
        "n_bytes": pa.array([len(png) for png, _ in digits], pa.int32()),
        "label": pa.array([lab for _, lab in digits], pa.int32()),
        "split": ["test" if i % 5 == 0 else "train" for i in range(n)],
        "embedding": pa.nulls(n, vec_type),
    }))
    print("digits: {} PNG images (8x8, labels 0-9) in 1 commit".format(n))
    return catalog.get_table(TABLE), available


def write(table, data):
    wb = table.new_batch_write_builder()
    with wb.new_write() as w, wb.new_commit() as c:
        w.write_arrow(data)
        c.commit(w.prepare_commit())


# ------------------------------------------------------------------ 3. embed

def start_ray(cfg, catalog_options):
    import ray
    here = os.path.dirname(os.path.abspath(__file__))
    # a private local cluster: its workers inherit this environment and import
    # mmdemo (and paimonc) as this process does
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in [here, os.environ.get("PYTHONPATH", "")] if p)
    cores = os.cpu_count() or 2
    ray.init(address="local", num_cpus=cores, include_dashboard=False, log_to_driver=False,
             logging_level=logging.WARNING)
    _quiet_ray_data()
    workers = max(1, min(cfg["workers"], cores))
    # Half a CPU each: the actors stay alive through the back-fill, and the
    # Ray tasks of update_by_row_id still find a CPU to run on.
    actor = ray.remote(num_cpus=0.5)(embed.Embedder)
    actors = [actor.remote(catalog_options, TABLE, cfg["max_seq_length"], max(1, cores // workers))
              for _ in range(workers)]
    ray.get([a.ready.remote() for a in actors])        # the model is loaded once per worker
    return ray, actors


def _quiet_ray_data():
    import ray.data
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    for attr in ("print_on_execution_start", "enable_operator_progress_bars"):
        if hasattr(ctx, attr):
            setattr(ctx, attr, False)
    for name in ("ray", "ray.data", "ray.data._internal"):
        logging.getLogger(name).setLevel(logging.WARNING)


def backfill(ray, actors, table, cfg, catalog_options, stop_after):
    pb = table.new_read_builder().new_predicate_builder()
    man = pb.equal("kind", "man")
    already = count(table, PredicateBuilder.and_predicates([man, pb.is_not_null("embedding")]))
    if already:
        print("resuming: {} man pages already have an embedding and are skipped".format(already))
    st = {"batches": 0, "commits": 0, "empty_batches": 0, "embedded": 0, "embed_seconds": 0.0,
          "commit_seconds": 0.0}

    def process(ranges):                                 # one batch: whole row-id file groups
        st["batches"] += 1
        t = time.perf_counter()
        pairs = [(r.from_, r.to) for r in ranges]
        shares = embed.split_ranges(pairs, len(actors))
        parts = ray.get([a.embed_ranges.remote(s) for a, s in zip(actors, shares)])
        src = pa.concat_tables([p for p in parts if p.num_rows]) if any(p.num_rows for p in parts) else None
        if src is None:
            st["empty_batches"] += 1
            print("  batch {}: rows {}..{}: nothing to embed".format(st["batches"], pairs[0][0], pairs[-1][1]))
            return
        t_embed = time.perf_counter() - t
        st["embed_seconds"] += t_embed
        t = time.perf_counter()
        res = update_by_row_id(TABLE, src, catalog_options, update_cols=["embedding"])
        t_commit = time.perf_counter() - t
        st["commit_seconds"] += t_commit
        st["commits"] += 1
        st["embedded"] += res["num_updated"]
        print("  batch {}: rows {}..{}: {} read + embedded in {:.1f} s, update_by_row_id committed in {:.1f} s"
              .format(st["batches"], pairs[0][0], pairs[-1][1], res["num_updated"], t_embed, t_commit), flush=True)
        if stop_after and st["commits"] >= stop_after:
            raise BackfillInterrupted("stopped after {} committed batches (--stop-after-batches)".format(
                st["commits"]))

    t = time.perf_counter()
    process_row_id_ranges(TABLE, catalog_options, rows_per_commit=cfg["rows_per_commit"], processor=process)
    secs = time.perf_counter() - t
    non_null = count(table, PredicateBuilder.and_predicates([man, pb.is_not_null("embedding")]))
    return {"backend": BACKFILL_BACKEND, "workers": len(actors), "max_seq_length": cfg["max_seq_length"],
            "rows_per_commit": cfg["rows_per_commit"], "batches": st["batches"], "commits": st["commits"],
            "empty_batches": st["empty_batches"], "embedded_this_run": st["embedded"], "skipped_rows": already,
            "non_null_after": non_null, "seconds": round(secs, 3),
            "embed_seconds": round(st["embed_seconds"], 3), "commit_seconds": round(st["commit_seconds"], 3),
            "rows_per_second": st["embedded"] / secs if secs else 0.0}


# ------------------------------------------------------------------ 4. index

def build_indexes(table, cfg, tm):
    out = {}
    with tm.stage("4a index: ivf-flat on embedding"):
        out["ivf-flat"] = table.create_global_index(
            "embedding", "ivf-flat", partitions={"kind": "man"},
            options={"nlist": str(cfg["nlist"]), "distance.metric": "inner_product"})
    with tm.stage("4b index: btree on section"):
        out["btree"] = table.create_global_index("section", "btree")
    with tm.stage("4c index: full-text on text"):
        out["full-text"] = table.create_global_index("text", "full-text", partitions={"kind": "man"})
    for ix in table.list_global_indexes():
        print("  {:<9} on {:<9} rows {}..{} ({} rows, {:.1f} KB)".format(
            ix["index_type"], ix["index_field_name"], ix["row_range_start"], ix["row_range_end"],
            ix["row_count"], ix["file_size"] / 1e3))
    return out


# ------------------------------------------------------------------ 5. search

def hits(table, result, limit=5):
    """The rows of a search result, best first."""
    ids = result.row_ids()[:limit]
    if not ids:
        return []
    scores = dict(zip(result.row_ids(), result.scores()))
    rb = table.new_read_builder().with_projection(["_ROW_ID", "name", "section", "title"])
    scan = rb.new_scan().with_global_index_result(result)
    rows = {r["_ROW_ID"]: r for r in rb.new_read().to_arrow(scan.plan().splits()).to_pylist()}
    return [dict(rows[i], score=float(scores[i])) for i in ids if i in rows]


def recall_curve(table, actors, ray, cfg):
    pb = table.new_read_builder().new_predicate_builder()
    data = read_arrow(table, ["_ROW_ID", "title", "section", "embedding"],
                      PredicateBuilder.and_predicates([pb.equal("kind", "man"), pb.is_not_null("embedding")]))
    ids = np.asarray(data.column("_ROW_ID").to_pylist(), np.int64)
    emb = np.asarray(data.column("embedding").combine_chunks().flatten(), np.float32).reshape(-1, embed.DIM)
    titles = data.column("title").to_pylist()
    rng = np.random.default_rng(0)
    qi = rng.choice(len(titles), size=min(cfg["queries"], len(titles)), replace=False)
    q = ray.get(actors[0].embed_texts.remote([titles[i] for i in qi]))   # the page summaries as queries

    t = time.perf_counter()
    scores = q @ emb.T                                   # exact: inner product of unit vectors (= cosine)
    exact = np.argsort(-scores, axis=1, kind="stable")[:, :K]
    exact_ms = (time.perf_counter() - t) * 1000 / len(q)
    exact_ids = [set(ids[row]) for row in exact]

    def search(nprobe):
        return (table.new_batch_vector_search_builder().with_vector_column("embedding").with_query_vectors(q)
                .with_limit(K).with_option("ivf.nprobe", str(nprobe)).execute_batch_local())

    search(1)                                            # warm: opens the index file
    curve = []
    for nprobe in [p for p in cfg["nprobes"] if p <= cfg["nlist"]]:
        t = time.perf_counter()
        res = search(nprobe)
        ms = (time.perf_counter() - t) * 1000 / len(q)
        rec = float(np.mean([len(set(r.row_ids()) & e) / K for r, e in zip(res, exact_ids)]))
        curve.append({"nprobe": nprobe, "recall": round(rec, 4), "ms_per_query": round(ms, 4)})
        print("  nprobe {:>3}: recall@{} {:.4f}  {:.3f} ms/query".format(nprobe, K, rec, ms))
    return {"k": K, "queries": len(q), "nlist": cfg["nlist"], "recall_curve": curve,
            "exact_ms_per_query": round(exact_ms, 4)}, (ids, emb, data.column("section").to_pylist())


def example_searches(table, actors, ray, cfg, exact_data):
    ids, emb, sections = exact_data
    queries = ["how do I compress a file", "show the network interfaces of this machine",
               "allocate memory for an array"]
    qv = ray.get(actors[0].embed_texts.remote(queries))
    nprobe = str(max(p for p in cfg["nprobes"] if p <= cfg["nlist"]) // 2 or 1)
    out = []

    r = (table.new_vector_search_builder().with_vector_column("embedding").with_query_vector(qv[0])
         .with_limit(5).with_option("ivf.nprobe", nprobe).execute_local())
    out.append({"kind": "semantic (ivf-flat, nprobe {})".format(nprobe), "query": queries[0], "hits": hits(table, r)})

    ft = "network interface"
    r = table.new_full_text_search_builder().with_query("text", ft).with_limit(5).execute_local()
    out.append({"kind": "full-text (BM25)", "query": ft, "hits": hits(table, r)})

    r = (table.new_hybrid_search_builder()
         .add_vector_route("embedding", qv[1], limit=20, options={"ivf.nprobe": nprobe})
         .add_full_text_route("text", ft, limit=20).with_rrf_ranker().with_limit(5).execute_local())
    out.append({"kind": "hybrid (vector + full-text, RRF)", "query": "{} | {}".format(queries[1], ft),
                "hits": hits(table, r)})

    pb = table.new_read_builder().new_predicate_builder()
    r = (table.new_vector_search_builder().with_vector_column("embedding").with_query_vector(qv[2])
         .with_limit(5).with_filter(pb.equal("section", "3")).execute_local())
    h = hits(table, r)
    # the true top 5 among section-3 pages, by brute force
    mask = np.asarray([s == "3" for s in sections])
    sc = emb[mask] @ qv[2]
    truth = set(ids[mask][np.argsort(-sc, kind="stable")[:5]].tolist())
    same = len(truth & set(r.row_ids()))
    out.append({"kind": "filtered (vector + section = '3', btree)", "query": queries[2], "hits": h,
                "all_in_section": all(x["section"] == "3" for x in h), "exact_overlap": same,
                "note": "all hits in section 3: {}; {} of 5 are the exact top 5 among section-3 pages".format(
                    all(x["section"] == "3" for x in h), same)})
    return out


# ------------------------------------------------------------------ 6. train

def train_digits(table, cfg):
    import torch
    from torch.utils.data import DataLoader
    torch.manual_seed(0)
    torch.set_num_threads(1)                             # a tiny model: threads would only wait on each other
    tagged = table.copy({"scan.tag-name": TAG})          # the release, whatever happened since
    pb = tagged.new_read_builder().new_predicate_builder()

    def dataset(split, shuffle):
        rb = (tagged.new_read_builder().with_projection(["payload", "label"])
              .with_filter(PredicateBuilder.and_predicates([pb.equal("kind", "digit"), pb.equal("split", split)])))
        splits = rb.new_scan().plan().splits()
        return rb.new_read().to_torch(splits, streaming=True, batch_format="torch", batch_size=64,
                                      shuffle=shuffle, seed=7, buffer_size=2000)

    def tensors(batch):                                   # BLOB PNGs -> pixels
        x = np.stack([sources.decode_png(b) for b in batch["payload"]]).reshape(-1, 64)
        return torch.from_numpy(x), batch["label"].long()

    train_ds = dataset("train", True)
    test_ds = dataset("test", False)
    hidden = 64
    model = torch.nn.Sequential(torch.nn.Linear(64, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 10))
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    loader = DataLoader(train_ds, batch_size=None)
    for epoch in range(cfg["epochs"]):
        train_ds.set_epoch(epoch)
        total, seen = 0.0, 0
        for batch in loader:
            x, y = tensors(batch)
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            total += loss.item() * len(y)
            seen += len(y)
        if epoch in (0, cfg["epochs"] - 1) or (epoch + 1) % 10 == 0:
            print("  epoch {:>2}: loss {:.4f} over {} images".format(epoch + 1, total / seen, seen))
    correct = tested = 0
    with torch.no_grad():
        for batch in DataLoader(test_ds, batch_size=None):
            x, y = tensors(batch)
            correct += int((model(x).argmax(1) == y).sum())
            tested += len(y)
    acc = correct / tested
    print("  test accuracy {:.3f} on {} held-out images".format(acc, tested))
    return {"hidden": hidden, "epochs": cfg["epochs"], "train_rows": seen, "test_rows": tested,
            "test_accuracy": round(acc, 4), "final_loss": round(total / seen, 4)}


# ------------------------------------------------------------------ main

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("warehouse", nargs="?", default="warehouse")
    ap.add_argument("--small", action="store_true", help="test size: 240 pages, tens of seconds")
    ap.add_argument("--resume", action="store_true", help="keep the table of an earlier run and go on from there")
    ap.add_argument("--stop-after-batches", type=int,
                    default=int(os.environ.get("PAIMONC_DEMO_STOP_AFTER_BATCHES", "0") or 0),
                    help="stop the back-fill after N committed batches, as a killed run would "
                         "(env PAIMONC_DEMO_STOP_AFTER_BATCHES)")
    ap.add_argument("--png", help="report plot (default: WAREHOUSE/report/multimodal_pipeline.png)")
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore", category=FutureWarning)

    mode = "small" if args.small else "default"
    cfg = SIZES[mode]
    wh = os.path.abspath(args.warehouse)
    png = os.path.abspath(args.png or os.path.join(wh, "report", "multimodal_pipeline.png"))
    catalog_options = {"warehouse": wh}
    catalog = paimonc.CatalogFactory.create(catalog_options)
    tm = Timings()
    print("paimonc {} (libpaimonc {}), {} mode, warehouse {}".format(
        paimonc.__version__, paimonc.library_version(), mode, wh))

    with tm.stage("1 ingest: render + write BLOBs"):
        table, available = ingest(catalog, cfg, args.resume)
    with tm.stage("2 tag the release"):
        table.create_tag(TAG, ignore_if_exists=True)
        tag_snapshot = table.tag_snapshot(TAG).id
        print("tag {} -> snapshot {}".format(TAG, tag_snapshot))

    with tm.stage("3a Ray start + model load"):
        ray, actors = start_ray(cfg, catalog_options)
    try:
        with tm.stage("3b embed: Ray back-fill"):
            try:
                bf = backfill(ray, actors, catalog.get_table(TABLE), cfg, catalog_options, args.stop_after_batches)
            except BackfillInterrupted as e:
                print("INTERRUPTED: {}; run again with --resume to finish".format(e))
                return 3
        table = catalog.get_table(TABLE)
        n_index = build_indexes(table, cfg, tm)
        with tm.stage("5a search: recall curve"):
            search, exact_data = recall_curve(table, actors, ray, cfg)
        with tm.stage("5b search: semantic, full-text, hybrid, filtered"):
            search["examples"] = example_searches(table, actors, ray, cfg, exact_data)
    finally:
        ray.shutdown()
    with tm.stage("6 train from the tag (to_torch)"):
        training = train_digits(table, cfg)

    with tm.stage("7 report + plot"):
        stats = read_arrow(table, ["kind", "n_bytes"]).to_pydict()
        kinds = np.asarray(stats["kind"])
        nbytes = np.asarray(stats["n_bytes"], np.int64)
        pb = table.new_read_builder().new_predicate_builder()
        tagged = table.copy({"scan.tag-name": TAG})
        r = {
            "mode": mode, "warehouse": wh, "table": TABLE, "png": png,
            "json": os.path.splitext(png)[0] + ".json",
            "snapshots": len(table.snapshot_ids()),
            "rows": {"total": int(len(kinds)), "man": int((kinds == "man").sum()),
                     "digit": int((kinds == "digit").sum()),
                     "man_available": available if available is not None else len(sources.list_man_pages()),
                     "man_payload_bytes": int(nbytes[kinds == "man"].sum()),
                     "digit_payload_bytes": int(nbytes[kinds == "digit"].sum())},
            "tag": {"name": TAG, "snapshot": tag_snapshot,
                    "embedded_in_tag": count(tagged, pb.is_not_null("embedding")),
                    "embedded_now": count(table, pb.is_not_null("embedding"))},
            "indexes": n_index, "backfill": bf, "search": search, "training": training,
        }
        r["timings"] = dict(tm.stages)
        r["total_seconds"] = tm.total()
        report.plot(r, png)
    r["timings"] = dict(tm.stages)
    r["total_seconds"] = tm.total()
    report.write_json(r, r["json"])
    report.print_report(r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
