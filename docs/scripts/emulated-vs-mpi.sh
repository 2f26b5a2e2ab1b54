#!/usr/bin/env bash
# Issue 41's emulated-hosts targets: the net engine against the MPI engine over Open MPI's TCP path
# (bin/emulated-hosts --mpi: btl tcp,self on the hosts' subnet) on the same namespaces, taking turns
# round by round. Workloads: the anchors' ScaleBench (empty sync, 8-byte ring put, dense put) and
# docs/scripts/BigPut.java (1 MiB put to the right neighbour).
# Both engines run with bin/emulated-hosts --yield: the hosts share this machine's cores, so a spinning
# wait would take the core the peer it waits for needs (16 JVMs spinning on 2 cores measure the
# scheduler); both poll and yield the core between polls: the net engine for 1 ms before it blocks
# (lpf.engine.net.wait=yield, spinMicros=1000), the MPI engine without end, and Open MPI's own waits
# yield (lpf.engine.mpi.wait=poll; docs/scale.md).
# Usage: docs/scripts/emulated-vs-mpi.sh HOSTS PER_HOST [ROUNDS] [SYNCS] [PUTS] -> lines "<engine> <name> <p> <value>"
# SYNCS (default 1000) per measurement of ScaleBench, PUTS (default 400) of BigPut: with fewer the
# figures still carried the JIT's warm-up, 8-32 JVMs compiling on 2 cores (at PUTS = 100 and p = 16 a
# net JVM's compiler threads used as much CPU as its rank thread; docs/performance-log.md).
# Needs root and iproute2; run from anywhere after a build (bin/lpf info builds lpf4j-tools if stale).
set -u
cd "$(dirname "$0")/../.."
. bin/jdk25.sh
hosts=${1:?hosts} per=${2:?per-host} rounds=${3:-2} syncs=${4:-1000} puts=${5:-400}
p=$((hosts * per))
anchors=${LPF_ANCHORS:-../shared/anchors}
bin/lpf info >/dev/null 2>&1
cp="$PWD/lpf4j-tools/target/lib/*:$PWD/lpf4j-tools/target/classes"
lb=$(mktemp -d); trap 'rm -rf "$lb"' EXIT
"$JAVA_HOME/bin/javac" -cp "$cp" -d "$lb" "$anchors/ScaleBench.java" docs/scripts/BigPut.java || exit 1
chmod -R a+rX "$lb"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
java="$JAVA_HOME/bin/java $LPF_JVM_OPTIONS -Xmx256m"
tag() { awk -v t="$1" 'NF == 3 && $3 ~ /^[0-9.]+$/ { print t, $0; fflush() }'; }
eh="bin/emulated-hosts --hosts $hosts --per-host $per --timeout 600 --yield"
for r in $(seq "$rounds"); do
  for prog in "ScaleBench $p $syncs" "BigPut $p $puts"; do
    $eh -- $java -cp "$cp:$lb" $prog 2>/dev/null | tag net
    $eh --mpi -- $java -cp "$cp:$lb" org.lpf4j.tools.LpfCommand run --engine mpi -p "$p" $prog 2>/dev/null | tag mpi-tcp
  done
done
