# Sourced by bench/peers/build, start and run: the peers of the comparison, how each is started and driven.
# shellcheck shell=bash
# shellcheck disable=SC2034  # PEERS_WORK and PEER_CMD are for the scripts that source this file

PEERS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$PEERS_DIR/../.." && pwd)"
# Logs of started peers and results of runs; gitignored like every target/.
PEERS_WORK="$PEERS_DIR/target"

# Every peer, in the order run benches them. Tern comes first: its get_user answer is the reference.
PEERS_ALL="tern tern-sessions java-sdk-stateless java-sdk-sessions typescript-stateless typescript-sessions quarkus"
# Known, but measured only when named (not in bench/peers/run's default list): Tern with a transport that is not its
# default, and Vert.x, the floor of bench/peers/run --wrk (a REST route and a minimal MCP endpoint that answers
# get_user alone, so no tools/list for tern bench's check).
PEERS_OPTIONAL="tern-io_uring vertx"

# The memory settings of Tern's ./tern launcher (bin/jvm-flags.sh: heap, collector, exit on OOM), given to every JVM of
# the comparison; PEERS_JAVA_OPTS adds to them for all (Tern gets it as TERN_JAVA_OPTS), replacing those it names.
source "$REPO_ROOT/bin/find-java.sh" # the memory settings depend on the JDK's version
source "$REPO_ROOT/bin/jvm-flags.sh"
peers_java_opts=()
read -r -a peers_java_opts <<<"${PEERS_JAVA_OPTS:-}"
tern_memory_flags_for ${peers_java_opts[@]+"${peers_java_opts[@]}"}
PEERS_JVM_FLAGS=("${tern_memory_flags[@]}")

peers_die() {
  echo "peers: $*" >&2
  exit 1
}

peers_known() {
  case " $PEERS_ALL $PEERS_OPTIONAL " in
    *" $1 "*) return 0 ;;
    *) return 1 ;;
  esac
}

# What a peer is, in a few words.
peer_description() {
  case "$1" in
    tern) echo "Tern, user-directory example, 2026-07-28 stateless requests" ;;
    tern-sessions) echo "Tern, user-directory example, 2025-11-25 sessions" ;;
    tern-io_uring) echo "Tern, user-directory example, 2026-07-28 stateless requests, served with --io io_uring" ;;
    java-sdk-stateless) echo "MCP Java SDK, HttpServletStatelessServerTransport on Tomcat" ;;
    java-sdk-sessions) echo "MCP Java SDK, HttpServletStreamableServerTransportProvider on Tomcat" ;;
    typescript-stateless) echo "MCP TypeScript SDK, StreamableHTTPServerTransport without sessions (server per request)" ;;
    typescript-sessions) echo "MCP TypeScript SDK, StreamableHTTPServerTransport with sessions" ;;
    quarkus) echo "Quarkus MCP server (quarkus-mcp-server-http), Streamable HTTP with sessions" ;;
    vertx) echo "Vert.x 5: GET /users/:id, and a minimal stateless MCP endpoint (get_user as text content only)" ;;
  esac
}

# How the bench and the probe drive a peer: "modern" (2026-07-28, no session) or "legacy" (initialize first, then the
# Mcp-Session-Id the server gives, if any: the stateless SDK servers give none and get 2025-11-25 requests without
# one, since the TypeScript SDK refuses the 2026-07-28 protocol version header).
peer_era() {
  case "$1" in
    tern | tern-io_uring | vertx) echo modern ;;
    *) echo legacy ;;
  esac
}

# Whether a peer answers get_user alone, as text content only (bench/peers/probe.mjs --minimal).
peer_is_minimal() {
  [ "$1" = vertx ]
}

# Which build a peer needs: tern, java-sdk, typescript, quarkus or vertx.
peer_build() {
  case "$1" in
    tern | tern-sessions | tern-io_uring) echo tern ;;
    java-sdk-*) echo java-sdk ;;
    typescript-*) echo typescript ;;
    quarkus) echo quarkus ;;
    vertx) echo vertx ;;
  esac
}

peer_artifact() {
  case "$(peer_build "$1")" in
    tern) echo "$REPO_ROOT/tern-cli/target/tern.jar" ;;
    java-sdk) echo "$PEERS_DIR/java-sdk/target/peer-java-sdk.jar" ;;
    typescript) echo "$PEERS_DIR/typescript/node_modules/.installed" ;;
    quarkus) echo "$PEERS_DIR/quarkus/target/quarkus-app/quarkus-run.jar" ;;
    vertx) echo "$PEERS_DIR/vertx/target/peer-vertx.jar" ;;
  esac
}

