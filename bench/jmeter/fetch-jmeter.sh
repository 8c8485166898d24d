#!/usr/bin/env bash
# Assemble Apache JMeter 5.6.3 from Maven Central jars (no binary-distribution download).
#
#   bash bench/jmeter/fetch-jmeter.sh          # -> ${XDG_CACHE_HOME:-$HOME/.cache}/stampede/jmeter-5.6.3
#   JMETER_HOME=/some/dir bash bench/jmeter/fetch-jmeter.sh
#
# Layout produced (the part of JMeter's "dist" layout the non-GUI runner needs):
#   bin/ApacheJMeter.jar          launcher (org.apache.jmeter:ApacheJMeter)
#   bin/*.properties, bin/*.xml   from ApacheJMeter_config.jar (jmeter.properties, saveservice.properties, ...)
#   lib/ext/ApacheJMeter_*.jar    JMeter components (core, http, components, functions, config)
#   lib/*.jar                     every third-party runtime dependency (mvn dependency:copy-dependencies)
# Idempotent: does nothing when $JMETER_HOME/.assembled exists. Prints JMETER_HOME on stdout at the end.
# Before installing, runs a one-request plan (java -jar bin/ApacheJMeter.jar -n -t ...) against a
# loopback python3 server; `fetch-jmeter.sh --check` runs that smoke test on an existing install.
# Needs: mvn, java (17), unzip or jar. Reaches only Maven Central.
#
#   bash bench/jmeter/fetch-jmeter.sh --full   # -> .../stampede/jmeter-5.6.3-full
# also puts in every other JMeter protocol module (java: JSR223/BeanShell/Java samplers, tcp, jdbc,
# ftp, mail, ldap, jms, junit, native) and the jmeter-plugins most plans use (custom thread groups,
# Throughput Shaping Timer, Dummy Sampler, ...), in a JMETER_HOME of its own: corpus.py uses it, so
# that a plan with a plugin is run rather than skipped.
set -euo pipefail

VERSION=5.6.3
JMETER_HOME="${JMETER_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/stampede/jmeter-$VERSION}"
MODULES=(ApacheJMeter_core ApacheJMeter_http ApacheJMeter_components ApacheJMeter_functions ApacheJMeter_config)
PLUGINS=()
if [[ "${1:-}" == "--full" ]]; then
  shift
  JMETER_HOME="${JMETER_HOME_FULL:-${XDG_CACHE_HOME:-$HOME/.cache}/stampede/jmeter-$VERSION-full}"
  MODULES+=(ApacheJMeter_java ApacheJMeter_tcp ApacheJMeter_jdbc ApacheJMeter_ftp ApacheJMeter_mail
            ApacheJMeter_ldap ApacheJMeter_jms ApacheJMeter_junit ApacheJMeter_native)
  # groupId:artifactId:version of jmeter-plugins (jmeter-plugins.org), from Maven Central.
  PLUGINS=(kg.apc:jmeter-plugins-cmn-jmeter:0.7 kg.apc:jmeter-plugins-casutg:2.10
           kg.apc:jmeter-plugins-tst:2.5 kg.apc:jmeter-plugins-dummy:0.4)
fi

die() { echo "fetch-jmeter: error: $*" >&2; exit 1; }
log() { echo "fetch-jmeter: $*" >&2; }

