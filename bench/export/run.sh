#!/usr/bin/env bash
# Does a live-metrics export cost the load anything, even when its target never answers?
#
# The same quick-mode run against `stampede mock` on 127.0.0.1 (pinned to TARGET_CPU), the
# generator pinned to GEN_CPU, in three ways, one after another in each round:
#   none  — no export;
#   dead  — `--export prometheus-rw=` to a port whose socket listens but never accepts (a
#           python3 one-liner with a backlog, then sleep, killed at the end): every push waits
#           its whole 2 s deadline;
#   prom  — `--export prometheus-rw=` to a real Prometheus (Debian's, remote-write receiver on,
#           pinned with the mock), started here on loopback.
# Reports each run's throughput (samples / load seconds from summary.json and meta.json), the
# median over ROUNDS per way, and the ratios dead/none and prom/none; and what each export
# delivered (export.json). Samples are checked against the mock's count of requests served.
#
# Usage: bash bench/export/run.sh
# Environment:
#   DURATION   seconds per run                (default 10)
#   ROUNDS     rounds of the three runs       (default 3)
#   USERS      closed-model users             (default 50)
#   STAMPEDE   stampede binary (default: cargo build --release)
#   GEN_CPU / TARGET_CPU  CPUs for the generator / the mock and Prometheus (default 0 / 1)
#   RUN_DIR    where results go (default bench/runs/<date>-export)
#
# Every process is bounded: runs by `timeout DURATION+30`, the dead socket and Prometheus by the
# trap at exit (and their own `timeout`).
set -euo pipefail
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-3}
USERS=${USERS:-50}
GEN_CPU=${GEN_CPU:-0}
TARGET_CPU=${TARGET_CPU:-1}
RUN_DIR=${RUN_DIR:-$ROOT/bench/runs/$(date +%F)-export}
HARD=$((DURATION + 30))
LIFETIME=$(((DURATION + 20) * ROUNDS * 3 + 120))
log() { printf '[bench] %s\n' "$*" >&2; }

for bin in taskset timeout jq python3 curl; do command -v "$bin" >/dev/null || { log "$bin not found"; exit 1; }; done
if [[ -z ${STAMPEDE:-} ]]; then
    (cd "$ROOT" && cargo build --release --locked >&2)
    STAMPEDE=$ROOT/target/release/stampede
fi
mkdir -p "$RUN_DIR"
TMP=$(mktemp -d /tmp/stampede-export.XXXXXX)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
MOCK_PORT=$(port)
DEAD_PORT=$(port)
PROM_PORT=$(port)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$TMP"; }
trap cleanup EXIT
wait_port() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }

taskset -c "$TARGET_CPU" timeout "$LIFETIME" "$STAMPEDE" mock --listen "127.0.0.1:$MOCK_PORT" >"$TMP/mock.log" 2>&1 &
PIDS+=($!)
timeout "$LIFETIME" python3 -c "import socket,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $DEAD_PORT)); s.listen(16); time.sleep($LIFETIME)" &
PIDS+=($!)
PROM=""
if command -v prometheus >/dev/null; then
    printf 'global:\n  scrape_interval: 1h\nscrape_configs: []\n' >"$TMP/prometheus.yml"
    taskset -c "$TARGET_CPU" timeout "$LIFETIME" prometheus --config.file="$TMP/prometheus.yml" \
        --storage.tsdb.path="$TMP/tsdb" --web.listen-address="127.0.0.1:$PROM_PORT" \
        --web.enable-remote-write-receiver >"$TMP/prometheus.log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PROM_PORT/-/ready" >/dev/null && { PROM=1; break; }; sleep 0.2; done
    [[ -n $PROM ]] || log "Prometheus did not get ready; its runs are skipped: $(tail -3 "$TMP/prometheus.log")"
else
    log "prometheus not installed (apt-get install prometheus); its runs are skipped"
fi
wait_port "$MOCK_PORT" && wait_port "$DEAD_PORT" || { log "the mock or the dead socket did not listen"; exit 1; }

