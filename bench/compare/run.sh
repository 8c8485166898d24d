#!/usr/bin/env bash
# Compare stampede with wrk and oha against the same loopback targets
# (nginx and stampede's own mock server). See bench/README.md.
#
# Usage: bash bench/compare/run.sh
# Environment:
#   DURATION   length of each load run, e.g. 10s, 30s, 1m     (default 10s)
#   STAMPEDE   path to a stampede binary; if unset, the script runs
#              `cargo build --release` in the repository root and uses it
#   BEFORE     path to an older stampede binary, run as the generator "before"
#              right after "stampede" (add "before" to TOOLS), for before/after figures
#   TOOLS      load generators to run                       (default "wrk oha stampede")
#   TARGETS    targets to run against                       (default "nginx mock")
#   CONNS      connection counts for the throughput tables  (default "50 1000")
#   MEM_CONNS  connections for the memory test against nginx, 0 = skip (default 10000)
#   GEN_CPU / TARGET_CPU  CPUs for the load generator / target (default 0 / 1)
#   RUN_DIR    where results go (default bench/runs/<date>-<host>)
#
# All traffic goes to 127.0.0.1 only, and every load run is bounded by its
# duration and, as a hard stop, by `timeout DURATION+30s`.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)

DURATION=${DURATION:-10s}
TOOLS=${TOOLS:-"wrk oha stampede"}
TARGETS=${TARGETS:-"nginx mock"}
CONNS=${CONNS-"50 1000"}
MEM_CONNS=${MEM_CONNS:-10000}
GEN_CPU=${GEN_CPU:-0}
TARGET_CPU=${TARGET_CPU:-1}
RUN_DIR=${RUN_DIR:-$ROOT/bench/runs/$(date +%F)-$(hostname -s)}
WANT_NOFILE=65536

