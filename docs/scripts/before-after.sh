#!/usr/bin/env bash
# The anchors' LpfBench through `bin/lpf run` on two builds of lpf4j (BEFORE and AFTER trees),
# interleaved round by round, on threads, mpi, net and hybrid at p = 2 and 4.
# Usage: before-after.sh BEFORE_DIR AFTER_DIR ROUNDS  -> lines "<tree> <engine> <workload> <p> <value>"
set -u
B=$1 A=$2 R=${3:-3}
here=${LPF_ANCHORS:-$(cd "$(dirname "$0")/../../../shared/anchors" 2>/dev/null && pwd)}
cd "$A"; . bin/jdk25.sh
lb=$(mktemp -d); "$JAVA_HOME/bin/javac" -cp "$A/lpf4j-tools/target/lib/*" -d "$lb" "$here/LpfBench.java" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tag() { awk -v t="$1" -v e="$2" 'NF == 3 && $3 ~ /^[0-9.]+$/ { print t, e, $0 }'; }
for r in $(seq "$R"); do
  for P in 2 4; do
    for E in threads mpi net hybrid; do
      extra=""; [ "$E" = hybrid ] && extra="--nodes 2"
      for T in before after; do
        dir=$B; [ "$T" = after ] && dir=$A
        (cd "$dir" && timeout 300 bin/lpf run --engine "$E" -p "$P" $extra --class-path "$lb" LpfBench "$P" 2>/dev/null) | tag "$T" "$E"
      done
    done
  done
done
rm -rf "$lb"
