#!/bin/bash
# Checkpoint overhead: PageRank 2^20 vertices, 16 edges/vertex, 2200 iterations (>= 60 s), mpi engine, 4 ranks;
# alternating runs without checkpoints (cr module none) and with a checkpoint every 10 s (files), 3 of each.
cd "$(dirname "$0")/../.."
for i in 1 2 3; do
  for mode in none files; do
    rm -rf /tmp/ovh-cp
    if [ $mode = none ]; then extra=""; else extra="--checkpoint-dir /tmp/ovh-cp --checkpoint-every 10s"; fi
    line=$(bin/lpf run --engine mpi -p 4 $extra org.lpf4j.examples.PageRank 20 16 2200 2>&1 | grep -o "the iterations took [0-9.]* s")
    n=$(ls /tmp/ovh-cp 2>/dev/null | wc -l)
    echo "$(date +%T) round $i $mode: $line (checkpoint dirs kept: $n)"
  done
done
