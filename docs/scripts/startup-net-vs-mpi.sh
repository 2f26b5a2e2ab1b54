#!/usr/bin/env bash
# Issue 41's start-up target: a P-JVM job on the net engine (one process per JVM, launched by
# `lpf run`) against the same job on the MPI engine (`lpf run --engine mpi`: mpirun), taking turns
# round by round. docs/scripts/StartupTime.java reports, from pid 0, the time from the command's
# start to the end of the first superstep that heard from every process (from_command_ms), and
# from the last JVM's main (from_last_main_ms).
# Usage: docs/scripts/startup-net-vs-mpi.sh [ROUNDS] [P]   -> lines "<engine> startup p=P ..."
set -u
cd "$(dirname "$0")/../.."
. bin/jdk25.sh
rounds=${1:-3} p=${2:-64}
bin/lpf info >/dev/null 2>&1   # builds lpf4j-tools if stale
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
"$JAVA_HOME/bin/javac" -cp "lpf4j-tools/target/lib/*" -d "$out" docs/scripts/StartupTime.java || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for r in $(seq "$rounds"); do
  for engine in net mpi; do
    timeout 600 bin/lpf run --engine "$engine" -p "$p" --class-path "$out" StartupTime "$p" "$(date +%s%3N)" 2>/dev/null \
      | grep '^startup ' | sed "s/^/$engine /"
  done
done
