#!/usr/bin/env bash
# The corpus results in one command (as root: corpus.py needs network/mount namespaces):
#
#   sudo -E bash bench/jmeter/run-corpora.sh [CORPUS_ROOT]     # default /work/shared/corpus
#
# Builds stampede in release (CARGO_TARGET_DIR, default /tmp/oracle-target) unless STAMPEDE names
# a binary, assembles JMeter with plugins (fetch-jmeter.sh --full) if missing, then writes to
# bench/jmeter/results/: sunbird-differential.{md,tsv}, public-differential.{md,tsv} (corpus.py,
# two plans at a time, 90 s per tool per plan) and sunbird-coverage.{md,tsv},
# public-coverage.{md,tsv} (coverage.py; the public one leaves out the plans JMeter refused).
# RESULTS_DIR=DIR writes there instead. Everything runs under `nice`. About 45 min on a busy 2-core machine.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
CORPUS="${1:-/work/shared/corpus}"
OUT="${RESULTS_DIR:-$HERE/results}"
mkdir -p "$OUT"
if [[ -z "${STAMPEDE:-}" ]]; then
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/oracle-target}"
  (cd "$REPO" && nice cargo build --release -q)
  export STAMPEDE="$CARGO_TARGET_DIR/release/stampede"
fi
bash "$HERE/fetch-jmeter.sh" --full > /dev/null
cd "$REPO"
nice python3 bench/jmeter/corpus.py "$CORPUS/sunbird-perf-tests" --sets tests/corpus/sets.tsv \
  --out "$OUT/sunbird-differential.md" > /dev/null
nice python3 bench/jmeter/corpus.py "$CORPUS/public-jmx" --out "$OUT/public-differential.md" > /dev/null
nice python3 bench/jmeter/coverage.py "$CORPUS/sunbird-perf-tests" --sets tests/corpus/sets.tsv \
  --jmeter-tsv "$OUT/sunbird-differential.tsv" --out "$OUT/sunbird-coverage.md" > /dev/null
nice python3 bench/jmeter/coverage.py "$CORPUS/public-jmx" --jmeter-tsv "$OUT/public-differential.tsv" \
  --out "$OUT/public-coverage.md" > /dev/null
grep -h -m3 -E '^\*\*|^[0-9]+ plans:|^Of the|\*\*[0-9.]+%\*\*' "$OUT"/*.md || true
