# Sourced by the project's scripts: sets JAVA_HOME to a JDK >= 25 or exits with a message.
# Order: $JAVA_HOME, then the usual install locations, then `java` on the PATH; each directory
# (after resolving links) is probed at most once.
lpf_java_major() { # prints the feature version of the JDK at $1
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 1
  "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n 1
}
lpf_find_jdk25() {
  local c r v seen=$'\n'
  for c in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25* /usr/lib/jvm/*25* /usr/lib/jvm/* /opt/java/* /opt/jdk* \
           /usr/local/java/* "$HOME"/.sdkman/candidates/java/* "$HOME"/.jdks/* \
           "$( [ -n "$(command -v javac 2>/dev/null)" ] && dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"; do
    [ -n "$c" ] && [ -d "$c" ] || continue
    r=$(readlink -f "$c") || r=$c
    case "$seen" in *$'\n'"$r"$'\n'*) continue ;; esac
    seen="$seen$r"$'\n'
    v=$(lpf_java_major "$c") || continue
    if [ -n "$v" ] && [ "$v" -ge 25 ]; then echo "$c"; return 0; fi
  done
  return 1
}
# The options of every JVM the project's scripts start (lpf run's launched JVMs inherit them).
# AutoBoxCacheMax: the JDK's epoll selector looks each ready socket up by its file descriptor as an
# Integer, a new 16-byte object above the cache's bound (127 by default), so that a wait woken by a
# socket of a high descriptor allocated; 4096 descriptors covers a process with ~2,000 connections.
LPF_JVM_OPTIONS="--enable-native-access=ALL-UNNAMED -XX:AutoBoxCacheMax=4096"
# Adds --sun-misc-unsafe-memory-access=allow to MAVEN_OPTS (it silences Maven's own use of
# sun.misc.Unsafe on new JDKs) if the JDK found accepts that option and it is not there yet.
lpf_maven_opts() {
  case " ${MAVEN_OPTS:-} " in *" --sun-misc-unsafe-memory-access="*) return 0 ;; esac
  if "$JAVA_HOME/bin/java" --sun-misc-unsafe-memory-access=allow -version >/dev/null 2>&1; then
    export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }--sun-misc-unsafe-memory-access=allow"
  fi
}
if ! LPF_JDK=$(lpf_find_jdk25); then
  echo "lpf4j needs a JDK 25 or newer (java and javac). None found in JAVA_HOME (${JAVA_HOME:-unset})," >&2
  echo "/usr/lib/jvm, /opt/java, ~/.sdkman or the PATH. Install one (e.g. Temurin 25) and set JAVA_HOME to it." >&2
  exit 1
fi
export JAVA_HOME="$LPF_JDK"
export PATH="$JAVA_HOME/bin:$PATH"
