#!/usr/bin/env bash
# Sourced by Tern's scripts: exports JAVA_HOME pointing at a JDK 21 or newer, TERN_JAVA_VERSION (its version) and
# TERN_JAVA_MAJOR (its feature release: 21, 25).
# Order: JAVA_HOME if it is new enough, then the newest JDK found in the usual places, then `java` on PATH.

# Sets tern_version to the version of the JDK at $1 ("21.0.5", "25"; "0" if unknown), from its release file, running
# it only when that file is missing; and tern_major to its feature release (21, 25). Bash builtins: this runs on every
# start of tern.
tern_read_version() {
  local line
  tern_version=""
  if [ -r "$1/release" ]; then
    while IFS= read -r line; do
      case "$line" in
        JAVA_VERSION=*) line=${line#JAVA_VERSION=}; tern_version=${line//\"/}; break ;;
      esac
    done <"$1/release"
  fi
  if [ -z "$tern_version" ] && [ -x "$1/bin/java" ]; then
    tern_version=$("$1/bin/java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.version =/ {print $2; exit}')
  fi
  tern_version=${tern_version:-0}
  tern_major=${tern_version#1.}
  tern_major=${tern_major%%[!0-9]*}
  tern_major=${tern_major:-0}
}

tern_find_java() {
  local required=21 candidate best="" best_major=0 best_version="" tern_version tern_major
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
    tern_read_version "$JAVA_HOME"
    if [ "$tern_major" -ge "$required" ]; then
      TERN_JAVA_VERSION=$tern_version
      TERN_JAVA_MAJOR=$tern_major
      return 0
    fi
  fi
  for candidate in /usr/lib/jvm/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    [ -x "$candidate/bin/javac" ] || continue
    tern_read_version "$candidate"
    if [ "$tern_major" -ge "$required" ] && [ "$tern_major" -gt "$best_major" ]; then
      best="$candidate"
      best_major="$tern_major"
      best_version="$tern_version"
    fi
  done
  if [ -z "$best" ] && command -v javac >/dev/null 2>&1; then
    candidate=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    tern_read_version "$candidate"
    if [ "$tern_major" -ge "$required" ]; then
      best="$candidate"
      best_major="$tern_major"
      best_version="$tern_version"
    fi
  fi
  if [ -z "$best" ]; then
    echo "Tern needs a JDK $required or newer (javac included). Install one (e.g. Temurin 21 or 25) and set JAVA_HOME to it." >&2
    return 1
  fi
  export JAVA_HOME="$best"
  TERN_JAVA_VERSION=$best_version
  TERN_JAVA_MAJOR=$best_major
}

tern_find_java || exit 1
export TERN_JAVA_VERSION TERN_JAVA_MAJOR
export PATH="$JAVA_HOME/bin:$PATH"
