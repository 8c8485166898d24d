#!/usr/bin/env bash
# The cost of scripts (issue 14): the cost per execution of typical scripts
# (benches/script.rs), and the throughput of a plan with a JSR223 PostProcessor
# (`vars.put`) on every request vs the same plan without it, stampede and JMeter 5.6.3 side
# by side against the same loopback target (`stampede mock`). See bench/scripts/README.md.
#
# Usage: bash bench/scripts/run.sh
# Environment:
#   DURATION   seconds each load run lasts            (default 10)
#   USERS      threads of each plan                   (default 8)
#   TOOLS      "stampede jmeter" or one of them       (default both)
#   MICRO      1 = run the per-execution benchmark    (default 1)
#   STAMPEDE   a stampede binary (default: cargo build --release, into CARGO_TARGET_DIR if set)
#   JMETER_HOME  JMeter 5.6.3 (default ~/.cache/stampede/jmeter-5.6.3-full, from
#              bench/jmeter/fetch-jmeter.sh --full)
#   RUN_DIR    where results go (default bench/runs/<date>-scripts)
#
# Loopback only; every load run is bounded by its duration and by `timeout DURATION+60`.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
DURATION=${DURATION:-10}
USERS=${USERS:-8}
TOOLS=${TOOLS:-"stampede jmeter"}
MICRO=${MICRO:-1}
JMETER_HOME=${JMETER_HOME:-$HOME/.cache/stampede/jmeter-5.6.3-full}
RUN_DIR=${RUN_DIR:-$ROOT/bench/runs/$(date +%F)-scripts}
PORT=${PORT:-18731}
HARD=$((DURATION + 60))

