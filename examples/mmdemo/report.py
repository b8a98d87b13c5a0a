"""The pipeline's closing report: text on stdout, a PNG (stage timings and
the IVF-FLAT recall curve) and a JSON of every number (tests read it)."""
import json
import os


def _fmt_s(s):
    return "{:7.2f} s".format(s)


def print_report(r, out=print):
    out("")
    out("=" * 78)
    out("multimodal pipeline report  ({} mode, warehouse {})".format(r["mode"], r["warehouse"]))
    out("=" * 78)
    rows = r["rows"]
    out("table {}: {} rows ({} man pages of {} on this machine, {} digit images), {} snapshots"
        .format(r["table"], rows["total"], rows["man"], rows["man_available"], rows["digit"], r["snapshots"]))
    out("  payload BLOBs: {:.1f} MB of troff sources, {:.1f} KB of PNGs"
        .format(rows["man_payload_bytes"] / 1e6, rows["digit_payload_bytes"] / 1e3))
    out("  tag {} = snapshot {} (before the embeddings: {} non-null there, {} now)"
        .format(r["tag"]["name"], r["tag"]["snapshot"], r["tag"]["embedded_in_tag"], r["tag"]["embedded_now"]))
    out("")
    out("stage timings")
    for name, s in r["timings"].items():
        out("  {:<34} {}".format(name, _fmt_s(s)))
    out("  {:<34} {}".format("total", _fmt_s(r["total_seconds"])))
    b = r["backfill"]
    out("")
    out("embedding back-fill ({}, {} Ray embedding actor(s), max_seq_length {}, {} rows per commit)".format(
        b["backend"], b["workers"], b["max_seq_length"], b["rows_per_commit"]))
    out("  this run: {} rows embedded over {} batches, {} commit(s): {:.1f} rows/s overall"
        .format(b["embedded_this_run"], b["batches"], b["commits"], b["rows_per_second"]))
    out("  time: reading + embedding {:.1f} s, update_by_row_id commits {:.1f} s".format(
        b["embed_seconds"], b["commit_seconds"]))
    out("  skipped, already embedded by an earlier run: {} rows; batches with nothing to do: {}"
        .format(b["skipped_rows"], b["empty_batches"]))
    out("  embeddings now non-null: {} of {} man pages".format(b["non_null_after"], rows["man"]))
    out("")
    s = r["search"]
    out("IVF-FLAT recall@{} against exact (numpy) search, {} queries, nlist {}".format(
        s["k"], s["queries"], s["nlist"]))
    out("  {:>7}  {:>9}  {:>11}".format("nprobe", "recall", "ms/query"))
    for p in s["recall_curve"]:
        out("  {:>7}  {:>9.4f}  {:>11.3f}".format(p["nprobe"], p["recall"], p["ms_per_query"]))
    out("  exact search: {:.3f} ms/query (numpy, {} x {} matrix)".format(s["exact_ms_per_query"], rows["man"], 384))
    for ex in s["examples"]:
        out("")
        out("{}: {}".format(ex["kind"], ex["query"]))
        for h in ex["hits"]:
            out("  {:>8.4f}  {:<34} {}".format(h["score"], "{}({})".format(h["name"], h["section"])[:34],
                                               h["title"][:60]))
        if ex.get("note"):
            out("  " + ex["note"])
    t = r["training"]
    out("")
    out("digits classifier (MLP 64-{}-10, {} epochs) trained from tag {} through TableRead.to_torch"
        .format(t["hidden"], t["epochs"], r["tag"]["name"]))
    out("  train {} images, held-out test {} images: test accuracy {:.3f} (chance 0.1), final loss {:.3f}"
        .format(t["train_rows"], t["test_rows"], t["test_accuracy"], t["final_loss"]))
    out("")
    out("plot: {}".format(r["png"]))
    out("json: {}".format(r["json"]))


def write_json(r, path):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        json.dump(r, f, indent=2, sort_keys=False)


def plot(r, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5), gridspec_kw={"width_ratios": [1.2, 1]})
    names = list(r["timings"])
    secs = [r["timings"][n] for n in names]
    ax1.barh(names[::-1], secs[::-1], color="#4c72b0")
    for y, v in enumerate(secs[::-1]):
        ax1.text(v, y, " {:.1f}s".format(v), va="center", fontsize=8)
    ax1.set_xlabel("seconds")
    ax1.set_title("stage timings ({} mode, {:.0f} s total)".format(r["mode"], r["total_seconds"]))
    ax1.margins(x=0.15)

    curve = r["search"]["recall_curve"]
    xs = [p["nprobe"] for p in curve]
    ax2.plot(xs, [p["recall"] for p in curve], "o-", color="#dd8452", label="recall@{}".format(r["search"]["k"]))
    ax2.set_xscale("log", base=2)
    ax2.set_xticks(xs)
    ax2.set_xticklabels([str(x) for x in xs])
    ax2.set_ylim(0, 1.02)
    ax2.set_xlabel("ivf.nprobe (of nlist {})".format(r["search"]["nlist"]))
    ax2.set_ylabel("recall vs exact search")
    ax2.grid(alpha=0.3)
    ax3 = ax2.twinx()
    ax3.plot(xs, [p["ms_per_query"] for p in curve], "s--", color="#55a868", label="ms / query")
    ax3.set_ylabel("ms / query (batch search)")
    ax3.set_ylim(0, max(p["ms_per_query"] for p in curve) * 1.15 or 1)
    lines = ax2.get_lines() + ax3.get_lines()
    ax2.legend(lines, [ln.get_label() for ln in lines], loc="lower right")
    ax2.set_title("IVF-FLAT on {} man-page embeddings".format(r["rows"]["man"]))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
