#!/usr/bin/env bash
# The run directory of a long soak, built without running one (examples/soak_log.rs: HOURS
# hours of one-second intervals, 9 labels, ~11,600 samples a second drawn one by one, written
# through the run's own writer), twice (two seeds, side by side); then its size on disk, file by
# file, and the wall time of `report`, `report --every 1h`, `--format html` and `compare` of the
# two, for the finished directory and for the same directory as a killed run leaves it (no
# summary.json: every figure summed from the log). Issue 16's goals for 60 hours: ≤ 1 GB, report
# ≤ 10 s, compare ≤ 20 s. Writes $OUT/results.md. No network at all. WORK=DIR keeps the
# directories there (and reuses them if they are there).
set -euo pipefail
cd "$(dirname "$0")/../.."
HOURS=${HOURS:-60}
OUT=${OUT:-bench/runs/$(date -u +%Y-%m-%d)-soak-log}
if [ -z "${WORK:-}" ]; then
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
cargo build --release --quiet --example soak_log
cargo build --release --quiet
mkdir -p "$OUT"
gen() {
  if [ -f "$WORK/$1/summary.json" ]; then echo "(built before)"; return; fi
  rm -rf "${WORK:?}/$1"
  /usr/bin/time -f "%e s, %M KiB" target/release/examples/soak_log "$WORK/$1" "$HOURS" 9 11600 "$2" 2>&1 | tail -1
}
timed() { /usr/bin/time -f "%e s, %M KiB peak" "$@" 2>&1 >/dev/null | tail -1; }
gen a 1 >"$WORK/gen-a" &
gen b 2 >"$WORK/gen-b" &
wait
g1=$(cat "$WORK/gen-a")
size=$(du -sb "$WORK/a" | cut -f1)
files=$(cd "$WORK/a" && for f in *; do printf '%s %s MiB; ' "$f" "$(($(stat -c %s "$f") / 1048576))"; done)
r1=$(timed target/release/stampede report "$WORK/a")
r2=$(timed target/release/stampede report "$WORK/a" --every 1h)
r3=$(timed target/release/stampede report "$WORK/a" --format html)
c1=$(timed target/release/stampede compare "$WORK/a" "$WORK/b")
# Every figure summed from the log: no summary.json, meta.json as written at the start (a killed
# run also has its tail and lacks its last partial lines: the unit tests cover those states).
rm -rf "$WORK/killed" && cp -r "$WORK/a" "$WORK/killed" && rm "$WORK/killed/summary.json"
sed -i 's/"status": "completed"/"status": "running"/; s/"duration_s": [0-9.]*/"duration_s": null/' "$WORK/killed/meta.json"
k1=$(timed target/release/stampede report "$WORK/killed")
# Every figure of the tables over time, per hour (JSON's last digits differ: floats read back).
same=$(diff <(target/release/stampede report "$WORK/a" --every 1h | grep -v '^| \(Status\|Duration\)') \
  <(target/release/stampede report "$WORK/killed" --every 1h | grep -v '^| \(Status\|Duration\)') >/dev/null && echo the same || echo DIFFERENT)
cat >"$OUT/results.md" <<MD
# A ${HOURS}-hour, 9-label run directory (\`HOURS=$HOURS bash bench/soak/log.sh\`)

$(uname -n), $(nproc) CPUs, $(rustc --version).

| what | figure |
|:--|--:|
| build one directory (examples/soak_log) | $g1 |
| run directory on disk | $((size / 1048576)) MiB ($((size / HOURS / 1048576)) MiB per hour) |
| its files | $files |
| \`report DIR\` (Markdown) | $r1 |
| \`report DIR --every 1h\` | $r2 |
| \`report DIR --format html\` | $r3 |
| \`compare A B\` | $c1 |
| \`report\` of it summing every figure from the log (summary.json removed) | $k1; every figure of \`--every 1h\` $same as the finished run's |
MD
cat "$OUT/results.md"