log() { printf '[bench] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
has_word() { [[ " $1 " == *" $2 "* ]]; }

# ---------------------------------------------------------------- duration
if [[ $DURATION =~ ^([0-9]+)(s|m)?$ ]]; then
    DURATION_SECONDS=${BASH_REMATCH[1]}
    [[ ${BASH_REMATCH[2]} == m ]] && DURATION_SECONDS=$((DURATION_SECONDS * 60))
else
    die "DURATION must look like 10s, 10 or 1m (got '$DURATION')"
fi
((DURATION_SECONDS > 0)) || die "DURATION must be positive"
DURATION=${DURATION_SECONDS}s # one spelling that wrk, oha and stampede all accept
HARD_LIMIT=$((DURATION_SECONDS + 30))

# ---------------------------------------------------------------- prerequisites
for bin in taskset timeout jq awk ss; do
    command -v "$bin" >/dev/null || die "$bin not found (apt-get install -y util-linux coreutils jq gawk iproute2)"
done
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (apt-get install -y time)"

ncpu=$(nproc)
if ((ncpu < 2)); then
    log "warning: only $ncpu CPU; target and generator share CPU 0"
    GEN_CPU=0 TARGET_CPU=0
fi

# ---------------------------------------------------------------- open files
if ! ulimit -n "$WANT_NOFILE" 2>/dev/null; then
    hard=$(ulimit -Hn)
    if [[ $hard != unlimited ]] && ((hard < WANT_NOFILE)); then
        log "warning: cannot raise open-file limit to $WANT_NOFILE (hard limit $hard, no CAP_SYS_RESOURCE?); using $hard"
        ulimit -n "$hard"
    else
        ulimit -n "$WANT_NOFILE"
    fi
fi
NOFILE=$(ulimit -n)
log "open-file limit: $NOFILE"
if ((MEM_CONNS > 0)) && [[ $NOFILE != unlimited ]] && ((NOFILE < MEM_CONNS + 100)); then
    die "open-file limit $NOFILE is too low for MEM_CONNS=$MEM_CONNS"
fi
NGINX_NOFILE=$NOFILE
[[ $NGINX_NOFILE == unlimited ]] && NGINX_NOFILE=$WANT_NOFILE

# ---------------------------------------------------------------- workspace
TMP=$(mktemp -d /tmp/stampede-bench.XXXXXX)
TARGET_PID=""
TARGET_NAME=""
TARGET_LOG=""

stop_target() {
    local pid=$TARGET_PID sig
    [[ -n $pid ]] || return 0
    TARGET_PID=""
    # SIGTERM (nginx: fast shutdown; the mock prints its served count), then SIGKILL.
    # Not SIGINT: background jobs of a non-interactive shell start with SIGINT ignored.
    for sig in TERM KILL; do
        kill -s "$sig" "$pid" 2>/dev/null || break
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break 2
            sleep 0.1
        done
        log "$TARGET_NAME (pid $pid) still running after SIG$sig"
    done
    wait "$pid" 2>/dev/null || true
}

cleanup() {
    local rc=$?
    stop_target
    rm -rf "$TMP"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$RUN_DIR"
# Remove what an earlier run of the same day left (only our own file names).
find "$RUN_DIR" -maxdepth 1 -type f \( -name '*.out' -o -name '*.err' -o -name '*.time' \
    -o -name '*.json' -o -name '*.log' -o -name '*.conf' -o -name 'results.md' -o -name 'commands.txt' \) -delete
COMMANDS=$RUN_DIR/commands.txt
: >"$COMMANDS"

shell_quote() { # quote one word for a POSIX shell, readably
    local w=$1 q="'"
    if [[ $w =~ ^[A-Za-z0-9_./:=,@%+-]+$ ]]; then
        printf '%s' "$w"
    else
        printf "'%s'" "${w//$q/$q\\$q$q}"
    fi
}

# Paths of this machine made relative for the committed report: the repository's files relative
# to its root, anything else absolute as <tmp>/ (elsewhere those directories mean nothing; a
# test checks that no committed bench report holds one).
report_paths() {
    sed -e "s|$ROOT/||g" -e 's#\(^\|[^A-Za-z0-9_.~>-]\)/\(tmp\|work\|root\|home\)/#\1<tmp>/#g'
}

record() { # append a command line, shell-quoted, to commands.txt
    local line="" w
    for w in "$@"; do line+="$(shell_quote "$w") "; done
    printf '%s\n' "${line% }" | report_paths >>"$COMMANDS"
}

free_port() {
    local p
    for _ in $(seq 200); do
        p=$((20000 + RANDOM % 12000))
        if [[ -z $(ss -Htln "sport = :$p") ]]; then
            echo "$p"
            return 0
        fi
    done
    die "no free port found"
}

wait_port() { # wait until 127.0.0.1:$1 accepts connections, or the target died
    local port=$1
    for _ in $(seq 100); do
        kill -0 "$TARGET_PID" 2>/dev/null || return 1
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            return 0
        fi
        sleep 0.1
    done
    return 1
}

# ---------------------------------------------------------------- stampede binary
STAMPEDE_OK=0
need_stampede=0
if has_word "$TOOLS" stampede || has_word "$TARGETS" mock; then need_stampede=1; fi
if ((need_stampede)); then
    if [[ -z ${STAMPEDE:-} ]]; then
        log "building stampede: cargo build --release (in $ROOT)"
        (cd "$ROOT" && cargo build --release) || die "cargo build --release failed"
        STAMPEDE=${CARGO_TARGET_DIR:-$ROOT/target}/release/stampede
    fi
    if [[ -x $STAMPEDE ]]; then
        STAMPEDE_OK=1
    else
        log "stampede binary '$STAMPEDE' not found: skipping the stampede generator and the mock target"
    fi
fi

# A binary's resident text depends on how much of its file is in the page cache (the kernel maps
# the cached pages around each fault): a binary copied a minute ago shows 1-2 MiB more RSS than
# one copied hours ago. Both run from copies made now, so a memory comparison is on equal terms.
STAMPEDE_SRC=${STAMPEDE:-}
BEFORE_SRC=${BEFORE:-}
mkdir -p "$TMP/bin"
if ((STAMPEDE_OK)); then cp "$STAMPEDE" "$TMP/bin/stampede" && STAMPEDE=$TMP/bin/stampede; fi
if [[ -n ${BEFORE:-} && -x $BEFORE ]]; then cp "$BEFORE" "$TMP/bin/before" && BEFORE=$TMP/bin/before; fi

tool_available() {
    case $1 in
        stampede) ((STAMPEDE_OK)) ;;
        before) [[ -n ${BEFORE:-} && -x $BEFORE ]] ;;
        *) command -v "$1" >/dev/null ;;
    esac
}