run() { # way round
    local way=$1 round=$2 export_args=()
    case $way in
        dead) export_args=(--export "prometheus-rw=http://127.0.0.1:$DEAD_PORT/api/v1/write") ;;
        prom) export_args=(--export "prometheus-rw=http://127.0.0.1:$PROM_PORT/api/v1/write" --export-tag "bench-$round") ;;
    esac
    local dir=$TMP/$way-$round start end
    start=$(date +%s.%N)
    timeout "$HARD" taskset -c "$GEN_CPU" "$STAMPEDE" run --url "http://127.0.0.1:$MOCK_PORT/" --users "$USERS" \
        --duration "${DURATION}s" -q --out "$dir" "${export_args[@]}" >/dev/null 2>"$dir.err" || true
    end=$(date +%s.%N)
    jq -c --arg way "$way" --arg round "$round" --arg wall "$(echo "$end - $start" | bc -l)" \
        --slurpfile meta "$dir/meta.json" '
        {way: $way, round: ($round | tonumber), samples: .total.samples, errors: .total.errors,
         load_s: $meta[0].duration_s, rps: (.total.samples / $meta[0].duration_s), wall_s: ($wall | tonumber),
         cpu: .generator.cpu_pct_of_cores}' "$dir/summary.json" >"$dir.row"
    if [[ -f $dir/export.json ]]; then
        jq -c '.[0] | {delivered, intervals, dropped, failed, unsent, final_delivered}' "$dir/export.json" >"$dir.export"
    else
        echo '{}' >"$dir.export"
    fi
    jq -c -s '.[0] + {export: .[1]}' "$dir.row" "$dir.export"
}

WAYS="none dead"
[[ -n $PROM ]] && WAYS="$WAYS prom"
: >"$TMP/rows.jsonl"
for round in $(seq "$ROUNDS"); do
    for way in $WAYS; do
        log "round $round: $way"
        run "$way" "$round" | tee -a "$TMP/rows.jsonl" >&2
    done
done

# The mock says what it served when stopped: every run's samples together must be that.
kill -TERM "${PIDS[0]}" 2>/dev/null || true
wait "${PIDS[0]}" 2>/dev/null || true
served=$(grep -o 'served [0-9]*' "$TMP/mock.log" | tail -1 | awk '{print $2}')
samples=$(jq -s 'map(.samples) | add' "$TMP/rows.jsonl")
[[ $served == "$samples" ]] && check="equal" || check="DIFFERENT"
log "samples of all runs: $samples; the mock served: ${served:-?} ($check)"

out=$RUN_DIR/results.md
{
    echo "# Export cost: throughput with a dead and a real remote-write target ($(date -u +%FT%TZ), $(nproc) cores)"
    echo
    echo "\`stampede run --url http://127.0.0.1:PORT/ --users $USERS --duration ${DURATION}s\` against \`stampede mock\`"
    echo "(CPU $TARGET_CPU, with Prometheus); the generator on CPU $GEN_CPU; $ROUNDS rounds, the ways interleaved."
    echo "Command: \`DURATION=$DURATION ROUNDS=$ROUNDS USERS=$USERS bash bench/export/run.sh\`"
    echo
    echo "| round | way | samples | errors | load s | samples/s | wall s | generator CPU | export delivered / intervals (dropped, failed, unsent) |"
    echo "|--:|:--|--:|--:|--:|--:|--:|--:|:--|"
    jq -r '"| \(.round) | \(.way) | \(.samples) | \(.errors) | \(.load_s * 100 | round / 100) | \(.rps | round) | \(.wall_s * 100 | round / 100) | \(.cpu // 0 | round)% | \(if .export.intervals then "\(.export.delivered) / \(.export.intervals) (\(.export.dropped), \(.export.failed), \(.export.unsent))" else "—" end) |"' "$TMP/rows.jsonl"
    echo
    echo "Samples of all runs together: $samples; the mock served ${served:-?} ($check)."
    echo
    echo "Medians over the rounds, and ratios to no export:"
    echo
    echo "| way | median samples/s | ratio to none |"
    echo "|:--|--:|--:|"
    jq -r -s '
        def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
        (map(select(.way == "none") | .rps) | median) as $none
        | group_by(.way) | map({way: .[0].way, m: (map(.rps) | median)})
        | sort_by(if .way == "none" then 0 elif .way == "dead" then 1 else 2 end)[]
        | "| \(.way) | \(.m | round) | \(.m / $none * 1000 | round / 1000) |"' "$TMP/rows.jsonl"
} >"$out"
cat "$out"
