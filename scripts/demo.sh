#!/usr/bin/env bash
# The main job: an AI-data pipeline on a local Paimon warehouse, driven by
# paimonc. Installs its own dependencies on a fresh Debian 12 machine (root).
# It builds an image-caption training table (ingest, tag, schema evolution,
# a filtered training feed, embedding retrieval, time travel), checks that
# pypaimon reads the same rows, then looks at the table with the paimonc CLI.
# Usage: scripts/demo.sh [WAREHOUSE_DIR]   (default: ./warehouse)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
wh=${1:-$root/warehouse}
"$root/scripts/deps.sh" apt
"$root/scripts/deps.sh" python
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$root/build" paimonc >/dev/null
rm -rf "$root"/build/lib.* "$root"/build/temp.* "$root"/build/bdist.*   # never reuse stale extension objects
"$root/.venv/bin/pip" install -q --disable-pip-version-check --no-build-isolation "$root"
cd "$root/examples"
"$root/.venv/bin/python" pipeline.py "$wh"
echo
echo "--- the same table through the paimonc CLI ---"
cli="$root/build/paimonc --warehouse $wh"
$cli table describe ml.image_captions
echo
$cli snapshots ml.image_captions
echo
$cli read ml.image_captions --where "split = 'val' AND width >= 512" --select sample_id,caption,width,dt --limit 5