GENERATORS=()
for t in $TOOLS; do
    case $t in
        wrk | oha | stampede | before) ;;
        *) die "unknown tool '$t' in TOOLS (known: wrk oha stampede before)" ;;
    esac
    if tool_available "$t"; then
        GENERATORS+=("$t")
    else
        log "$t not found: skipping it"
    fi
done
((${#GENERATORS[@]} > 0)) || die "no load generator available (TOOLS='$TOOLS')"

RUN_TARGETS=()
for t in $TARGETS; do
    case $t in
        nginx)
            if command -v nginx >/dev/null; then RUN_TARGETS+=(nginx); else log "nginx not found: skipping the nginx target"; fi
            ;;
        mock)
            if ((STAMPEDE_OK)); then RUN_TARGETS+=(mock); else log "no stampede binary: skipping the mock target"; fi
            ;;
        *) die "unknown target '$t' in TARGETS (known: nginx mock)" ;;
    esac
done
((${#RUN_TARGETS[@]} > 0)) || die "no target available (TARGETS='$TARGETS')"

# ---------------------------------------------------------------- targets
NGINX_PREFIX=$TMP/nginx
STATUS_PATH=/__bench_status

write_nginx_conf() {
    local port=$1
    mkdir -p "$NGINX_PREFIX"
    cat >"$NGINX_PREFIX/nginx.conf" <<EOF
user root;
worker_processes 1;
worker_rlimit_nofile $NGINX_NOFILE;
pid $NGINX_PREFIX/nginx.pid;
error_log $NGINX_PREFIX/error.log;
events { worker_connections 20000; }
http {
    access_log off;
    error_log $NGINX_PREFIX/error.log;
    keepalive_requests 100000000;
    client_body_temp_path $NGINX_PREFIX/client_body;
    proxy_temp_path $NGINX_PREFIX/proxy;
    fastcgi_temp_path $NGINX_PREFIX/fastcgi;
    uwsgi_temp_path $NGINX_PREFIX/uwsgi;
    scgi_temp_path $NGINX_PREFIX/scgi;
    server {
        listen 127.0.0.1:$port;
        location / { return 200 'OK'; }
        location = $STATUS_PATH { stub_status; }
    }
}
EOF
}

start_target() { # $1 = nginx|mock, $2 = port, $3 = log file
    local name=$1 port=$2
    TARGET_NAME=$name
    TARGET_LOG=$3
    local -a cmd
    case $name in
        nginx)
            write_nginx_conf "$port"
            cmd=(taskset -c "$TARGET_CPU" nginx -c "$NGINX_PREFIX/nginx.conf" -p "$NGINX_PREFIX"
                -e "$NGINX_PREFIX/error.log" -g 'daemon off;')
            ;;
        mock)
            cmd=(taskset -c "$TARGET_CPU" "$STAMPEDE" mock --listen "127.0.0.1:$port")
            ;;
    esac
    record "${cmd[@]}"
    "${cmd[@]}" >"$TARGET_LOG" 2>&1 &
    TARGET_PID=$!
    if ! wait_port "$port"; then
        log "$name did not start on 127.0.0.1:$port; its output:"
        cat "$TARGET_LOG" >&2 || true
        [[ $name == nginx ]] && cat "$NGINX_PREFIX/error.log" >&2 2>/dev/null
        stop_target
        return 1
    fi
    log "$name listening on 127.0.0.1:$port (pid $TARGET_PID, CPU $TARGET_CPU)"
}

nginx_status() { # prints "ACTIVE REQUESTS" from nginx's stub_status, or nothing
    local port=$1 resp
    resp=$(
        exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
        printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$STATUS_PATH" >&3
        timeout 5 cat <&3
    ) 2>/dev/null || return 0
    awk '/^Active connections:/ { a = $3 } /^ *[0-9]+ +[0-9]+ +[0-9]+ *\r?$/ { r = $3 }
         END { if (a != "" && r != "") print a, r }' <<<"$resp"
}

DRAIN_REQUESTS=""
DRAIN_POLLS=0
nginx_drain() { # wait (at most 30 s) until nginx has no client connections left;
    # sets DRAIN_REQUESTS (its request counter, counting our status requests) and DRAIN_POLLS
    local port=$1 active="" requests=""
    DRAIN_REQUESTS="" DRAIN_POLLS=0
    for _ in $(seq 300); do
        active="" requests=""
        read -r active requests < <(nginx_status "$port") || true
        [[ -n $active ]] || return 0
        DRAIN_POLLS=$((DRAIN_POLLS + 1))
        DRAIN_REQUESTS=$requests
        ((active <= 1)) && return 0 # the status request itself
        sleep 0.1
    done
    log "nginx still has $active connections open after 30 s"
}

mock_served() { # served count printed by the mock on stop, or empty
    # e.g. "served 123456 requests on 50 connections"
    sed -nE 's/.*[Ss]erved[^0-9]*([0-9]+).*/\1/p' "$1" 2>/dev/null | tail -n1 || true
}

# ---------------------------------------------------------------- results
declare -A RPS REQS CPU_US RSS_KB EXIT SERVED ERRS

fmt() { # printf format, value: prints n/a for empty values
    if [[ -z $2 || $2 == n/a ]]; then echo n/a; else awk -v f="$1" -v v="$2" 'BEGIN { printf f, v }'; fi
}
ratio() { # a / b with 2 decimals, or n/a
    if [[ -z $1 || -z $2 || $1 == n/a || $2 == n/a ]]; then echo n/a; return; fi
    awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f", a / b }'
}

# Parse a generator's output into requests and requests/s ("" when missing).
parse_wrk() {
    local out=$1
    P_REQS=$(awk '/ requests in / { print $1; exit }' "$out")
    P_RPS=$(awk '/^Requests\/sec:/ { print $2; exit }' "$out")
    P_ERRS=$(awk '/Socket errors:|Non-2xx/ { sub(/^ +/, ""); printf "%s%s", sep, $0; sep = "; " }' "$out")
}
parse_oha() {
    local out=$1
    P_REQS=$(jq -r '[.statusCodeDistribution // {} | to_entries[] | select(.key | startswith("2")) | .value] | add // 0' "$out" 2>/dev/null || true)
    P_RPS=$(jq -r '.summary.requestsPerSec // empty' "$out" 2>/dev/null || true)
    P_ERRS=$(jq -r '[.errorDistribution // {} | to_entries[] | "\(.key): \(.value)"] | join("; ")' "$out" 2>/dev/null || true)
}
parse_stampede() {
    local summary=$1
    P_REQS=$(jq -r '.total.samples // empty' "$summary" 2>/dev/null || true)
    P_RPS=$(jq -r '.total.throughput_rps // empty' "$summary" 2>/dev/null || true)
    P_ERRS=$(jq -r '.total.errors // empty' "$summary" 2>/dev/null || true)
    if [[ -n $P_ERRS && $P_ERRS != 0 ]]; then P_ERRS="errors: $P_ERRS"; else P_ERRS=""; fi
}

run_load() { # tool target port conns
    local tool=$1 target=$2 port=$3 c=$4
    local key="$target|$tool|$c" tag="$target-$tool-c$c"
    local out=$RUN_DIR/$tag.out err=$RUN_DIR/$tag.err tfile=$RUN_DIR/$tag.time
    local url="http://127.0.0.1:$port/" sdir="" before="" after=""
    local -a cmd
    case $tool in
        wrk) cmd=(wrk -t1 "-c$c" "-d$DURATION" --latency "$url") ;;
        oha) cmd=(oha --no-tui -c "$c" -z "$DURATION" --output-format json "$url") ;;
        stampede | before)
            sdir=$TMP/$tool-$target-$c
            local bin=$STAMPEDE
            [[ $tool == before ]] && bin=$BEFORE
            cmd=("$bin" run --url "$url" --users "$c" --duration "$DURATION" --out "$sdir" --quiet)
            ;;
    esac
    local -a full=(taskset -c "$GEN_CPU" /usr/bin/time -f '%e %U %S %M' -o "$tfile"
        timeout -k 5 "$HARD_LIMIT" "${cmd[@]}")
    record "${full[@]}"
    if [[ $target == nginx ]]; then
        nginx_drain "$port"
        before=$DRAIN_REQUESTS
    fi
    log "$tool -> $target, $c connections, $DURATION"
    local rc=0
    "${full[@]}" >"$out" 2>"$err" </dev/null || rc=$?
    # Let nginx finish with the generator's connections (aborted at the deadline or not)
    # before the next run, and count what it served, status requests excluded.
    if [[ $target == nginx ]]; then
        nginx_drain "$port"
        after=$DRAIN_REQUESTS
    fi
    EXIT[$key]=$rc
    ((rc == 0)) || log "$tool exited with status $rc (see $err)"

    P_REQS="" P_RPS="" P_ERRS=""
    case $tool in
        wrk) parse_wrk "$out" ;;
        oha) parse_oha "$out" ;;
        stampede | before)
            if [[ -f $sdir/summary.json ]]; then
                cp "$sdir/summary.json" "$RUN_DIR/$tag.summary.json"
                parse_stampede "$sdir/summary.json"
            else
                log "stampede wrote no $sdir/summary.json"
            fi
            ;;
    esac
    REQS[$key]=$P_REQS
    RPS[$key]=$P_RPS
    ERRS[$key]=$P_ERRS

    # GNU time writes "Command exited with non-zero status N" before the numbers.
    local wall user sys rss
    read -r wall user sys rss < <(tail -n1 "$tfile" 2>/dev/null || true) || true
    RSS_KB[$key]=${rss:-}
    if [[ -n ${user:-} && -n ${sys:-} && -n $P_REQS && $P_REQS != 0 ]]; then
        CPU_US[$key]=$(awk -v u="$user" -v s="$sys" -v n="$P_REQS" 'BEGIN { printf "%.3f", (u + s) * 1e6 / n }')
    else
        CPU_US[$key]=""
    fi
    if [[ -n $before && -n $after ]]; then
        SERVED[$key]=$((after - before - DRAIN_POLLS)) # minus our status requests
    fi
    log "  req/s=$(fmt '%.0f' "${RPS[$key]}") requests=${REQS[$key]:-n/a} cpu_us/req=${CPU_US[$key]:-n/a} rss_kib=${RSS_KB[$key]:-n/a} wall=${wall:-n/a}s"
    sleep 1 # let the target settle between runs
}

