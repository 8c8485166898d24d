#!/usr/bin/env bash
# Times loading a JMX plan of N thread groups (bench/jmx-load/gen.py): `stampede check`, and a
# whole `stampede run` (each group's one user sends one request to 127.0.0.1:9, refused at
# once, so the time is loading the plan and starting its users). Needs `apt-get install -y time`.
#
#   BIN=target/release/stampede SIZES="1000 2000 10000" bash bench/jmx-load/run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BIN=${BIN:-target/release/stampede}
SIZES=${SIZES:-"1000 2000 10000"}
LIMIT=${LIMIT:-300}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for n in $SIZES; do
    python3 "$here/gen.py" "$n" > "$work/g$n.jmx"
    /usr/bin/time -f "$n groups  check  %e s  %M KB" timeout "$LIMIT" "$BIN" check "$work/g$n.jmx" > /dev/null 2> "$work/err" || true
    tail -1 "$work/err"
    /usr/bin/time -f "$n groups  run    %e s  %M KB" timeout "$LIMIT" "$BIN" run "$work/g$n.jmx" -q --out "$work/run$n" > /dev/null 2> "$work/err" || true
    tail -1 "$work/err"
done