log() { printf '[scripts] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
for bin in jq timeout awk; do command -v "$bin" >/dev/null || die "$bin not found"; done

mkdir -p "$RUN_DIR"
TMP=$(mktemp -d /tmp/stampede-scripts.XXXXXX)
MOCK_PID=""
cleanup() {
    local rc=$?
    if [[ -n $MOCK_PID ]]; then kill "$MOCK_PID" 2>/dev/null || true; wait "$MOCK_PID" 2>/dev/null || true; fi
    rm -rf "$TMP"
    exit "$rc"
}
trap cleanup EXIT

if [[ -z ${STAMPEDE:-} ]]; then
    log "building stampede (release)"
    (cd "$ROOT" && cargo build --release --quiet)
    STAMPEDE=${CARGO_TARGET_DIR:-$ROOT/target}/release/stampede
fi

RESULTS=$RUN_DIR/results.md
{
    echo "# Script cost ($(date -u +%FT%TZ), $(hostname -s))"
    echo
    echo "Machine: $(nproc) CPUs, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), load $(cut -d' ' -f1-3 /proc/loadavg)."
    echo "stampede $(cd "$ROOT" && git rev-parse --short HEAD); DURATION=${DURATION}s USERS=$USERS."
    echo
} >"$RESULTS"

if [[ $MICRO == 1 ]]; then
    log "per-execution cost (cargo bench --bench script)"
    {
        echo "## Cost per execution"
        echo
        echo '```'
        (cd "$ROOT" && cargo bench --quiet --bench script 2>/dev/null) || echo "(failed)"
        echo '```'
        echo
    } >>"$RESULTS"
fi

# A 1 KB JSON response, as the micro-benchmark's.
BODY=$(python3 -c 'import json; print(json.dumps({"token": "abc123", "items": [{"id": i, "name": "item-%d" % i, "price": i * 3 + 0.5} for i in range(20)]}))')
"$STAMPEDE" mock --listen "127.0.0.1:$PORT" --body "$BODY" --header "Content-Type: application/json" >"$TMP/mock.out" 2>&1 &
MOCK_PID=$!
for _ in $(seq 50); do
    (echo >"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
    sleep 0.1
done

# plan NAME WITH_SCRIPT: a thread group of USERS threads looping for DURATION seconds over one
# GET, with or without a JSR223 PostProcessor doing `vars.put`.
plan() {
    local post=""
    if [[ $2 == 1 ]]; then
        post='<hashTree><JSR223PostProcessor guiclass="TestBeanGUI" testclass="JSR223PostProcessor" testname="put" enabled="true">
<stringProp name="scriptLanguage">groovy</stringProp><stringProp name="parameters"></stringProp><stringProp name="filename"></stringProp>
<stringProp name="cacheKey">true</stringProp><stringProp name="script">vars.put("token", "abc")</stringProp>
</JSR223PostProcessor><hashTree/></hashTree>'
    else
        post='<hashTree/>'
    fi
    cat >"$TMP/$1.jmx" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2" properties="5.0" jmeter="5.6.3"><hashTree>
<TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="scripts" enabled="true"/><hashTree>
<ThreadGroup guiclass="ThreadGroupGui" testclass="ThreadGroup" testname="Users" enabled="true">
<stringProp name="ThreadGroup.on_sample_error">continue</stringProp>
<elementProp name="ThreadGroup.main_controller" elementType="LoopController" guiclass="LoopControlPanel" testclass="LoopController" enabled="true">
<boolProp name="LoopController.continue_forever">false</boolProp><intProp name="LoopController.loops">-1</intProp></elementProp>
<stringProp name="ThreadGroup.num_threads">$USERS</stringProp><stringProp name="ThreadGroup.ramp_time">0</stringProp>
<boolProp name="ThreadGroup.scheduler">true</boolProp><stringProp name="ThreadGroup.duration">$DURATION</stringProp><stringProp name="ThreadGroup.delay">0</stringProp>
</ThreadGroup><hashTree>
<HTTPSamplerProxy guiclass="HttpTestSampleGui" testclass="HTTPSamplerProxy" testname="get" enabled="true">
<stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.port">$PORT</stringProp>
<stringProp name="HTTPSampler.protocol">http</stringProp><stringProp name="HTTPSampler.path">/</stringProp>
<stringProp name="HTTPSampler.method">GET</stringProp><boolProp name="HTTPSampler.use_keepalive">true</boolProp>
</HTTPSamplerProxy>
$post
</hashTree></hashTree></hashTree></jmeterTestPlan>
EOF
}
plan plain 0
plan scripted 1

declare -A RPS
run_stampede() {
    local out=$TMP/st-$1
    timeout "$HARD" "$STAMPEDE" run "$TMP/$1.jmx" -q --out "$out" >"$TMP/st-$1.log" 2>&1 || { cat "$TMP/st-$1.log" >&2; return 1; }
    jq -r '.total.throughput_rps * 10 | round / 10' "$out/summary.json"
}
run_jmeter() {
    local jtl=$TMP/jm-$1.jtl
    [[ -f $JMETER_HOME/bin/ApacheJMeter.jar ]] || { log "no JMeter in $JMETER_HOME"; return 1; }
    timeout "$HARD" java -Djava.net.preferIPv4Stack=true -jar "$JMETER_HOME/bin/ApacheJMeter.jar" \
        -n -t "$TMP/$1.jmx" -l "$jtl" -j "$TMP/jm-$1.log" >/dev/null 2>&1 || return 1
    # Samples over the span of their start times.
    awk -F, 'NR > 1 && $1 ~ /^[0-9]+$/ { n++; if (!lo || $1 < lo) lo = $1; if ($1 + $2 > hi) hi = $1 + $2 }
             END { if (hi > lo) printf "%.1f\n", n * 1000 / (hi - lo); else print 0 }' "$jtl"
}

for tool in $TOOLS; do
    for p in plain scripted; do
        log "$tool: $p (${DURATION}s, $USERS users)"
        RPS[$tool-$p]=$("run_$tool" "$p" || echo "")
    done
done

{
    echo "## Throughput with a \`vars.put\` JSR223 PostProcessor on every request"
    echo
    echo "One GET of a 1 KB JSON from \`stampede mock\` on 127.0.0.1, $USERS threads, ${DURATION}s each."
    echo
    echo "| tool | without (req/s) | with (req/s) | with / without |"
    echo "|---|---:|---:|---:|"
    for tool in $TOOLS; do
        a=${RPS[$tool-plain]:-} b=${RPS[$tool-scripted]:-}
        ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", b / a; else print "n/a" }')
        printf '| %s | %s | %s | %s |\n' "$tool" "${a:-failed}" "${b:-failed}" "$ratio"
    done
    if [[ -n ${RPS[stampede-scripted]:-} && -n ${RPS[jmeter-scripted]:-} ]]; then
        echo
        awk -v s="${RPS[stampede-scripted]}" -v j="${RPS[jmeter-scripted]}" \
            'BEGIN { if (j > 0) printf "stampede / JMeter with the script: %.2f\n", s / j }'
    fi
} >>"$RESULTS"
cat "$RESULTS"
log "written $RESULTS"
