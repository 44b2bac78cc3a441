#!/usr/bin/env bash
# Sourced by Tern's scripts: the JVM memory settings tern runs with, which the benchmarks also give every JVM they
# compare (bench/peers, bench/regenerate); the other JVM options tern needs; the number of CPUs it may use.
#
# Heap: at most half the machine's memory; the process exits on OutOfMemoryError rather than limp on.
# Collector: the serial collector with a fixed 32 MiB young generation. A Tern server's garbage is almost all
# per-request and dies young, and its live set is small (7 MiB for the example, ~1.1 KB per idle session), so each
# young collection copies little: about 0.5 ms here, whatever the young generation's size, which only sets how often
# one runs. G1, the JVM's default on a machine with 2+ CPUs and 2+ GB, sized its young generation to its 200 ms pause
# goal instead and took the process to 450-560 MiB of RSS under load. 64 MiB kept it at 175-185 MiB, 32 MiB keeps it
# at 150-155 MiB (105 idle instead of 126) for 0.8 % of the time in young pauses instead of 0.4 %; 16 MiB would take
# 12 MiB more off the peak for 1.4 % (BENCHMARKS.md, "Memory").
# Native heap (JDK 22+): every 5 s the JVM hands the C heap's free memory back to the system (malloc_trim). The JIT's
# compilers free their working memory to malloc after each compilation, which keeps it: ~25 MiB of RSS after the
# first seconds under load, held for the life of the process (RSS after 25 s of load 120 instead of 145 MiB).
# A collector or young-generation size in the caller's options replaces these (tern_memory_flags).

tern_default_memory_flags=(-XX:+ExitOnOutOfMemoryError -XX:MaxRAMPercentage=50 -XX:+UseSerialGC -Xmn32m
  -XX:TrimNativeHeapInterval=5000)

# Sets tern_memory_flags to the defaults above minus those that the options given as arguments override: any
# -XX:+Use...GC drops the collector and the young-generation size; -Xmn, -XX:NewSize, -XX:MaxNewSize or -XX:NewRatio
# drops the young-generation size; -Xmx or -XX:MaxRAM... drops the heap share; -XX:TrimNativeHeapInterval=... drops
# the trimming. The trimming needs TERN_JAVA_MAJOR (bin/find-java.sh) at 22 or more.
tern_memory_flags_for() {
  local option keep_gc=1 keep_young=1 keep_heap=1 keep_trim=1 flag
  for option in "$@"; do
    case "$option" in
      -XX:+Use*GC) keep_gc=0; keep_young=0 ;;
      -Xmn* | -XX:NewSize=* | -XX:MaxNewSize=* | -XX:NewRatio=*) keep_young=0 ;;
      -Xmx* | -XX:MaxHeapSize=* | -XX:MaxRAMPercentage=* | -XX:MaxRAMFraction=* | -XX:MaxRAM=*) keep_heap=0 ;;
      -XX:TrimNativeHeapInterval=*) keep_trim=0 ;;
    esac
  done
  if [ "${TERN_JAVA_MAJOR:-0}" -lt 22 ]; then
    keep_trim=0
  fi
  tern_memory_flags=()
  for flag in "${tern_default_memory_flags[@]}"; do
    case "$flag" in
      -XX:+UseSerialGC) [ "$keep_gc" = 1 ] || continue ;;
      -Xmn*) [ "$keep_young" = 1 ] || continue ;;
      -XX:MaxRAMPercentage=*) [ "$keep_heap" = 1 ] || continue ;;
      -XX:TrimNativeHeapInterval=*) [ "$keep_trim" = 1 ] || continue ;;
    esac
    tern_memory_flags+=("$flag")
  done
}

# The JVM options tern itself needs, for the JDK of TERN_JAVA_MAJOR (bin/find-java.sh), in tern_runtime_flags (the
# benchmarks do not give them to the peers: they are about Netty, which only some of them use).
# --enable-native-access: Netty's native transport (epoll) and TLS (BoringSSL) load native code.
# --sun-misc-unsafe-memory-access=allow (JDK 23+, where the option exists): on JDK 24+ Netty leaves sun.misc.Unsafe
# alone unless allowed (the JDK warns at its first use otherwise) and frees direct memory through malloc and free
# linked with the foreign function API instead: linking them spins classes for ~120 ms of CPU at every start (on two
# CPUs: start to the first call ~40 ms later), and Netty's maintainers measured their Unsafe-free buffers as slower.
tern_runtime_flags_for() {
  tern_runtime_flags=(--enable-native-access=ALL-UNNAMED)
  if [ "${TERN_JAVA_MAJOR:-0}" -ge 23 ]; then
    tern_runtime_flags+=(--sun-misc-unsafe-memory-access=allow)
  fi
}

# Sets tern_cpus to the number of CPUs this process may use: those it may run on (its affinity, as nproc counts them),
# or fewer when a cgroup CPU quota allows less (cgroup v2 cpu.max, v1 cpu.cfs_quota_us over cpu.cfs_period_us; rounded
# up), as in a container with a CPU limit. $1: the cgroup file system's root (default /sys/fs/cgroup). 0 when nothing
# can be read. Builtins only where /proc is there (the launcher runs it before every start).
tern_count_cpus() {
  local root="${1:-/sys/fs/cgroup}" cpus=0 quota="" period="" limit line list range
  if [ -r /proc/self/status ]; then
    while IFS= read -r line; do
      case "$line" in
        Cpus_allowed_list:*) list=${line#*:}; break ;;
      esac
    done </proc/self/status
    for range in ${list//,/ }; do
      case "$range" in
        *-*) cpus=$((cpus + ${range#*-} - ${range%-*} + 1)) ;;
        *) cpus=$((cpus + 1)) ;;
      esac
    done
  fi
  if [ "$cpus" -eq 0 ]; then
    cpus=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 0)
  fi
  if [ -r "$root/cpu.max" ]; then
    read -r quota period <"$root/cpu.max" || true
  elif [ -r "$root/cpu/cpu.cfs_quota_us" ] && [ -r "$root/cpu/cpu.cfs_period_us" ]; then
    read -r quota <"$root/cpu/cpu.cfs_quota_us" || true
    read -r period <"$root/cpu/cpu.cfs_period_us" || true
  fi
  if [[ "$quota" =~ ^[1-9][0-9]*$ && "$period" =~ ^[1-9][0-9]*$ ]]; then
    limit=$(((quota + period - 1) / period))
    if [ "$cpus" -eq 0 ] || [ "$limit" -lt "$cpus" ]; then
      cpus=$limit
    fi
  fi
  tern_cpus=$cpus
}

# Prints what tern_count_cpus finds.
tern_cpu_count() {
  tern_count_cpus "$@"
  echo "$tern_cpus"
}
