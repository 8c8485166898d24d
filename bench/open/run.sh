#!/usr/bin/env bash
# Open-model timing: does stampede charge its own dispatch lateness to the server?
#
# Against stampede's built-in mock (an instant 200 'OK' on 127.0.0.1, pinned to TARGET_CPU), for
# each rate: stampede's open model, stampede's closed model (2 users: the reference latency of
# an instant server), and oha with --latency-correction at the same rate, side by side, the
# generator pinned to GEN_CPU. Reports each tool's mean latency, the open − closed difference,
# the rate held, dropped/undispatched arrivals, and stampede's own dispatch lateness.
#
# Usage: bash bench/open/run.sh
# Environment:
#   RATES      arrival rates per second     (default "1500 20000")
#   DURATION   seconds per run              (default 10)
#   MAX_USERS  open model's user bound / oha's connections (default 200)
#   STAMPEDE   stampede binary (default: cargo build --release)
#   OHA        oha binary (default: oha on PATH, else ~/.cargo/bin/oha; install: cargo install oha)
#   GEN_CPU / TARGET_CPU  CPUs for the generator / the mock (default 0 / 1)
#   RUN_DIR    where results go (default bench/runs/<date>-open)
#
# Every run is bounded by DURATION and, as a hard stop, by `timeout DURATION+30`.
set -euo pipefail
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
RATES=${RATES:-"1500 20000"}
DURATION=${DURATION:-10}
MAX_USERS=${MAX_USERS:-200}
GEN_CPU=${GEN_CPU:-0}
TARGET_CPU=${TARGET_CPU:-1}
RUN_DIR=${RUN_DIR:-$ROOT/bench/runs/$(date +%F)-open}
HARD=$((DURATION + 30))
log() { printf '[bench] %s\n' "$*" >&2; }

for bin in taskset timeout jq; do command -v "$bin" >/dev/null || { log "$bin not found"; exit 1; }; done
if [[ -z ${STAMPEDE:-} ]]; then
    (cd "$ROOT" && cargo build --release --locked >&2)
    STAMPEDE=$ROOT/target/release/stampede
fi
OHA=${OHA:-$(command -v oha || echo "$HOME/.cargo/bin/oha")}
[[ -x $OHA ]] || { log "oha not found (cargo install oha); its rows are skipped"; OHA=""; }
mkdir -p "$RUN_DIR"
TMP=$(mktemp -d /tmp/stampede-open.XXXXXX)
PORT=$((20000 + RANDOM % 20000))
URL="http://127.0.0.1:$PORT/"
taskset -c "$TARGET_CPU" "$STAMPEDE" mock --listen "127.0.0.1:$PORT" >"$TMP/mock.log" 2>&1 &
MOCK=$!
trap 'kill $MOCK 2>/dev/null || true; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.1; done

out=$RUN_DIR/open-model.md
{
    echo "# Open-model timing against an instant server ($(date -u +%FT%TZ), $(nproc) cores, ${DURATION}s per run)"
    echo
    echo "Target: \`stampede mock\` on 127.0.0.1 (CPU $TARGET_CPU); generators on CPU $GEN_CPU. Means in ms."
    echo "Command: \`RATES=\"$RATES\" DURATION=$DURATION MAX_USERS=$MAX_USERS bash bench/open/run.sh\`"
    echo
    echo "| rate/s | tool | samples | rate held | mean | p50 | p99 | open − closed mean | dropped | undispatched | dispatch lateness mean / p50 / p99 / max | generator CPU |"
    echo "|--:|:--|--:|--:|--:|--:|--:|--:|--:|--:|:--|--:|"
} >"$out"

st_run() { # name, args...
    local name=$1; shift
    timeout "$HARD" taskset -c "$GEN_CPU" "$STAMPEDE" run --url "$URL" --duration "${DURATION}s" -q --out "$TMP/$name" "$@" >/dev/null 2>"$TMP/$name.err" || true
    jq -c '{s: .total.samples, mean: .total.mean_ms, p50: .total.p50_ms, p99: .total.p99_ms,
            dropped: ([.scenarios[].dropped_iterations] | add), und: ([.scenarios[].undispatched_iterations // 0] | add),
            late: .scenarios[0].dispatch_lateness, cpu: .generator.cpu_pct_of_cores}' "$TMP/$name/summary.json"
}

for rate in $RATES; do
    log "rate $rate/s"
    closed=$(st_run "closed-$rate" --users 2)
    open=$(st_run "open-$rate" --rate "$rate" --max-users "$MAX_USERS")
    cmean=$(jq -r .mean <<<"$closed")
    expected=$((rate * DURATION))
    row() { # tool json
        jq -r --arg tool "$1" --arg rate "$rate" --argjson exp "$expected" --argjson cmean "$cmean" '
          def f: . * 1000 | round / 1000;
          "| \($rate) | \($tool) | \(.s) | \(if $tool == "stampede closed (2 users)" then "—" else "\((.s / $exp * 10000 | round) / 100)%" end) | \(.mean|f) | \(.p50|f) | \(.p99|f) | \(if $tool == "stampede closed (2 users)" then "—" else "\((.mean - $cmean)|f)" end) | \(.dropped // "—") | \(.und // "—") | \(if .late then "\(.late.mean_ms|f) / \(.late.p50_ms|f) / \(.late.p99_ms|f) / \(.late.max_ms|f)" else "—" end) | \(if .cpu then "\(.cpu | round)%" else "—" end) |"' <<<"$2"
    }
    row "stampede closed (2 users)" "$closed" >>"$out"
    row "stampede open" "$open" >>"$out"
    if [[ -n $OHA ]]; then
        timeout "$HARD" taskset -c "$GEN_CPU" "$OHA" -z "${DURATION}s" -q "$rate" --latency-correction -c "$MAX_USERS" \
            --no-tui --output-format json "$URL" >"$TMP/oha-$rate.json" 2>"$TMP/oha-$rate.err" || true
        oha=$(jq -c '{s: ([.statusCodeDistribution[]] | add), mean: (.summary.average * 1000),
                      p50: (.latencyPercentiles.p50 * 1000), p99: (.latencyPercentiles.p99 * 1000)}' "$TMP/oha-$rate.json" 2>/dev/null || echo '')
        [[ -n $oha ]] && row "oha --latency-correction" "$oha" >>"$out" || log "oha failed: $(tail -3 "$TMP/oha-$rate.err")"
    fi
done
cat "$out"
