#!/usr/bin/env bash
# The main job: an AI-data pipeline on a local Paimon warehouse, driven by
# paimonc. Installs its own dependencies on a fresh Debian 12 machine (root).
# Today it creates a warehouse, a database and a partitioned multimodal
# training-data table, evolves it, and describes it from Python and from the
# paimonc CLI; pypaimon then opens the same table to show interoperability.
# Usage: scripts/demo.sh [WAREHOUSE_DIR]   (default: ./warehouse)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
wh=${1:-$root/warehouse}
"$root/scripts/deps.sh" apt
"$root/scripts/deps.sh" python
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$root/build" paimonc >/dev/null
"$root/.venv/bin/pip" install -q --disable-pip-version-check --no-build-isolation "$root"
cd "$root/examples"
"$root/.venv/bin/python" pipeline.py "$wh"
echo
echo "--- the same table through the paimonc CLI ---"
"$root/build/paimonc" --warehouse "$wh" table describe ml.training_samples
echo
"$root/build/paimonc" --warehouse "$wh" schema list ml.training_samples
