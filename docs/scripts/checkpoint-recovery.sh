#!/bin/bash
# Recovery: time from kill -9 of one rank to the "resumed from checkpoint" line (restored, computing again),
# beside the time a fresh job of the same launcher takes to start and run a trivial program.
cd "$(dirname "$0")/../.."
for i in 1 2 3; do
  t0=$(date +%s.%N); bin/lpf run --engine mpi -p 4 org.lpf4j.examples.InnerProduct 100 > /dev/null 2>&1; t1=$(date +%s.%N)
  echo "round $i: a fresh 4-rank job (start, InnerProduct 100, end): $(echo "$t1 - $t0" | bc) s"
  rm -rf /tmp/rec-cp /tmp/rec.log
  bin/lpf run --engine mpi -p 4 --checkpoint-dir /tmp/rec-cp --checkpoint-every 1s --restarts 1 org.lpf4j.examples.PageRank 16 16 6000 > /tmp/rec.log 2>&1 &
  job=$!
  for w in $(seq 1200); do ls /tmp/rec-cp/*/COMMITTED >/dev/null 2>&1 && break; sleep 0.05; done
  sleep 1
  victim=$(ps -eo pid,args | grep "[j]ava.*LpfCommand run --launched" | awk 'NR==2{print $1}')
  k=$(date +%s.%N); kill -9 $victim
  for w in $(seq 6000); do grep -q "resumed from checkpoint" /tmp/rec.log && break; sleep 0.02; done
  r=$(date +%s.%N)
  echo "round $i: kill -9 to computing again: $(echo "$r - $k" | bc) s; $(grep -o 'resumed from checkpoint [0-9]* (superstep [0-9]*)' /tmp/rec.log)"
  wait $job; echo "  exit $? $(grep -c 'equal the sequential' /tmp/rec.log) check line"
done
