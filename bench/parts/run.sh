#!/usr/bin/env bash
# One load split into parts (`run --segment I/N`, started together with `--start-at`, joined with
# `stampede merge`) against the same load from one process, with wrk beside them, all against
# stampede's mock on loopback. The parts share the generator CPU the single process had, so the
# question is what splitting costs: throughput and latency of the merged parts vs one process,
# how late each part started, and how long the merge takes. See bench/README.md.
#
# Usage: bash bench/parts/run.sh
# Environment:
#   DURATION   each run's length in seconds        (default 10)
#   USERS      users (connections) in all          (default 64)
#   PARTS      number of parts                     (default 4)
#   STAMPEDE   a stampede binary (default: cargo build --release, then target/release/stampede)
#   GEN_CPU / TARGET_CPU  CPUs for the generators / the mock (default 0 / 1)
#   RUN_DIR    where results go (default bench/runs/<date>-parts)
#
# Traffic goes to 127.0.0.1 only; every run is bounded by its duration and, as a hard stop,
# by `timeout`.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DURATION=${DURATION:-10}
USERS=${USERS:-64}
PARTS=${PARTS:-4}
GEN_CPU=${GEN_CPU:-0}
TARGET_CPU=${TARGET_CPU:-1}
RUN_DIR=${RUN_DIR:-$ROOT/bench/runs/$(date +%F)-parts}
HARD=$((DURATION + 30))
PORT=18480
URL=http://127.0.0.1:$PORT/
log() { printf '[bench] %s\n' "$*" >&2; }

for bin in taskset timeout jq wrk; do
    command -v "$bin" >/dev/null || { log "$bin not found"; exit 1; }
done
if [[ -z ${STAMPEDE:-} ]]; then
    (cd "$ROOT" && cargo build --release --quiet)
    STAMPEDE=$ROOT/target/release/stampede
fi
rm -rf "$RUN_DIR" && mkdir -p "$RUN_DIR"
cd "$RUN_DIR"

taskset -c "$TARGET_CPU" timeout $((3 * HARD + 60)) "$STAMPEDE" mock --listen 127.0.0.1:$PORT >mock.log 2>&1 &
MOCK=$!
trap 'kill $MOCK 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf "$URL" >/dev/null 2>&1 && break; sleep 0.1; done

log "wrk: $USERS connections, ${DURATION}s"
taskset -c "$GEN_CPU" timeout $HARD wrk -t1 -c"$USERS" -d"${DURATION}s" --latency "$URL" >wrk.out
log "one process: $USERS users, ${DURATION}s"
taskset -c "$GEN_CPU" timeout $HARD "$STAMPEDE" run --url "$URL" -u "$USERS" --duration "${DURATION}s" -q --out single >single.out

log "$PARTS parts: $USERS users in all, ${DURATION}s"
START=$(date -u -d '+3 seconds' +%Y-%m-%dT%H:%M:%S.%NZ)
for i in $(seq "$PARTS"); do
    taskset -c "$GEN_CPU" timeout $((HARD + 5)) "$STAMPEDE" run --url "$URL" -u "$USERS" --duration "${DURATION}s" -q \
        --segment "$i/$PARTS" --start-at "$START" --out "part-$i" >"part-$i.out" &
done
for p in $(jobs -p); do [[ $p == "$MOCK" ]] || wait "$p"; done
for i in $(seq "$PARTS"); do test -s "part-$i/summary.json" || { log "part $i did not finish"; exit 1; }; done
merge_start=$(date +%s.%N)
"$STAMPEDE" merge $(for i in $(seq "$PARTS"); do echo "part-$i"; done) --out merged >merge.out
merge_s=$(echo "$(date +%s.%N) - $merge_start" | bc)
kill -INT $MOCK; wait $MOCK 2>/dev/null || true

# ---------------------------------------------------------------- results
wrk_rps=$(awk '/^Requests\/sec/ {print $2}' wrk.out)
wrk_p99=$(awk '$1 == "99%" {print $2}' wrk.out)
fig() { jq -r ".total.$2" "$1/summary.json"; }
num() { printf '%.*f' "$1" "$2"; }
single_rps=$(fig single throughput_rps); merged_rps=$(fig merged throughput_rps)
{
    echo "# $PARTS parts vs one process vs wrk ($(date +%F), $(nproc) CPUs, $USERS connections, ${DURATION}s, mock on CPU $TARGET_CPU, generators on CPU $GEN_CPU)"
    echo
    echo "command: \`DURATION=$DURATION USERS=$USERS PARTS=$PARTS bash bench/parts/run.sh\`"
    echo
    echo "| load | requests | req/s | p50 ms | p99 ms | vs one process |"
    echo "|---|---:|---:|---:|---:|---:|"
    echo "| wrk -t1 | $(awk '/requests in/ {print $1}' wrk.out) | $(num 0 "$wrk_rps") | $(awk '$1 == "50%" {print $2}' wrk.out) | $wrk_p99 | $(num 2 "$(echo "scale=4; $wrk_rps / $single_rps" | bc)") |"
    echo "| stampede, one process | $(fig single samples) | $(num 0 "$single_rps") | $(num 3 "$(fig single p50_ms)") | $(num 3 "$(fig single p99_ms)") | 1.00 |"
    echo "| stampede, $PARTS parts merged | $(fig merged samples) | $(num 0 "$merged_rps") | $(num 3 "$(fig merged p50_ms)") | $(num 3 "$(fig merged p99_ms)") | $(num 2 "$(echo "scale=4; $merged_rps / $single_rps" | bc)") |"
    echo
    echo "| part | users | requests | start skew ms |"
    echo "|---|---:|---:|---:|"
    for i in $(seq "$PARTS"); do
        echo "| $i/$PARTS | $(jq -s 'map(.active_users | add) | max' "part-$i/intervals.jsonl") | $(fig "part-$i" samples) | $(num 1 "$(jq -r '.part.start_skew_ms' "part-$i/meta.json")") |"
    done
    echo
    echo "merge of the $PARTS parts: $(num 3 "$merge_s") s; the mock, over all three loads: $(tail -1 mock.log)"
} >results.md
cat results.md
