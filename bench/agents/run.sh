#!/usr/bin/env bash
# A load run on agents (`stampede agent` × AGENTS and `stampede run --agents`, all on this
# machine) against the same load from one process, with wrk beside them, all against stampede's
# mock on loopback. The agents share the generator CPU the single process had, so the questions
# are what the distribution costs: merged vs single-process throughput, how late each agent
# started, and the controller's own CPU and memory per merged interval. See bench/README.md.
#
# Usage: bash bench/agents/run.sh
# Environment:
#   DURATION   each run's length in seconds        (default 10)
#   USERS      users (connections) in all          (default 64)
#   AGENTS     number of agents                    (default 4)
#   STAMPEDE   a stampede binary (default: cargo build --release, then target/release/stampede)
#   GEN_CPU / TARGET_CPU  CPUs for the generators and the controller / the mock (default 0 / 1)
#   RUN_DIR    where results go (default bench/runs/<date>-agents)
#   BASELINES  1: run wrk and one process before the agents; 0: the agents only (default 1)
#
# Traffic goes to 127.0.0.1 only; every process is bounded by `timeout`, and the agents stop
# when the script ends.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DURATION=${DURATION:-10}
USERS=${USERS:-64}
AGENTS=${AGENTS:-4}
GEN_CPU=${GEN_CPU:-0}
TARGET_CPU=${TARGET_CPU:-1}
RUN_DIR=${RUN_DIR:-$ROOT/bench/runs/$(date +%F)-agents}
BASELINES=${BASELINES:-1}
HARD=$((DURATION + 30))
PORT=18580
AGENT_PORT=18590
URL=http://127.0.0.1:$PORT/
log() { printf '[bench] %s\n' "$*" >&2; }

for bin in taskset timeout jq wrk bc python3; do
    command -v "$bin" >/dev/null || { log "$bin not found"; exit 1; }
done
if [[ -z ${STAMPEDE:-} ]]; then
    (cd "$ROOT" && cargo build --release --quiet)
    STAMPEDE=$ROOT/target/release/stampede
fi
rm -rf "$RUN_DIR" && mkdir -p "$RUN_DIR/plan"
cd "$RUN_DIR"
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null || true' EXIT

# A mock per phase: the count it prints when stopped is that phase's alone (wrk's in-flight
# requests at its end are served but not counted by wrk, so one mock for all would not add up).
MOCK=
start_mock() { # $1: its log
    taskset -c "$TARGET_CPU" timeout $((2 * HARD + 60)) "$STAMPEDE" mock --listen 127.0.0.1:$PORT >"$1" 2>&1 &
    MOCK=$!
    PIDS+=("$MOCK")
    for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.1; done
}
stop_mock() { kill -INT "$MOCK"; wait "$MOCK" 2>/dev/null || true; }
start_mock mock-baselines.log

cat >plan/plan.yaml <<PLAN
name: agents-bench
scenarios:
  - name: get
    workload: {users: $USERS, duration: ${DURATION}s}
    flow:
      - request: {url: "$URL", label: get}
PLAN
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >token

if ((BASELINES)); then
    log "wrk: $USERS connections, ${DURATION}s"
    taskset -c "$GEN_CPU" timeout $HARD wrk -t1 -c"$USERS" -d"${DURATION}s" --latency "$URL" >wrk.out
    log "one process: $USERS users, ${DURATION}s"
    taskset -c "$GEN_CPU" timeout $HARD "$STAMPEDE" run plan/plan.yaml -q --out single >single.out
fi

stop_mock
start_mock mock.log
log "$AGENTS agents: $USERS users in all, ${DURATION}s"
ADDRS=()
for i in $(seq "$AGENTS"); do
    taskset -c "$GEN_CPU" timeout $((2 * HARD)) "$STAMPEDE" agent --listen "127.0.0.1:$((AGENT_PORT + i))" \
        --token-file token --work-dir "work-$i" >"agent-$i.log" 2>&1 &
    PIDS+=($!)
    ADDRS+=("127.0.0.1:$((AGENT_PORT + i))")
done
for i in $(seq "$AGENTS"); do
    for _ in $(seq 50); do grep -q listening "agent-$i.log" && break; sleep 0.1; done
done
# The controller's own CPU (user + system s, to the microsecond) and peak memory (KiB).
taskset -c "$GEN_CPU" python3 "$ROOT/bench/agents/rusage.py" controller.time timeout $HARD "$STAMPEDE" run plan/plan.yaml -q \
    --agents "$(IFS=,; echo "${ADDRS[*]}")" --token-file token --out merged >merged.out
stop_mock