peer_is_built() {
  [ -f "$(peer_artifact "$1")" ]
}

peers_node() {
  "$REPO_ROOT/bin/install-node.sh"
}

# Sets PEER_CMD to the command that serves peer $1 on 127.0.0.1:$2 (path /mcp) in the foreground.
peer_command() {
  local name="$1" port="$2" java_opts=()
  read -r -a java_opts <<<"${PEERS_JAVA_OPTS:-}"
  case "$name" in
    tern | tern-sessions)
      PEER_CMD=(env "TERN_JAVA_OPTS=${PEERS_JAVA_OPTS:-}" "$REPO_ROOT/tern" serve --host 127.0.0.1 --port "$port") ;;
    tern-io_uring)
      PEER_CMD=(env "TERN_JAVA_OPTS=${PEERS_JAVA_OPTS:-}" "$REPO_ROOT/tern" serve --host 127.0.0.1 --port "$port"
        --io io_uring) ;;
    java-sdk-stateless | java-sdk-sessions)
      PEER_CMD=("$JAVA_HOME/bin/java" "${PEERS_JVM_FLAGS[@]}" "${java_opts[@]}"
        -jar "$PEERS_DIR/java-sdk/target/peer-java-sdk.jar" "${name#java-sdk-}" "$port") ;;
    typescript-stateless | typescript-sessions)
      PEER_CMD=(env NODE_ENV=production "$(peers_node)" "$PEERS_DIR/typescript/server.mjs" "${name#typescript-}" "$port") ;;
    quarkus)
      PEER_CMD=("$JAVA_HOME/bin/java" "${PEERS_JVM_FLAGS[@]}" "${java_opts[@]}" "-Dquarkus.http.port=$port"
        -jar "$PEERS_DIR/quarkus/target/quarkus-app/quarkus-run.jar") ;;
    vertx)
      PEER_CMD=("$JAVA_HOME/bin/java" "${PEERS_JVM_FLAGS[@]}" "${java_opts[@]}"
        -jar "$PEERS_DIR/vertx/target/peer-vertx.jar" "$port") ;;
    *)
      peers_die "unknown peer '$name' (expected one of: $PEERS_ALL $PEERS_OPTIONAL)" ;;
  esac
}

peer_url() {
  echo "http://127.0.0.1:$2/mcp"
}

# A TCP port on 127.0.0.1 that nothing listens on now, outside the kernel's range of ephemeral ports (where
# outgoing connections of other programs could take it between this check and the server's bind).
peers_free_port() {
  local low=32768 high=60999 first=20000 last port _
  if [ -r /proc/sys/net/ipv4/ip_local_port_range ]; then
    read -r low high </proc/sys/net/ipv4/ip_local_port_range
  fi
  last=$((low - 1))
  if [ "$last" -lt 21000 ]; then
    first=$((high + 1))
    last=65535
  fi
  for _ in $(seq 1 200); do
    port=$((first + (RANDOM * 32768 + RANDOM) % (last - first + 1)))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  peers_die "no free port found"
}

# Stops a process started by start: SIGTERM, then SIGKILL after 10 s.
peers_stop() {
  local pid="$1" waited=0
  kill "$pid" 2>/dev/null || return 0
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$waited" -ge 100 ]; then
      kill -9 "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  wait "$pid" 2>/dev/null || true
}

# The value of member $2 in the one-line JSON $1 (a probe's summary), quotes removed: a number, boolean or string
# without commas; empty when it is not there.
json_field() {
  sed -n "s/.*\"$2\":\([^,}]*\).*/\1/p" <<<"$1" | head -n 1 | tr -d '"'
}

# Resident set size of a process in MiB (Linux /proc), or "-".
peers_rss_mib() {
  local kb
  kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || true)
  if [ -n "$kb" ]; then
    awk -v kb="$kb" 'BEGIN { printf "%.0f", kb / 1024 }'
  else
    echo "-"
  fi
}

# Makes sure wrk (the load generator of bench/peers/run --wrk) is on PATH: on Debian, as root, installs its package.
peers_require_wrk() {
  command -v wrk >/dev/null && return 0
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "peers: installing wrk (apt-get install wrk)" >&2
    if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >"$PEERS_WORK/logs/apt-wrk.log" 2>&1 ||
      { apt-get update -qq >>"$PEERS_WORK/logs/apt-wrk.log" 2>&1 &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >>"$PEERS_WORK/logs/apt-wrk.log" 2>&1; }; then
      return 0
    fi
  fi
  peers_die "wrk is needed (Debian: apt-get install wrk; elsewhere https://github.com/wg/wrk)"
}
