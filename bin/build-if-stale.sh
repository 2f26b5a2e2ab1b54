# Sourced by bin/lpf and bin/jmh after bin/jdk25.sh, with $root set to the checkout.
# lpf_build_if_stale NAME MODULE: builds MODULE and what it needs (mvn -pl MODULE -am package
# -DskipTests) when its jar or its target/lib is missing, or when any main source or pom of the
# checkout is newer than the jar (e.g. after a pull); then sets LPF_JAR to the module's main jar.
# NAME prefixes the messages. Exits with the build output if the build fails.
lpf_main_jar() { # prints the main jar of module $1, or nothing
  ls "$root/$1/target/$1"-*.jar 2>/dev/null | grep -v -e '-tests\.jar$' -e '-runtime\.jar$' -e '-sources\.jar$' -e '-javadoc\.jar$' | head -n 1 || true
}
lpf_stale() { # whether any main source or pom is newer than the file $1
  [ -n "$(find "$root" -path "$root/*/target" -prune -o \( -path '*/src/main/*' -o -name pom.xml \) -newer "$1" -print -quit 2>/dev/null)" ]
}
lpf_build_if_stale() {
  local name=$1 module=$2 log
  LPF_JAR=$(lpf_main_jar "$module")
  if [ -n "$LPF_JAR" ] && [ -d "$root/$module/target/lib" ] && ! lpf_stale "$LPF_JAR"; then return 0; fi
  command -v mvn >/dev/null || { echo "$name: building $module needs Apache Maven 3.8+ (mvn) on the PATH" >&2; exit 1; }
  echo "$name: building $module and its dependencies (mvn -pl $module -am package -DskipTests) ..." >&2
  lpf_maven_opts
  log=$(mktemp)
  if ! (cd "$root" && mvn -B -ntp -q -Dstyle.color=never -pl "$module" -am package -DskipTests) >"$log" 2>&1; then
    cat "$log" >&2; rm -f "$log"
    echo "$name: the build failed (output above)" >&2; exit 1
  fi
  rm -f "$log"
  LPF_JAR=$(lpf_main_jar "$module")
  # Maven leaves an unchanged jar untouched even when a dependency was rebuilt: mark it as
  # built now, or every later run would find it older than the sources and build again.
  [ -n "$LPF_JAR" ] && touch "$LPF_JAR"
}