# smoke_test HOME: run a one-request plan with HOME's JMeter against a loopback server.
smoke_test() {
  local home="$1" dir port spid rc=0
  command -v python3 >/dev/null || { log "python3 not found: smoke test skipped"; return 0; }
  dir="$(mktemp -d)"
  cat > "$dir/plan.jmx" <<'JMX'
<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2" properties="5.0" jmeter="5.6.3">
  <hashTree>
    <TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="smoke"/>
    <hashTree>
      <ThreadGroup guiclass="ThreadGroupGui" testclass="ThreadGroup" testname="smoke">
        <stringProp name="ThreadGroup.num_threads">1</stringProp>
        <stringProp name="ThreadGroup.ramp_time">0</stringProp>
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController" guiclass="LoopControlPanel" testclass="LoopController">
          <stringProp name="LoopController.loops">1</stringProp>
          <boolProp name="LoopController.continue_forever">false</boolProp>
        </elementProp>
      </ThreadGroup>
      <hashTree>
        <HTTPSamplerProxy guiclass="HttpTestSampleGui" testclass="HTTPSamplerProxy" testname="smoke">
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>
          <stringProp name="HTTPSampler.port">${__P(port,1)}</stringProp>
          <stringProp name="HTTPSampler.protocol">http</stringProp>
          <stringProp name="HTTPSampler.path">/smoke</stringProp>
          <stringProp name="HTTPSampler.method">GET</stringProp>
        </HTTPSamplerProxy>
        <hashTree/>
      </hashTree>
    </hashTree>
  </hashTree>
</jmeterTestPlan>
JMX
  # A loopback server on an ephemeral port that answers 200 and logs each request line; it
  # stops by itself after 120 s.
  python3 - "$dir" <<'PY' &
import http.server, sys, threading, os
d = sys.argv[1]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(os.path.join(d, "hits"), "a") as f:
            f.write(self.requestline + "\n")
        self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers()
        self.wfile.write(b"OK")
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(os.path.join(d, "port.tmp"), "w") as f:
    f.write(str(s.server_address[1]))
os.rename(os.path.join(d, "port.tmp"), os.path.join(d, "port"))
threading.Timer(120, s.shutdown).start()
s.serve_forever()
PY
  spid=$!
  for _ in $(seq 50); do [[ -f "$dir/port" ]] && break; sleep 0.1; done
  if [[ ! -f "$dir/port" ]]; then kill "$spid" 2>/dev/null; rm -rf "$dir"; die "smoke test: the loopback server did not start"; fi
  port="$(cat "$dir/port")"
  (cd "$dir" && java -jar "$home/bin/ApacheJMeter.jar" -n -t plan.jmx -l out.jtl -j jmeter.log "-Jport=$port") \
    > "$dir/jmeter.out" 2>&1 || rc=$?
  kill "$spid" 2>/dev/null || true
  wait "$spid" 2>/dev/null || true
  if [[ $rc -ne 0 ]] || ! grep -q "GET /smoke" "$dir/hits" 2>/dev/null || ! grep -q ",smoke,200," "$dir/out.jtl" 2>/dev/null; then
    tail -20 "$dir/jmeter.out" >&2; tail -20 "$dir/jmeter.log" >&2 2>/dev/null || true
    rm -rf "$dir"
    die "smoke test: JMeter in $home did not run a one-request plan against 127.0.0.1:$port"
  fi
  rm -rf "$dir"
  log "smoke test passed: java -jar $home/bin/ApacheJMeter.jar -n -t plan.jmx sent GET /smoke to a loopback server"
}

if [[ "${1:-}" == "--check" ]]; then
  [[ -f "$JMETER_HOME/bin/ApacheJMeter.jar" ]] || die "no JMeter in $JMETER_HOME (run without --check to assemble it)"
  command -v java >/dev/null || die "java not found (apt-get install -y openjdk-17-jre-headless)"
  smoke_test "$JMETER_HOME"
  exit 0
elif [[ -n "${1:-}" ]]; then
  die "unknown argument $1 (usage: fetch-jmeter.sh [--full] [--check])"
fi

if [[ -f "$JMETER_HOME/.assembled" && -f "$JMETER_HOME/bin/ApacheJMeter.jar" && -f "$JMETER_HOME/bin/jmeter.properties" ]]; then
  log "already assembled in $JMETER_HOME"
  echo "$JMETER_HOME"
  exit 0
fi

