#!/usr/bin/env bash
# Peak RSS of quick mode with USERS users against `stampede mock` on loopback, DURATION s,
# ROUNDS times: `bash run.sh [BINARY...]` (default: target/release/stampede). Needs
# /usr/bin/time (apt-get install -y time). Every run is bounded by `timeout`.
set -euo pipefail
USERS=${USERS:-10000}
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-2}
PORT=${PORT:-18931}
ulimit -n "$(ulimit -Hn)"
bins=("$@")
[ ${#bins[@]} -gt 0 ] || bins=(target/release/stampede)
work=$(mktemp -d)
trap 'kill "$mock" 2>/dev/null || true; rm -rf "$work"' EXIT
"${bins[0]}" mock --listen "127.0.0.1:$PORT" 2>/dev/null &
mock=$!
sleep 1
for round in $(seq "$ROUNDS"); do
    for i in "${!bins[@]}"; do
        bin=${bins[$i]}
        out="$work/run-$round-$i"
        /usr/bin/time -o "$work/rss" -f %M timeout $((DURATION + 60)) "$bin" run -q --out "$out" \
            --url "http://127.0.0.1:$PORT/" --users "$USERS" --duration "${DURATION}s" >/dev/null 2>&1 || true
        samples=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['total']['samples'])" "$out/summary.json" 2>/dev/null || echo '?')
        echo "round $round $bin users=$USERS peak_rss_kib=$(tail -1 "$work/rss") samples=$samples"
    done
done
