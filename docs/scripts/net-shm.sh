#!/usr/bin/env bash
# The anchors' four workloads (../shared/anchors/LpfBench.java: empty sync, 8-byte put + sync,
# 1 MiB put + sync, 64 KiB total exchange) through `lpf run` on one host: the net engine with its
# peers on shared memory (lpf.engine.net.shm, the default; large payloads read in one copy), the
# same with every payload through the rings (--param lpf.engine.net.shmSingleCopy=false), the net
# engine over loopback TCP
# (--param lpf.engine.net.shm=false), and the MPI engine (Open MPI, its shared-memory path),
# interleaved round by round. Run from the project root after `bin/lpf --help` built lpf4j.
# Usage: docs/scripts/net-shm.sh P ROUNDS  -> lines "<engine> <workload> <p> <value>"
set -u
P=${1:-2} R=${2:-3} T=${LPF_BENCH_TIMEOUT:-300}
anchors=${LPF_ANCHORS:-../shared/anchors}
. bin/jdk25.sh
cp="lpf4j-tools/target/lib/*:lpf4j-tools/target/classes"
lb=$(mktemp -d); "$JAVA_HOME/bin/javac" -cp "$cp" -d "$lb" "$anchors/LpfBench.java" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tag() { awk -v t="$1" 'NF == 3 && $3 ~ /^[0-9.]+$/ { print t, $0 }'; }
for r in $(seq "$R"); do
  timeout "$T" bin/lpf run --engine net -p "$P" -cp "$lb" LpfBench "$P" 2>/dev/null | tag lpf4j-net-shm
  timeout "$T" bin/lpf run --engine net -p "$P" --param lpf.engine.net.shmSingleCopy=false -cp "$lb" LpfBench "$P" 2>/dev/null | tag lpf4j-net-rings
  timeout "$T" bin/lpf run --engine net -p "$P" --param lpf.engine.net.shm=false -cp "$lb" LpfBench "$P" 2>/dev/null | tag lpf4j-net-tcp
  timeout "$T" bin/lpf run --engine mpi -p "$P" -cp "$lb" LpfBench "$P" 2>/dev/null | tag lpf4j-mpi-shm
done
rm -rf "$lb"
