#!/usr/bin/env bash
# What a soak on agents leaves, built without running one (examples/soak_agents.rs: AGENTS
# agents, each HOURS hours of one-second intervals, 9 labels, RATE samples a second drawn one by
# one, written through the agent's own run writer and through the controller's copy,
# rundir::copy::PartCopy, fed the lines the agent streams); then the size on disk of each agent's
# directory and of the controller's copies, file by file, and the wall time of `merge` and
# `report` of each set; then all of it extrapolated to 60 hours. Issue 33's goal for 60 hours on
# 8 agents: each agent's directory and the controller's copies under ~400 MB, `merge`/`report`
# in seconds. No network at all. WORK=DIR keeps the directories there (and reuses them).
# PROFILE=debug (the default here: the machine is shared) or release.
set -euo pipefail
cd "$(dirname "$0")/../.."
HOURS=${HOURS:-1.25}
AGENTS=${AGENTS:-8}
RATE=${RATE:-1450}
PROFILE=${PROFILE:-debug}
OUT=${OUT:-bench/runs/$(date -u +%Y-%m-%d)-s4-rollup}
if [ -z "${WORK:-}" ]; then
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi
flag=$([ "$PROFILE" = release ] && echo --release || true)
cargo build $flag --quiet --example soak_agents
cargo build $flag --quiet
bin=target/$PROFILE
mkdir -p "$OUT"
if [ ! -f "$WORK/agent-$AGENTS/summary.json" ]; then
  rm -rf "${WORK:?}"/*
  gen=$(/usr/bin/time -f "%e s, %M KiB" "$bin/examples/soak_agents" "$WORK" "$HOURS" "$AGENTS" 9 "$RATE" 2>&1 | tail -1)
else
  gen="(built before)"
fi
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
size() { du -sb "$@" | awk '{ s += $1 } END { print s }'; }
# The time and peak memory, after whatever else the command said on stderr (a warning, an
# exit status other than 0).
timed() { /usr/bin/time -f "%e s, %M KiB peak" "$@" 2>&1 >/dev/null | tail -3 | paste -sd ' '; }
own=$(size "$WORK"/agent-*)
copies=$(size "$WORK"/controller/agents/*)
seconds=$(size "$WORK"/agent-*/intervals.jsonl)
files() { (cd "$1" && for f in *; do printf '%s %s MiB; ' "$f" "$(mib "$(stat -c %s "$f")")"; done); }
rm -rf "$WORK/m-copies" "$WORK/m-own" "$WORK/stretched" "$WORK/m-stretched"
m1=$(timed "$bin/stampede" merge "$WORK"/controller/agents/* --out "$WORK/m-copies")
r1=$(timed "$bin/stampede" report "$WORK"/controller/agents/*)
r2=$(timed "$bin/stampede" report "$WORK"/agent-*)
r3=$(timed "$bin/stampede" report "$WORK/m-copies")
# The copies stretched to 60 hours (their first hour repeated: stretch_copies.py), as a killed
# run leaves them (every figure summed from their lines).
python3 bench/soak/stretch_copies.py "$WORK/controller/agents" "$WORK/stretched" 60 "$AGENTS"
stretched=$(size "$WORK"/stretched/*)
m3=$(timed "$bin/stampede" merge "$WORK"/stretched/* --out "$WORK/m-stretched")
r4=$(timed "$bin/stampede" report "$WORK"/stretched/*)
r5=$(timed "$bin/stampede" report "$WORK/m-stretched")
# The merge of the agents' own directories reads their first hour's seconds: minutes in a debug
# build, so only when asked (OWN_MERGE=1); then the Total rows of both merges are compared.
m2="not run (OWN_MERGE=1 runs it)"
same="not compared"
if [ "${OWN_MERGE:-0}" = 1 ]; then
  m2=$(timed "$bin/stampede" merge "$WORK"/agent-* --out "$WORK/m-own")
  row() { "$bin/stampede" report "$1" | grep '^| Total' | head -1; }
  same=$([ "$(row "$WORK/m-copies")" = "$(row "$WORK/m-own")" ] && echo "the same" || echo DIFFERENT)
fi
lines() { cat "$@" 2>/dev/null | wc -l; }
read_copies=$(lines "$WORK"/controller/agents/*/intervals-600s.jsonl)
read_own=$(( $(lines "$WORK"/agent-*/intervals.jsonl) + $(lines "$WORK"/agent-*/intervals-60s.jsonl) ))
# 60 hours: the first hour's seconds are kept once; every roll-up grows with the hours.
x60() { awk -v b="$1" -v f="${2:-0}" -v h="$HOURS" 'BEGIN { printf "%.0f", (f + (b - f) * 60 / h) / 1048576 }'; }
cat >"$OUT/results.md" <<MD
# ${AGENTS} agents × ${HOURS} h, 9 labels, ${RATE} samples/s each (\`HOURS=$HOURS AGENTS=$AGENTS PROFILE=$PROFILE bash bench/soak/agents.sh\`)

$(uname -n), $(nproc) CPUs, $(rustc --version), $PROFILE build.

| what | figure |
|:--|--:|
| build them (examples/soak_agents) | $gen |
| the agents' own directories, all | $(mib "$own") MiB ($(mib $((own / AGENTS))) MiB each) |
| agent 1's files | $(files "$WORK/agent-1") |
| the controller's copies, all | $(mib "$copies") MiB ($(mib $((copies / AGENTS))) MiB each) |
| copy 1's files | $(files "$WORK"/controller/agents/1-*) |
| \`merge\` of the copies ($read_copies 10-minute lines, and the hour lines) | $m1 |
| \`merge\` of the agents' own ($read_own lines: the first hour's seconds, then minutes) | $m2 |
| \`report\` of the copies (8 directories) | $r1 |
| \`report\` of the agents' own (8 directories) | $r2 |
| \`report\` of the merge of the copies | $r3 |
| Total row of the merge of the copies and of the agents' own | $same |
| the copies stretched to 60 h, all | $(mib "$stretched") MiB |
| \`merge\` of the 60 h copies ($((AGENTS * 360)) 10-minute lines, twice: labels, then the run) | $m3 |
| \`report\` of the 60 h copies ($AGENTS directories) | $r4 |
| \`report\` of their merge | $r5 |

Extrapolated to 60 h (the first hour's seconds once, every roll-up × 60 / ${HOURS}):
one agent's directory $(x60 $((own / AGENTS)) $((seconds / AGENTS))) MiB; the controller's
copies of ${AGENTS} agents $(x60 "$copies") MiB in all. Kept per second as before (every second
of 60 h in each copy's \`intervals.jsonl\`): $(awk -v s="$seconds" 'BEGIN { printf "%.0f", s * 60 / 1048576 }') MiB in all.
MD
cat "$OUT/results.md"
