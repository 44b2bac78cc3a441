#!/usr/bin/env bash
# Sourced by Tern's scripts: exports JAVA_HOME pointing at a JDK 21 or newer.
# Order: JAVA_HOME if it is new enough, then the newest JDK found in the usual places, then `java` on PATH.

tern_java_major() {
  local version
  version=$("$1/bin/java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}')
  echo "${version:-0}"
}

tern_find_java() {
  local required=21 candidate best="" best_major=0 major
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
    major=$(tern_java_major "$JAVA_HOME")
    if [ "$major" -ge "$required" ]; then
      return 0
    fi
  fi
  for candidate in /usr/lib/jvm/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    [ -x "$candidate/bin/javac" ] || continue
    major=$(tern_java_major "$candidate")
    if [ "$major" -ge "$required" ] && [ "$major" -gt "$best_major" ]; then
      best="$candidate"
      best_major="$major"
    fi
  done
  if [ -z "$best" ] && command -v javac >/dev/null 2>&1; then
    candidate=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    major=$(tern_java_major "$candidate")
    if [ "$major" -ge "$required" ]; then
      best="$candidate"
    fi
  fi
  if [ -z "$best" ]; then
    echo "Tern needs a JDK $required or newer (javac included). Install one (e.g. Temurin 21 or 25) and set JAVA_HOME to it." >&2
    return 1
  fi
  export JAVA_HOME="$best"
}

tern_find_java || exit 1
export PATH="$JAVA_HOME/bin:$PATH"
