#!/usr/bin/env bash
# An empty sync inside a Spark barrier stage (lpf4j-spark's BspStage) beside the same loop under
# `bin/lpf run --engine net -p 2`, taking turns in one run (org.lpf4j.spark.examples.SyncGap):
#   docs/scripts/spark-sync-gap.sh [master turns warm reps syncs variants]
# defaults: local-cluster[2,1,1024] 3 20000 9 5000 default. variants: ","-separated lists of
# ";"-separated stage parameters (e.g. "default,lpf.engine.net.spinMicros=0") or loop settings
# ("warm=3000;reps=1;syncs=1000"; "tasks=4" for 4 partitions; "executorNodes=false" for a net process per task). More arguments: lpf run options, one
# lpf run per "::"-separated group, "" for none (default: one plain run). Every lpf run gets the
# options in $SYNC_GAP_RUN first (default "--engine net -p 2"; e.g. "--engine threads -p 4"). Every process prints its median sync time, CPU time and context
# switches per sync.
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)"
. "$root/bin/jdk25.sh"
. "$root/bin/build-if-stale.sh"
lpf_build_if_stale spark-sync-gap lpf4j-spark
lpf_build_if_stale spark-sync-gap lpf4j-tools
spark_jar=$(lpf_main_jar lpf4j-spark)
master=${1:-local-cluster[2,1,1024]} turns=${2:-3} warm=${3:-20000} reps=${4:-9} syncs=${5:-5000} variants=${6:-default}
export SPARK_HOME="$root/lpf4j-spark/target/spark-home" SPARK_SCALA_VERSION=2.13 SPARK_LOCAL_IP=127.0.0.1
loop=(--class-path "$root/lpf4j-spark/target/classes" org.lpf4j.spark.examples.SyncLoop)
read -r -a base <<<"${SYNC_GAP_RUN:---engine net -p 2}"
commands=("$root/bin/lpf" run "${base[@]}" "${loop[@]}" "$warm" "$reps" "$syncs")
# more arguments: lpf run's options instead (one run per "::"-separated group), e.g. "--param lpf.engine.net.perJvm=2"
if [ $# -gt 6 ]; then
  commands=(); group=()
  for a in "${@:7}" ::; do
    if [ "$a" = :: ]; then
      commands+=("$root/bin/lpf" run "${base[@]}" "${group[@]}" "${loop[@]}" "$warm" "$reps" "$syncs" ::); group=()
    elif [ -n "$a" ]; then group+=("$a"); fi
  done
fi
runtime_jar="${spark_jar%.jar}-runtime.jar"
options_src=$(mktemp --suffix=.java)
trap 'rm -f "$options_src"' EXIT
printf '%s\n' 'class SparkJvmOptions { public static void main(String[] a) {' \
  '  System.out.print(org.apache.spark.launcher.JavaModuleOptions.defaultModuleOptions()); } }' >"$options_src"
spark_options=$("$JAVA_HOME/bin/java" -cp "$(ls "$SPARK_HOME"/jars/spark-launcher_*.jar | head -n 1)" "$options_src")
# shellcheck disable=SC2086 # the options are separate words
"$JAVA_HOME/bin/java" $spark_options ${LPF_JAVA_OPTS:-} \
  -Dspark.jars="$runtime_jar" -Dspark.driver.host=127.0.0.1 -Dspark.driver.bindAddress=127.0.0.1 -Dspark.ui.enabled=false \
  -Dspark.executor.memory=1g -Dspark.scheduler.barrier.maxConcurrentTasksCheck.interval=1s \
  -cp "$runtime_jar:$SPARK_HOME/jars/*" \
  org.lpf4j.spark.examples.SyncGap "$master" "$turns" "$warm" "$reps" "$syncs" "$variants" "${commands[@]}"
