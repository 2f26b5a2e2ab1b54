#!/usr/bin/env bash
# The anchors' four workloads (../shared/anchors/LpfBench.java: empty sync, 8-byte put + sync,
# 1 MiB put + sync, 64 KiB total exchange) on the net engine and on the MPI engine over Open MPI's
# TCP path (--mca pml ob1 --mca btl tcp,self), interleaved round by round, and the MPI engine on
# its default (shared-memory) path. Run from the project root after `bin/lpf --help` built lpf4j.
# Usage: docs/scripts/net-vs-mpi-tcp.sh P ROUNDS  -> lines "<engine> <workload> <p> <value>"
# With LPF_NET_BEFORE set to the class path of another build of lpf4j (e.g. a copy of an older
# checkout's "lpf4j-tools/target/lib/*:lpf4j-tools/target/classes"), each round first runs the net
# engine of that build too (lines "lpf4j-net-before ..."): before and after in one run.
set -u
P=${1:-2} R=${2:-3}
anchors=${LPF_ANCHORS:-../shared/anchors}
. bin/jdk25.sh
cp="lpf4j-tools/target/lib/*:lpf4j-tools/target/classes"
lb=$(mktemp -d); "$JAVA_HOME/bin/javac" -cp "$cp" -d "$lb" "$anchors/LpfBench.java" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tag() { awk -v t="$1" 'NF == 3 && $3 ~ /^[0-9.]+$/ { print t, $0 }'; }
java="$JAVA_HOME/bin/java --enable-native-access=ALL-UNNAMED"
for r in $(seq "$R"); do
  if [ -n "${LPF_NET_BEFORE:-}" ]; then
    timeout 300 $java -cp "$LPF_NET_BEFORE" org.lpf4j.engine.net.NetLaunch "$P" \
      $java -Dlpf.engine=net -cp "$LPF_NET_BEFORE:$lb" LpfBench "$P" 2>/dev/null | tag lpf4j-net-before
  fi
  timeout 300 $java -cp "$cp" org.lpf4j.engine.net.NetLaunch "$P" \
    $java -Dlpf.engine=net -cp "$cp:$lb" LpfBench "$P" 2>/dev/null | tag lpf4j-net
  timeout 300 mpirun -n "$P" --oversubscribe --bind-to none --mca pml ob1 --mca btl tcp,self --mca osc ^ucx \
    $java -Dlpf.engine=mpi -cp "$cp:$lb" LpfBench "$P" 2>/dev/null | tag lpf4j-mpi-tcp
  timeout 300 mpirun -n "$P" --oversubscribe --bind-to none --mca osc ^ucx \
    $java -Dlpf.engine=mpi -cp "$cp:$lb" LpfBench "$P" 2>/dev/null | tag lpf4j-mpi-shm
done
rm -rf "$lb"