# ---------------------------------------------------------------- results
fig() { jq -r ".total.$2" "$1/summary.json"; }
num() { printf '%.*f' "$1" "$2"; }
ratio() { num 2 "$(echo "scale=4; $1 / $2" | bc)"; }
merged_rps=$(fig merged throughput_rps)
read -r c_user c_sys c_kib <controller.time
c_cpu=$(echo "$c_user + $c_sys" | bc)
# The controller merges every line each agent streams (one per second of its part: the agent's
# own run directory keeps them all), into one line per second of the run's own log.
own() { echo work-"$1"/job-*/run; }
agent_lines=0
for i in $(seq "$AGENTS"); do agent_lines=$((agent_lines + $(wc -l <"$(own "$i")/intervals.jsonl"))); done
run_lines=$(wc -l <merged/intervals.jsonl)
served=$(sed -nE 's/.*served ([0-9]+) requests.*/\1/p' mock.log)
sent=$(fig merged samples)
# CPU per request of the generators: one process, and all the agents together.
cpu_us() { jq -s 'map(.generator.cpu_user_s + .generator.cpu_system_s) | add' "$@"; }
agents_us=$(echo "scale=6; $(cpu_us merged/agents/*/meta.json) * 1000000 / $sent" | bc)
if ((BASELINES)); then
    wrk_rps=$(awk '/^Requests\/sec/ {print $2}' wrk.out)
    single_rps=$(fig single throughput_rps)
    single_us=$(echo "scale=6; $(cpu_us single/meta.json) * 1000000 / $(fig single samples)" | bc)
fi
{
    echo "# $AGENTS agents vs one process vs wrk ($(date +%F), $(nproc) CPUs, $USERS connections, ${DURATION}s, mock on CPU $TARGET_CPU, generators and controller on CPU $GEN_CPU)"
    echo
    echo "command: \`DURATION=$DURATION USERS=$USERS AGENTS=$AGENTS BASELINES=$BASELINES bash bench/agents/run.sh\`"
    echo
    echo "| load | requests | req/s | p50 ms | p99 ms | vs one process |"
    echo "|---|---:|---:|---:|---:|---:|"
    if ((BASELINES)); then
        echo "| wrk -t1 | $(awk '/requests in/ {print $1}' wrk.out) | $(num 0 "$wrk_rps") | $(awk '$1 == "50%" {print $2}' wrk.out) | $(awk '$1 == "99%" {print $2}' wrk.out) | $(ratio "$wrk_rps" "$single_rps") |"
        echo "| stampede, one process | $(fig single samples) | $(num 0 "$single_rps") | $(num 3 "$(fig single p50_ms)") | $(num 3 "$(fig single p99_ms)") | 1.00 |"
    fi
    echo "| stampede, $AGENTS agents merged | $(fig merged samples) | $(num 0 "$merged_rps") | $(num 3 "$(fig merged p50_ms)") | $(num 3 "$(fig merged p99_ms)") | $( ((BASELINES)) && ratio "$merged_rps" "$single_rps" || echo -) |"
    echo
    echo "| agent | users | requests | start skew ms | agent CPU s | agent peak MiB |"
    echo "|---|---:|---:|---:|---:|---:|"
    for i in $(seq "$AGENTS"); do
        d=$(echo merged/agents/"$i"-*/)
        m="$d/meta.json"
        echo "| $(jq -r '.part.segment' "$m") | $(jq -s 'map(.active_users | add) | max' "$(own "$i")/intervals.jsonl") | $(fig "$d" samples) | $(num 1 "$(jq -r '.part.start_skew_ms' "$m")") | $(num 2 "$(jq -r '.generator.cpu_user_s + .generator.cpu_system_s' "$m")") | $(num 1 "$(jq -r '.generator.peak_rss_mib' "$m")") |"
    done
    echo
    echo "controller: $(num 3 "$c_cpu") s CPU ($c_user user + $c_sys system) for $agent_lines agent intervals merged into $run_lines seconds of the run:" \
        "$(num 3 "$(echo "scale=6; $c_cpu * 1000 / $agent_lines" | bc)") ms per agent interval, $(num 3 "$(echo "scale=6; $c_cpu * 1000 / $run_lines" | bc)") ms per merged second;" \
        "peak memory $(num 1 "$(echo "scale=2; $c_kib / 1024" | bc)") MiB (the whole run: job, start, live merge into the run directory)"
    echo
    echo "generator CPU per request: $(num 2 "$agents_us") µs on the $AGENTS agents together$( ((BASELINES)) && echo ", $(num 2 "$single_us") µs in one process")"
    echo
    echo "the mock, during the agents' run: $(tail -1 mock.log) (the merged run counted $sent)"
} >results.md
jq -n --argjson agents "$AGENTS" --argjson duration "$DURATION" --argjson users "$USERS" \
    --argjson c_user "$c_user" --argjson c_sys "$c_sys" --argjson c_kib "$c_kib" \
    --argjson agent_lines "$agent_lines" --argjson run_lines "$run_lines" \
    --argjson samples "$(fig merged samples)" --argjson rps "$merged_rps" \
    --argjson single_rps "${single_rps:-null}" --argjson wrk_rps "${wrk_rps:-null}" \
    --argjson served "${served:-null}" --argjson sent "$sent" \
    --argjson agents_us "$agents_us" --argjson single_us "${single_us:-null}" \
    --argjson skews "$(jq -s 'map(.part.start_skew_ms)' merged/agents/*/meta.json)" \
    '$ARGS.named' >figures.json
cat results.md