run_with_fresh_mock() { # tool conns: the mock is restarted per run so its served count is per run
    local tool=$1 c=$2 port tag
    port=$(free_port)
    tag="mock-$tool-c$c"
    start_target mock "$port" "$RUN_DIR/$tag.target.log" || return 0
    run_load "$tool" mock "$port" "$c"
    stop_target
    SERVED["mock|$tool|$c"]=$(mock_served "$RUN_DIR/$tag.target.log")
}

# ---------------------------------------------------------------- run
log "results go to $RUN_DIR"
log "generators: ${GENERATORS[*]}; targets: ${RUN_TARGETS[*]}; conns: $CONNS; duration: $DURATION"

for target in "${RUN_TARGETS[@]}"; do
    case $target in
        nginx)
            port=$(free_port)
            start_target nginx "$port" "$RUN_DIR/nginx.target.log" || die "nginx failed to start"
            for c in $CONNS; do
                for tool in "${GENERATORS[@]}"; do run_load "$tool" nginx "$port" "$c"; done
            done
            # A memory test at a count the throughput runs had is those runs (the same keys,
            # and a second stampede run into the same --out would fail).
            if ((MEM_CONNS > 0)) && ! has_word "$CONNS" "$MEM_CONNS"; then
                for tool in "${GENERATORS[@]}"; do run_load "$tool" nginx "$port" "$MEM_CONNS"; done
            fi
            stop_target
            cp "$NGINX_PREFIX/error.log" "$RUN_DIR/nginx.error.log" 2>/dev/null || true
            cp "$NGINX_PREFIX/nginx.conf" "$RUN_DIR/nginx.conf"
            ;;
        mock)
            for c in $CONNS; do
                for tool in "${GENERATORS[@]}"; do run_with_fresh_mock "$tool" "$c"; done
            done
            ;;
    esac
