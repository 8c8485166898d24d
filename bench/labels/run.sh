#!/usr/bin/env bash
# Peak memory with many labels: `stampede run` of a plan whose mix has LABELS requests, each its
# own label, against `stampede mock`; and `stampede report` of a results file with LABELS labels.
# Side by side: an older stampede binary (BEFORE=path) and oha against the same mock at the same
# request rate (oha has no labels: it is the baseline of a generator that keeps one histogram).
# See bench/README.md.
#
# Usage: bash bench/labels/run.sh
# Environment:
#   LABELS     distinct labels                              (default 10000)
#   DURATION   seconds of each load run                     (default 20)
#   USERS      users of the plan / oha connections          (default 50)
#   ROWS       rows of the generated results file           (default 200000)
#   STAMPEDE   the stampede binary (default: cargo build --release, then target/release/stampede)
#   BEFORE     another stampede binary to measure the same way (e.g. main's), optional
#   BEFORE_RUN 0 = measure BEFORE on the report only (an old binary's run may need GiBs)
#   OHA        the oha binary (default: oha on PATH; skipped when there is none)
#   RUN_DIR    where results go (default bench/runs/<date>-labels)
#
# Traffic stays on 127.0.0.1; every run is bounded by DURATION and, as a hard stop, by
# `timeout DURATION+60s`.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
LABELS=${LABELS:-10000}
DURATION=${DURATION:-20}
USERS=${USERS:-50}
ROWS=${ROWS:-200000}
RUN_DIR=${RUN_DIR:-$ROOT/bench/runs/$(date +%F)-labels}
OHA=${OHA:-$(command -v oha || true)}
HARD_LIMIT=$((DURATION + 60))

