#!/usr/bin/env bash
# Start-up time of the net engine against p, as threads of 4 JVMs (lpf.engine.net.perJvm = p / 4):
# docs/scripts/StartupTime.java through `bin/lpf run`, ROUNDS rounds of p = 8, 16, 32, 64.
# Usage: docs/scripts/startup-vs-p.sh [ROUNDS] [P...]   -> lines "startup p=P from_last_main_ms=T ..."
# LPF_RUN overrides the command that runs a program (default: bin/lpf run), e.g. to time another build.
set -u
cd "$(dirname "$0")/../.."
. bin/jdk25.sh
rounds=${1:-2}; shift || true
ps=${*:-8 16 32 64}
run=${LPF_RUN:-bin/lpf run}
bin/lpf info >/dev/null 2>&1   # builds lpf4j-tools if stale
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
"$JAVA_HOME/bin/javac" -cp "lpf4j-tools/target/lib/*" -d "$out" docs/scripts/StartupTime.java || exit 1
for r in $(seq "$rounds"); do
  for p in $ps; do
    timeout 300 $run --engine net -p "$p" --param lpf.engine.net.perJvm=$(( (p + 3) / 4 )) --class-path "$out" StartupTime "$p" 2>/dev/null \
      | grep '^startup '
  done
done
