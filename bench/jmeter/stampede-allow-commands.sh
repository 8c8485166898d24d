#!/bin/sh
# differential.py's $STAMPEDE for plans with OS Process Samplers: the built stampede with
# --allow-commands (JMeter runs their commands unasked; stampede only when told).
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${STAMPEDE_BIN:-$here/target/release/stampede}
[ -x "$bin" ] || bin=$here/target/debug/stampede
exec "$bin" "$@" --allow-commands