done

# ---------------------------------------------------------------- report
first_line() { # first line of a command's output, or "not installed"
    if command -v "$1" >/dev/null; then "$@" 2>&1 | head -n1 || true; else echo "not installed"; fi
}

machine_md() {
    local model cpus mem
    model=$(lscpu 2>/dev/null | awk -F: '/^Model name/ { sub(/^ +/, "", $2); print $2; exit }')
    cpus=$(lscpu 2>/dev/null | awk -F: '/^CPU\(s\)/ { gsub(/ /, "", $2); print $2; exit }')
    mem=$(free -g | awk '/^Mem:/ { print $2 }')
    echo "## Machine"
    echo
    echo "- CPU: ${model:-unknown}, ${cpus:-$ncpu} CPUs (nproc: $ncpu)"
    echo "- Kernel: $(uname -r)"
    echo "- Memory: ${mem} GiB total (free -g)"
    echo "- wrk: $(first_line wrk --version)"
    echo "- oha: $(first_line oha --version)"
    echo "- nginx: $(first_line nginx -v)"
    if ((STAMPEDE_OK)); then
        echo "- stampede: $(first_line "$STAMPEDE" --version) ($STAMPEDE_SRC)"
    else
        echo "- stampede: not available"
    fi
    if tool_available before; then
        echo "- before: $(first_line "$BEFORE" --version) ($BEFORE_SRC)"
    fi
    echo "- rustc: $(first_line rustc --version)"
    echo "- open-file limit: $NOFILE"
    echo
}

