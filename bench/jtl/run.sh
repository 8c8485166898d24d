#!/usr/bin/env bash
# Importing a JMeter results file: stampede's read speed against the disk's, its memory against
# the file's size, and its time against JMeter's own report generator on the same rows.
#
#   bash bench/jtl/run.sh                     # a 3 GiB file; builds stampede; JMeter if assembled
#   SIZE=1G JMETER_ROWS=0 bash bench/jtl/run.sh
#
# | variable      | default                                   | meaning                                   |
# | SIZE          | 3G                                        | size of the generated results file        |
# | WORK          | /tmp/stampede-bench-jtl                   | where the files go (reused between runs)  |
# | STAMPEDE      | build with cargo build --release          | the binary to measure                     |
# | JMETER_HOME   | ~/.cache/stampede/jmeter-5.6.3            | bench/jmeter/fetch-jmeter.sh assembles it |
# | JMETER_ROWS   | 1000000                                   | rows given to `jmeter -g` (0: skip it)    |
# | RUN_DIR       | bench/runs/<date>-<host>                  | where jtl.md is written                   |
#
# "Cold" runs drop the page cache first (needs root; skipped otherwise). Nothing here touches
# the network.
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZE="${SIZE:-3G}"
WORK="${WORK:-/tmp/stampede-bench-jtl}"
JMETER_HOME="${JMETER_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/stampede/jmeter-5.6.3}"
JMETER_ROWS="${JMETER_ROWS:-1000000}"
RUN_DIR="${RUN_DIR:-bench/runs/$(date -u +%Y-%m-%d)-$(hostname)}"
mkdir -p "$WORK" "$RUN_DIR"
log() { echo "bench/jtl: $*" >&2; }

if [ -z "${STAMPEDE:-}" ]; then
  cargo build --release --locked >&2
  STAMPEDE=target/release/stampede
fi
command -v /usr/bin/time >/dev/null || { log "needs /usr/bin/time (apt-get install -y time)"; exit 1; }

FILE="$WORK/soak-$SIZE.jtl"
if [ ! -s "$FILE" ]; then
  log "generating $FILE"
  python3 bench/jtl/gen_jtl.py "$FILE.tmp" "$SIZE" && mv "$FILE.tmp" "$FILE"
fi
BYTES=$(stat -c %s "$FILE")
ROWS=$(( $(wc -l < "$FILE") - 1 ))
MIB=$(awk -v b="$BYTES" 'BEGIN { printf "%.0f", b / 1048576 }')

can_drop() { [ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/drop_caches ]; }
drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# timed LABEL CMD...: runs CMD, appends "LABEL seconds peak_kib" to $WORK/times.
timed() {
  local label="$1"; shift
  /usr/bin/time -f "%e %M" -o "$WORK/one" "$@" >/dev/null
  echo "$label $(cat "$WORK/one")" >> "$WORK/times"
  log "$label: $(cat "$WORK/one") (s, KiB)"
}
: > "$WORK/times"

if can_drop; then
  drop; timed dd_cold dd if="$FILE" of=/dev/null bs=4M status=none
  timed dd_direct dd if="$FILE" of=/dev/null bs=4M iflag=direct status=none
  drop; timed stampede_cold "$STAMPEDE" report "$FILE" --format json -o /dev/null
else
  log "not root: cold-cache runs skipped"
fi
timed dd_warm dd if="$FILE" of=/dev/null bs=4M status=none
for i in 1 2 3; do timed "stampede_warm_$i" "$STAMPEDE" report "$FILE" --format json -o /dev/null; done
timed stampede_html "$STAMPEDE" report "$FILE" --format html -o "$WORK/report.html"

# Flat memory: a tenth of the file.
head -n $((ROWS / 10 + 1)) "$FILE" > "$WORK/tenth.jtl"
timed stampede_tenth "$STAMPEDE" report "$WORK/tenth.jtl" --format json -o /dev/null

