#!/usr/bin/env bash
# The anchors' four workloads on C LPF's pthread engine and on lpf4j's threads engine with
# lpf.copy=auto ("native": large copies by the C library's memmove) and lpf.copy=java, taking
# turns round by round (docs/performance.md, "Copy bandwidth").
# Usage, from the project root after `bin/lpf --help` and ../shared/anchors/build-c-lpf.sh:
#   docs/scripts/threads-copy-vs-c.sh P ROUNDS  -> one line per engine and workload: the ROUNDS values
set -u
P=${1:-2} R=${2:-5}
dir=${LPF_ANCHOR_DIR:-$HOME/lpf-anchor}
[ -x "$dir/install/bin/lpfrun" ] || { echo "no C LPF at $dir: run ../shared/anchors/build-c-lpf.sh first"; exit 1; }
. bin/jdk25.sh
cp="lpf4j-tools/target/lib/*"
lb=$(mktemp -d); trap 'rm -rf "$lb"' EXIT
"$JAVA_HOME/bin/javac" -cp "$cp" -d "$lb" ../shared/anchors/LpfBench.java || exit 1
tag() { awk -v t="$1" 'NF == 3 && $3 ~ /^[0-9.]+$/ { print t, $0 }'; }
spin=""; [ "$P" -gt "$(nproc)" ] && spin="-spinlock yield"
for r in $(seq "$R"); do
  timeout 300 "$dir/install/bin/lpfrun" -engine pthread $spin -n "$P" "$dir/bench/lpf_bench_pthread" "$P" 2>/dev/null | tag C-pthread
  for copy in auto java; do
    timeout 300 "$JAVA_HOME/bin/java" -Dlpf.copy=$copy -Dlpf.engine.threads.procs="$P" --enable-native-access=ALL-UNNAMED \
      -cp "$cp:$lb" LpfBench "$P" 2>/dev/null | tag "lpf4j-$copy"
  done
done | awk '{ k = $1 " " $2; v[k] = v[k] " " $4 } END { for (k in v) print k, v[k] }' | sort -k2,2 -k1,1
