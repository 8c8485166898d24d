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
# Needs: mvn, java (17), unzip or jar. Reaches only Maven Central.
set -euo pipefail

VERSION=5.6.3
JMETER_HOME="${JMETER_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/stampede/jmeter-$VERSION}"
MODULES=(ApacheJMeter_core ApacheJMeter_http ApacheJMeter_components ApacheJMeter_functions ApacheJMeter_config)

die() { echo "fetch-jmeter: error: $*" >&2; exit 1; }
log() { echo "fetch-jmeter: $*" >&2; }

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

# --- install atomically ------------------------------------------------------
mkdir -p "$(dirname "$JMETER_HOME")"
rm -rf "$JMETER_HOME"
mv "$STAGE" "$JMETER_HOME"
date -u +%Y-%m-%dT%H:%M:%SZ > "$JMETER_HOME/.assembled"
log "JMeter $VERSION assembled in $JMETER_HOME"
echo "$JMETER_HOME"