log() { printf '[bench] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (apt-get install -y time)"
command -v jq >/dev/null || die "jq not found (apt-get install -y jq)"

if [[ -z ${STAMPEDE:-} ]]; then
    (cd "$ROOT" && cargo build --release --quiet)
    STAMPEDE=$ROOT/target/release/stampede
fi
[[ -x $STAMPEDE ]] || die "no stampede binary at $STAMPEDE"
mkdir -p "$RUN_DIR"
TMP=$(mktemp -d /tmp/stampede-labels.XXXXXX)
MOCK_PID=""
cleanup() {
    [[ -n $MOCK_PID ]] && kill "$MOCK_PID" 2>/dev/null && wait "$MOCK_PID" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

PORT=""
start_mock() { # $1 = log file; sets PORT and MOCK_PID
    PORT=$(free_port)
    "$STAMPEDE" mock --listen "127.0.0.1:$PORT" >"$1" 2>&1 &
    MOCK_PID=$!
    for _ in $(seq 50); do
        (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && return
        sleep 0.1
    done
    die "the mock did not start"
}

SERVED=""
stop_mock() { # $1 = its log; sets SERVED to the count the mock prints when it stops
    kill -TERM "$MOCK_PID" 2>/dev/null || true
    wait "$MOCK_PID" 2>/dev/null || true
    MOCK_PID=""
    SERVED=$(sed -nE 's/.*[Ss]erved[^0-9]*([0-9]+).*/\1/p' "$1" | tail -n1)
}

peak_mib() { awk '{ printf "%.0f", $1 / 1024 }' "$1"; }

declare -a TABLE
row() { TABLE+=("| $* |"); }

run_stampede() { # $1 = name, $2 = binary
    local name=$1 bin=$2 out
    out=$TMP/run-$name
    start_mock "$RUN_DIR/run-$name.mock.log"
    python3 "$SCRIPT_DIR/gen.py" plan "$LABELS" "$PORT" "${DURATION}s" "$USERS" >"$TMP/plan.yaml"
    log "stampede run ($name): $LABELS labels, $USERS users, ${DURATION}s"
    /usr/bin/time -f '%M' -o "$RUN_DIR/run-$name.rss" timeout "$HARD_LIMIT" \
        "$bin" run "$TMP/plan.yaml" --out "$out" --quiet >"$TMP/run-$name.out" 2>&1 || log "exit $? (see run-$name.out)"
    # The table has a row per label: keep its Total, the warnings and the facts after it.
    { grep -E '^warning|^\| Total' "$TMP/run-$name.out" || true; sed -n '/^Run: /,$p' "$TMP/run-$name.out"; } >"$RUN_DIR/run-$name.out"
    stop_mock "$RUN_DIR/run-$name.mock.log"
    local samples rows rps
    samples=$(jq '.total.samples' "$out/summary.json" 2>/dev/null || echo n/a)
    rows=$(jq '.labels | length' "$out/summary.json" 2>/dev/null || echo n/a)
    rps=$(jq '.total.throughput_rps' "$out/summary.json" 2>/dev/null || echo n/a)
    row "stampede run ($name) | $(peak_mib "$RUN_DIR/run-$name.rss") | $rows | $samples | $SERVED | $(printf '%.0f' "$rps")"
    LAST_RPS=$rps
}

run_oha() { # at the rate stampede reached
    local rate
    rate=$(printf '%.0f' "$LAST_RPS")
    start_mock "$RUN_DIR/oha.mock.log"
    log "oha: $USERS connections, ${rate}/s, ${DURATION}s"
    /usr/bin/time -f '%M' -o "$RUN_DIR/oha.rss" timeout "$HARD_LIMIT" \
        "$OHA" --no-tui -c "$USERS" -q "$rate" -z "${DURATION}s" --output-format json \
        "http://127.0.0.1:$PORT/item/1" >"$RUN_DIR/oha.json" 2>"$RUN_DIR/oha.err" || log "oha exit $?"
    stop_mock "$RUN_DIR/oha.mock.log"
    local n rps
    rps=$(jq '.summary.requestsPerSec' "$RUN_DIR/oha.json" 2>/dev/null || echo 0)
    n=$(jq '[.statusCodeDistribution[]] | add' "$RUN_DIR/oha.json" 2>/dev/null || echo n/a)
    row "oha (no labels; baseline) | $(peak_mib "$RUN_DIR/oha.rss") | 1 | $n | $SERVED | $(printf '%.0f' "$rps")"
}

report_jtl() { # $1 = name, $2 = binary
    local name=$1 bin=$2
    log "stampede report ($name): $ROWS rows, $LABELS labels"
    /usr/bin/time -f '%M %e' -o "$RUN_DIR/report-$name.rss" timeout "$HARD_LIMIT" \
        "$bin" report "$TMP/labels.jtl" --format json -o "$TMP/report-$name.json" 2>"$RUN_DIR/report-$name.err" || log "exit $?"
    local rows samples secs
    rows=$(jq '.labels | length' "$TMP/report-$name.json" 2>/dev/null || echo n/a)
    samples=$(jq '.total.samples' "$TMP/report-$name.json" 2>/dev/null || echo n/a)
    secs=$(awk '{ print $2 }' "$RUN_DIR/report-$name.rss")
    RTABLE+=("| stampede report ($name) | $(peak_mib "$RUN_DIR/report-$name.rss") | $rows | $samples | $secs |")
}

report_rundir() { # $1 = name, $2 = binary: `report --format html` of the after run's directory
    local name=$1 bin=$2 secs
    log "stampede report ($name) of the run directory"
    /usr/bin/time -f '%M %e' -o "$RUN_DIR/report-rundir-$name.rss" timeout "$HARD_LIMIT" \
        "$bin" report "$TMP/run-after" --format html -o "$TMP/report-rundir-$name.html" 2>"$RUN_DIR/report-rundir-$name.err" || log "exit $?"
    secs=$(awk '{ print $2 }' "$RUN_DIR/report-rundir-$name.rss")
    RTABLE+=("| stampede report --format html ($name) of the run directory above | $(peak_mib "$RUN_DIR/report-rundir-$name.rss") | | | $secs |")
}

declare -a RTABLE
LAST_RPS=0
run_stampede after "$STAMPEDE"
if [[ -n $OHA && -x $OHA ]]; then run_oha; else log "no oha: skipping the baseline (cargo install oha --locked)"; fi
[[ -n ${BEFORE:-} && ${BEFORE_RUN:-1} != 0 ]] && run_stampede before "$BEFORE"

python3 "$SCRIPT_DIR/gen.py" jtl "$LABELS" "$ROWS" >"$TMP/labels.jtl"
JTL_MB=$(du -m "$TMP/labels.jtl" | cut -f1)
report_jtl after "$STAMPEDE"
[[ -n ${BEFORE:-} ]] && report_jtl before "$BEFORE"
report_rundir after "$STAMPEDE"
[[ -n ${BEFORE:-} ]] && report_rundir before "$BEFORE"

{
    echo "# $LABELS labels: peak memory"
    echo
    echo "$(date -u +%FT%TZ) on $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)), $(free -m | awk '/Mem:/ { print $2 }') MiB RAM"
    echo
    echo "## run: a plan whose mix has $LABELS requests, each its own label, $USERS users, ${DURATION}s against \`stampede mock\`"
    echo
    echo "| generator | peak RSS MiB | label rows | samples | served by the mock | req/s |"
    echo "|---|---:|---:|---:|---:|---:|"
    printf '%s\n' "${TABLE[@]}"
    echo
    echo "## report: a generated results file, $ROWS rows over $LABELS labels (${JTL_MB} MB), and the run directory"
    echo
    echo "| command | peak RSS MiB | label rows | samples | seconds |"
    echo "|---|---:|---:|---:|---:|"
    printf '%s\n' "${RTABLE[@]}"
    echo
    echo "Commands: \`$STAMPEDE run plan.yaml --out DIR --quiet\`, \`$STAMPEDE report labels.jtl --format json\`, \`oha --no-tui -c $USERS -q RATE -z ${DURATION}s URL\`, each under \`/usr/bin/time -f %M\`; plan and file from \`bench/labels/gen.py\`."
} >"$RUN_DIR/measured.md"
cat "$RUN_DIR/measured.md"