command -v mvn  >/dev/null || die "mvn not found (apt-get install -y maven)"
command -v java >/dev/null || die "java not found (apt-get install -y openjdk-17-jre-headless)"
UNZIP=""
if command -v unzip >/dev/null; then UNZIP=unzip
elif command -v jar >/dev/null; then UNZIP=jar
else die "neither unzip nor jar found (apt-get install -y unzip)"; fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# --- generated pom ---------------------------------------------------------
{
  cat <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 http://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>stampede.bench</groupId>
  <artifactId>jmeter-assembly</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.jmeter</groupId>
      <artifactId>ApacheJMeter</artifactId>
      <version>$VERSION</version>
    </dependency>
POM
  for m in "${MODULES[@]}"; do
    cat <<POM
    <dependency>
      <groupId>org.apache.jmeter</groupId>
      <artifactId>$m</artifactId>
      <version>$VERSION</version>
    </dependency>
POM
  done
  for g in "${PLUGINS[@]}"; do
    IFS=: read -r gid aid ver <<< "$g"
    cat <<POM
    <dependency>
      <groupId>$gid</groupId>
      <artifactId>$aid</artifactId>
      <version>$ver</version>
      <exclusions><exclusion><groupId>org.apache.jmeter</groupId><artifactId>*</artifactId></exclusion></exclusions>
    </dependency>
POM
  done
  cat <<POM
  </dependencies>
</project>
POM
} > "$WORK/pom.xml"

log "resolving JMeter $VERSION and its dependencies from Maven Central (first run takes a few minutes)"
DEPS="$WORK/deps"
if ! mvn -B -q -f "$WORK/pom.xml" \
      org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies \
      -DoutputDirectory="$DEPS" -DincludeScope=runtime > "$WORK/mvn.log" 2>&1; then
  tail -40 "$WORK/mvn.log" >&2
  die "mvn copy-dependencies failed (log above). Is Maven Central reachable?"
fi

[[ -f "$DEPS/ApacheJMeter-$VERSION.jar" ]] || die "ApacheJMeter-$VERSION.jar missing from resolved dependencies"

# --- lay out ---------------------------------------------------------------
STAGE="$WORK/jmeter"
mkdir -p "$STAGE/bin" "$STAGE/lib/ext" "$STAGE/lib/junit"
for jar in "$DEPS"/*.jar; do
  name="$(basename "$jar")"
  case "$name" in
    "ApacheJMeter-$VERSION.jar") cp "$jar" "$STAGE/bin/ApacheJMeter.jar" ;;
    ApacheJMeter_*)              cp "$jar" "$STAGE/lib/ext/${name%-$VERSION.jar}.jar" ;;
    jmeter-plugins-*)            cp "$jar" "$STAGE/lib/ext/" ;;
    *)                           cp "$jar" "$STAGE/lib/" ;;
  esac
done
for m in "${MODULES[@]}"; do
  [[ -f "$STAGE/lib/ext/$m.jar" ]] || die "$m.jar missing from resolved dependencies"
done

# ApacheJMeter_config.jar carries the bin/ directory of the distribution.
CFG="$WORK/config"
mkdir -p "$CFG"
if [[ $UNZIP == unzip ]]; then
  unzip -q -o "$STAGE/lib/ext/ApacheJMeter_config.jar" -d "$CFG"
else
  (cd "$CFG" && jar xf "$STAGE/lib/ext/ApacheJMeter_config.jar")
fi
[[ -f "$CFG/bin/jmeter.properties" ]] || die "bin/jmeter.properties not found inside ApacheJMeter_config.jar"
cp -R "$CFG/bin/." "$STAGE/bin/"
# The config jar is only a carrier for bin/; JMeter does not need it on the class path.
rm -f "$STAGE/lib/ext/ApacheJMeter_config.jar"

# --- smoke check: the launcher starts and reports its version ---------------
if ! (cd "$WORK" && java -jar "$STAGE/bin/ApacheJMeter.jar" --version) > "$WORK/version.txt" 2>&1; then
  cat "$WORK/version.txt" >&2
  die "assembled JMeter does not start (java -jar bin/ApacheJMeter.jar --version failed)"
fi
grep -q "$VERSION" "$WORK/version.txt" || { cat "$WORK/version.txt" >&2; die "unexpected version output"; }

# --- smoke check: a one-request plan against a loopback server ---------------
smoke_test "$STAGE"

# --- install atomically ------------------------------------------------------
mkdir -p "$(dirname "$JMETER_HOME")"
rm -rf "$JMETER_HOME"
mv "$STAGE" "$JMETER_HOME"
date -u +%Y-%m-%dT%H:%M:%SZ > "$JMETER_HOME/.assembled"
log "JMeter $VERSION assembled in $JMETER_HOME"
echo "$JMETER_HOME"