target_table() { # target
    local target=$1 c tool key wrk_key
    echo "## Target: $target"
    echo
    echo "| tool | conns | req/s | ratio to wrk | CPU µs/req | ratio to wrk | peak RSS MiB | requests | served by target | exit | errors |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    for c in $CONNS; do
        wrk_key="$target|wrk|$c"
        for tool in "${GENERATORS[@]}"; do
            key="$target|$tool|$c"
            [[ -n ${EXIT[$key]:-} ]] || continue
            printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
                "$tool" "$c" \
                "$(fmt '%.0f' "${RPS[$key]:-}")" \
                "$(ratio "${RPS[$key]:-}" "${RPS[$wrk_key]:-}")" \
                "$(fmt '%.2f' "${CPU_US[$key]:-}")" \
                "$(ratio "${CPU_US[$key]:-}" "${CPU_US[$wrk_key]:-}")" \
                "$(fmt '%.1f' "$(awk -v k="${RSS_KB[$key]:-}" 'BEGIN { if (k != "") printf "%f", k / 1024 }')")" \
                "${REQS[$key]:-n/a}" "${SERVED[$key]:-n/a}" "${EXIT[$key]}" "${ERRS[$key]:-}"
        done
    done
    echo
}

memory_table() {
    local tool key
    echo "## Memory at $MEM_CONNS connections (target: nginx)"
    echo
    echo "| tool | conns | peak RSS MiB | KiB per connection | req/s | requests | exit | errors |"
    echo "|---|---:|---:|---:|---:|---:|---:|---|"
    for tool in "${GENERATORS[@]}"; do
        key="nginx|$tool|$MEM_CONNS"
        [[ -n ${EXIT[$key]:-} ]] || continue
        printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$tool" "$MEM_CONNS" \
            "$(fmt '%.1f' "$(awk -v k="${RSS_KB[$key]:-}" 'BEGIN { if (k != "") printf "%f", k / 1024 }')")" \
            "$(fmt '%.2f' "$(awk -v k="${RSS_KB[$key]:-}" -v c="$MEM_CONNS" 'BEGIN { if (k != "") printf "%f", k / c }')")" \
            "$(fmt '%.0f' "${RPS[$key]:-}")" "${REQS[$key]:-n/a}" "${EXIT[$key]}" "${ERRS[$key]:-}"
    done
    echo
}

RESULTS=$RUN_DIR/results.md
{
    echo "# stampede vs wrk vs oha: $(date '+%F %T %Z') on $(hostname -s)"
    echo
    machine_md
    echo "## Setup"
    echo
    echo "- Each run: $DURATION (hard stop: timeout ${HARD_LIMIT}s); target pinned to CPU $TARGET_CPU, generator to CPU $GEN_CPU (taskset)."
    echo "- req/s and requests as reported by each tool (oha: 2xx responses; stampede: summary.json .total.samples / .total.throughput_rps)."
    echo "- CPU µs/req = (user + sys CPU seconds of the generator, GNU time) × 10⁶ / requests. Peak RSS = GNU time %M."
    echo "- served by target: nginx stub_status request delta, or the count the mock prints when stopped (mock restarted per run)."
    echo "- Raw outputs: \`<target>-<tool>-c<conns>.{out,err,time}\` (stampede: \`.summary.json\`) in this directory."
    echo
    for target in "${RUN_TARGETS[@]}"; do target_table "$target"; done
    if ((MEM_CONNS > 0)) && has_word "${RUN_TARGETS[*]}" nginx; then memory_table; fi
    echo "## Commands"
    echo
    echo '```sh'
    cat "$COMMANDS"
    echo '```'
} | report_paths >"$RESULTS"

cat "$RESULTS"
log "wrote $RESULTS"
