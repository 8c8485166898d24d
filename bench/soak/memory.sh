#!/usr/bin/env bash
# Memory over a long run at full speed: stampede runs a 9-label plan against its own mock on
# loopback for DURATION seconds, its resident memory (VmRSS) sampled every SAMPLE seconds;
# then wrk runs against the same mock for the same time, sampled the same way, as the
# reference of a generator that keeps one histogram. Writes $OUT/results.md and the samples.
# Every load loop is bounded by DURATION and goes to 127.0.0.1 only. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION=${DURATION:-300}
SAMPLE=${SAMPLE:-5}
USERS=${USERS:-64}
PORT=${PORT:-18931}
OUT=${OUT:-bench/runs/$(date -u +%Y-%m-%d)-soak-memory}
STAMPEDE=${STAMPEDE:-target/release/stampede}
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
[[ -x $STAMPEDE ]] || cargo build --release --quiet
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

# 9 labels, one per API path, picked at random per iteration.
{
    echo "name: soak-memory"
    echo "defaults: {base_url: 'http://127.0.0.1:$PORT'}"
    echo "scenarios:"
    echo "  - workload: {users: $USERS, duration: ${DURATION}s}"
    echo "    flow:"
    echo "      - mix:"
    for i in 1 2 3 4 5 6 7 8 9; do
        echo "          - {weight: 1, request: {label: api-$i, url: /api/v1/resource/$i}}"
    done
} >"$work/plan.yaml"

taskset -c 1 "$STAMPEDE" mock --listen "127.0.0.1:$PORT" >"$work/mock.log" 2>&1 &
mock=$!
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done

sample() { # $1 = pid, $2 = csv: seconds since start, VmRSS KiB, until the process ends
    local pid=$1 t=0
    echo "seconds,rss_kib" >"$2"
    while kill -0 "$pid" 2>/dev/null; do
        rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
        [[ -n $rss ]] && echo "$t,$rss" >>"$2"
        sleep "$SAMPLE"
        t=$((t + SAMPLE))
    done
}

taskset -c 0 "$STAMPEDE" run "$work/plan.yaml" -q --out "$work/run" >"$work/stampede.log" 2>&1 &
pid=$!
sample "$pid" "$OUT/stampede-rss.csv"
wait "$pid"
samples=$(python3 -c "import json,sys; print(json.load(open('$work/run/summary.json'))['total']['samples'])")
kill -INT "$mock"; wait "$mock" || true
served=$(grep -o 'served [0-9]*' "$work/mock.log" | tail -1 | awk '{print $2}')

taskset -c 1 "$STAMPEDE" mock --listen "127.0.0.1:$PORT" >"$work/mock2.log" 2>&1 &
mock=$!
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done
taskset -c 0 wrk -t1 -c"$USERS" -d"${DURATION}s" "http://127.0.0.1:$PORT/api/v1/resource/1" >"$work/wrk.log" 2>&1 &
pid=$!
sample "$pid" "$OUT/wrk-rss.csv"
wait "$pid" || true
wrk_requests=$(awk '/requests in/ {print $1}' "$work/wrk.log")
kill -INT "$mock"; wait "$mock" || true

python3 - "$OUT" "$DURATION" "$USERS" "$samples" "${served:-?}" "${wrk_requests:-?}" <<'PY'
import csv, sys, platform, subprocess
out, duration, users, samples, served, wrk_requests = sys.argv[1:]
def read(name):
    with open(f"{out}/{name}-rss.csv") as f:
        return [(int(r["seconds"]), int(r["rss_kib"]) / 1024) for r in csv.DictReader(f)]
s, w = read("stampede"), read("wrk")
def growth(series):
    after = [m for t, m in series if t >= 60]
    return (after[-1] - after[0]) if len(after) > 1 else float("nan"), max(m for _, m in series)
sg, speak = growth(s)
wg, wpeak = growth(w)
lines = [
    f"# Memory over a {duration} s run at full speed (`DURATION={duration} bash bench/soak/memory.sh`)",
    "",
    f"{users} users, 9 labels, against stampede's mock on 127.0.0.1 (generator on CPU 0, mock on CPU 1).",
    f"{platform.node()}, {subprocess.run(['nproc'], capture_output=True, text=True).stdout.strip()} CPUs.",
    "",
    "| | stampede (9 labels) | wrk (1 URL) |",
    "|:--|--:|--:|",
    f"| requests | {samples} (mock served {served}) | {wrk_requests} |",
    f"| requests/s | {int(samples) / int(duration):.0f} | {(f"{int(wrk_requests) / int(duration):.0f}") if wrk_requests.isdigit() else '?'} |",
    f"| peak RSS MiB | {speak:.1f} | {wpeak:.1f} |",
    f"| RSS growth from 60 s to the end, MiB | {sg:+.2f} | {wg:+.2f} |",
    "",
    "RSS over time (MiB), every sample:",
    "",
    "| s | stampede | wrk |",
    "|--:|--:|--:|",
]
wd = dict(w)
for t, m in s:
    lines.append(f"| {t} | {m:.1f} | {wd.get(t, float('nan')):.1f} |")
open(f"{out}/results.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines[:12]))
PY
