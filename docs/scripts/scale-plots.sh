#!/usr/bin/env bash
# The growth curves of docs/performance.md ("Growth with p"): docs/scripts/ScaleCounts.java on the net
# engine at p = 2 .. 64 (threads of at most 4 JVMs: lpf.engine.net.perJvm), the start-up time by
# docs/scripts/startup-vs-p.sh (STARTUP_ROUNDS rounds, default 3; 0: none), then GrowthPlots draws
# docs/img/growth-messages.png, growth-bytes.png, growth-connections.png and startup.png from
# docs/img/growth.txt (this run's lines, kept) and any FILE given (e.g. another build's start-up lines).
# Usage: docs/scripts/scale-plots.sh [FILE...]
set -u
cd "$(dirname "$0")/../.."
. bin/jdk25.sh
bin/lpf info >/dev/null 2>&1   # builds lpf4j-tools if stale
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
"$JAVA_HOME/bin/javac" -cp "lpf4j-tools/target/lib/*" -d "$out" docs/scripts/ScaleCounts.java || exit 1
mkdir -p docs/img
data=docs/img/growth.txt
: > "$data"
for p in ${SCALE_PS:-2 4 8 16 32 64}; do
  timeout 600 bin/lpf run --engine net -p "$p" --param lpf.engine.net.perJvm=$(( (p + 3) / 4 )) --class-path "$out" ScaleCounts "$p" \
    2>/dev/null | grep '^counts ' | tee -a "$data"
done
if [ "${STARTUP_ROUNDS:-3}" -gt 0 ]; then
  docs/scripts/startup-vs-p.sh "${STARTUP_ROUNDS:-3}" | sed 's/^/series=this-build /' | tee -a "$data"
fi
"$JAVA_HOME/bin/java" -cp "lpf4j-tools/target/lpf4j-tools-0.1.0-SNAPSHOT.jar:lpf4j-tools/target/lib/*" \
  org.lpf4j.tools.plot.GrowthPlots docs/img "$data" "$@"
