#!/usr/bin/env bash
# The run directory of a long soak, built without running one (examples/soak_log.rs: HOURS
# hours of one-second intervals, 9 labels, ~11,600 samples a second drawn one by one, written
# through the run's own writer), twice (two seeds); then its size on disk and the wall time of
# `report`, `report --every 1h` and `compare` of the two. Issue 16's goals for 60 hours: ≤ 1 GB,
# report ≤ 10 s, compare ≤ 20 s. Writes $OUT/results.md. No network at all.
set -euo pipefail
cd "$(dirname "$0")/../.."
HOURS=${HOURS:-60}
OUT=${OUT:-bench/runs/$(date -u +%Y-%m-%d)-soak-log}
WORK=${WORK:-$(mktemp -d)}
cargo build --release --quiet --example soak_log
cargo build --release --quiet
mkdir -p "$OUT"
trap 'rm -rf "$WORK"' EXIT
gen() { /usr/bin/time -f "%e s, %M KiB" target/release/examples/soak_log "$WORK/$1" "$HOURS" 9 11600 "$2" 2>&1 | tail -1; }
timed() { /usr/bin/time -f "%e s, %M KiB peak" "$@" 2>&1 >/dev/null | tail -1; }
g1=$(gen a 1)
g2=$(gen b 2)
size=$(du -sb "$WORK/a" | cut -f1)
log=$(stat -c %s "$WORK/a/intervals.jsonl")
r1=$(timed target/release/stampede report "$WORK/a")
r2=$(timed target/release/stampede report "$WORK/a" --every 1h)
r3=$(timed target/release/stampede report "$WORK/a" --format html)
c1=$(timed target/release/stampede compare "$WORK/a" "$WORK/b")
cat >"$OUT/results.md" <<MD
# A ${HOURS}-hour, 9-label run directory (\`HOURS=$HOURS bash bench/soak/log.sh\`)

$(uname -n), $(nproc) CPUs, $(rustc --version).

| what | figure |
|:--|--:|
| build one directory (examples/soak_log) | $g1 |
| run directory on disk | $((size / 1048576)) MiB ($((size / HOURS / 1048576)) MiB per hour) |
| of which intervals.jsonl | $((log / 1048576)) MiB |
| \`report DIR\` (Markdown) | $r1 |
| \`report DIR --every 1h\` | $r2 |
| \`report DIR --format html\` | $r3 |
| \`compare A B\` | $c1 |
MD
cat "$OUT/results.md"