# Beside JMeter's report generator on the same rows.
if [ "$JMETER_ROWS" -gt 0 ] && [ -f "$JMETER_HOME/bin/ApacheJMeter.jar" ]; then
  head -n $((JMETER_ROWS + 1)) "$FILE" > "$WORK/slice.jtl"
  timed stampede_slice "$STAMPEDE" report "$WORK/slice.jtl" --format html -o "$WORK/slice.html"
  rm -rf "$WORK/jmeter-report"
  timed jmeter_slice java -jar "$JMETER_HOME/bin/ApacheJMeter.jar" -g "$WORK/slice.jtl" -o "$WORK/jmeter-report" \
    -j "$WORK/jmeter.log"
  [ -s "$WORK/jmeter-report/index.html" ] || { log "JMeter wrote no report: see $WORK/jmeter.log"; exit 1; }
else
  log "JMeter skipped (JMETER_ROWS=0 or no $JMETER_HOME: bash bench/jmeter/fetch-jmeter.sh)"
fi

get() { awk -v k="$1" -v f="$2" '$1 == k { print $f }' "$WORK/times"; }
median_warm=$(for i in 1 2 3; do get "stampede_warm_$i" 2; done | sort -n | sed -n 2p)
rss_warm=$(for i in 1 2 3; do get "stampede_warm_$i" 3; done | sort -n | tail -1)
rate() { awk -v b="$BYTES" -v s="$1" 'BEGIN { if (s > 0) printf "%.0f", b / 1048576 / s; else print "-" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }'; }
{
  echo "# Importing a JMeter results file ($(date -u +%Y-%m-%d), $(hostname), $(nproc) cores)"
  echo
  echo "File: $MIB MiB, $ROWS rows (bench/jtl/gen_jtl.py: 9 labels, 600 threads). Command:"
  echo "\`stampede report FILE --format json -o /dev/null\`; times by /usr/bin/time."
  echo
  echo "| read | seconds | MiB/s | peak memory |"
  echo "|:--|--:|--:|--:|"
  for k in dd_direct dd_cold stampede_cold dd_warm; do
    s=$(get "$k" 2); [ -n "$s" ] || continue
    echo "| $k | $s | $(rate "$s") | $(( $(get "$k" 3) / 1024 )) MiB |"
  done
  echo "| stampede_warm (median of 3) | $median_warm | $(rate "$median_warm") | $((rss_warm / 1024)) MiB |"
  echo "| stampede_html | $(get stampede_html 2) | $(rate "$(get stampede_html 2)") | $(( $(get stampede_html 3) / 1024 )) MiB |"
  echo
  if [ -n "$(get stampede_cold 2)" ]; then
    echo "- From a cold cache, stampede reads at $(ratio "$(get dd_cold 2)" "$(get stampede_cold 2)")x the speed of \`dd\` reading the same file, and $(ratio "$(get dd_direct 2)" "$(get stampede_cold 2)")x the disk's own speed (\`dd iflag=direct\`)."
  fi
  echo "- From the page cache: $(ratio "$(get dd_warm 2)" "$median_warm")x \`dd\`'s speed."
  echo "- Memory: $(( $(get stampede_tenth 3) / 1024 )) MiB for a tenth of the file, $((rss_warm / 1024)) MiB for all of it: it does not grow with the file."
  if [ -n "$(get jmeter_slice 2)" ]; then
    echo
    echo "Beside JMeter 5.6.3's report generator on the first $JMETER_ROWS rows (both write an HTML report):"
    echo
    echo "| tool | seconds | peak memory |"
    echo "|:--|--:|--:|"
    echo "| \`jmeter -g slice.jtl -o DIR\` | $(get jmeter_slice 2) | $(( $(get jmeter_slice 3) / 1024 )) MiB |"
    echo "| \`stampede report slice.jtl --format html\` | $(get stampede_slice 2) | $(( $(get stampede_slice 3) / 1024 )) MiB |"
    echo
    echo "stampede: $(ratio "$(get jmeter_slice 2)" "$(get stampede_slice 2)")x faster, $(ratio "$(get jmeter_slice 3)" "$(get stampede_slice 3)")x less memory."
  fi
} > "$RUN_DIR/jtl.md"
cat "$RUN_DIR/jtl.md"
