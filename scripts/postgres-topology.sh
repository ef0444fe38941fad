#!/usr/bin/env bash
# The docker-compose.yml topology without Docker: a Temporal server (built from source) on the
# local PostgreSQL, two `tollgate worker` processes and `tollgate serve`, then checks against it.
#
#   scripts/postgres-topology.sh            # run: build, schema, server, workers, API, checks
#   scripts/postgres-topology.sh up         # the same without the test suite; runs until Ctrl-C
#   scripts/postgres-topology.sh build      # only build (or find) the server binaries
#
# Steps (each timed; a summary is printed at the end, also on failure):
#   a. Build temporal-server and temporal-sql-tool (go.temporal.io/server, $TEMPORAL_SERVER_VERSION)
#      from the Go module proxy in a throwaway module outside the repository, into
#      $TOLLGATE_CACHE_DIR/temporal-server/<version>/ (reused once built; build log kept there).
#   b. Schema: databases $TOLLGATE_PG_DB and $TOLLGATE_PG_VISIBILITY_DB on the local PostgreSQL,
#      dropped and created fresh (TOLLGATE_PG_REUSE=1 keeps them), `setup-schema -v 0.0` and
#      `update-schema` with the schema files shipped in the module (plugin postgres12).
#   c. Server config (YAML, every port on 127.0.0.1, free ports unless TEMPORAL_PORT is set).
#   d. Start the server and wait until its frontend answers; register the namespace and the five
#      Tollgate search attributes with the `temporal` CLI.
#   e. Two `tollgate worker` processes (the demo ops-agent) and `tollgate serve`.
#   f. Checks: the worker pollers, the HTTP API (a demo run parks for approval, is listed through
#      PostgreSQL visibility, approved over HTTP, completes), then the foundation test suite
#      against this server (TOLLGATE_TEST_TEMPORAL_ADDRESS).
# Exit status: 0 when every check passed. Everything started here is stopped on exit.
#
# Environment (all optional):
#   TEMPORAL_SERVER_VERSION  default v1.29.1
#   TOLLGATE_CACHE_DIR       default ${XDG_CACHE_HOME:-$HOME/.cache}/tollgate
#   PGHOST PGPORT PGUSER PGPASSWORD   default 127.0.0.1 5432 postgres (no password)
#   TOLLGATE_PG_DB, TOLLGATE_PG_VISIBILITY_DB   default tollgate_temporal, tollgate_temporal_visibility
#   TOLLGATE_PG_REUSE=1      keep existing databases (schema brought up to date) instead of fresh
#   TEMPORAL_PORT            frontend gRPC port (default: a free one); TOLLGATE_HTTP_PORT likewise
#   TEMPORAL_LOG_LEVEL       server log level (default warn)
#   TEMPORAL_CLI             the `temporal` CLI (default: PATH, Go's bin dir, else go install)
#   TOLLGATE_TOPOLOGY_TESTS  test files (default: the foundation suite), space-separated
#   TOLLGATE_TEST_TIMEOUT    seconds the test suite may take in all (default 1200)
#   TOLLGATE_SKIP_TSC=1      use dist/ as it is instead of compiling first
#   TOLLGATE_KEEP_RUN_DIR=1  keep the run directory (config, logs) even when all passed
#   TOLLGATE_TEMPORAL_DEFAULTS=1  Temporal's default dynamic config instead of
#                            config/temporal/dynamicconfig.yaml (see docs/performance.md)
set -euo pipefail

MODE=${1:-run}
case "$MODE" in run | up | build) ;; -h | --help | help)
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
  ;;
*)
  echo "usage: $0 [run|up|build]" >&2
  exit 2
  ;;
esac

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
VERSION=${TEMPORAL_SERVER_VERSION:-v1.29.1}
CACHE_ROOT=${TOLLGATE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tollgate}
BIN_DIR=$CACHE_ROOT/temporal-server/$VERSION
SERVER_BIN=$BIN_DIR/temporal-server
SQL_TOOL=$BIN_DIR/temporal-sql-tool
TEMPORAL_CLI_PACKAGE=github.com/temporalio/cli/cmd/temporal@v1.5.1

export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
PGPASSWORD=${PGPASSWORD:-}
DB=${TOLLGATE_PG_DB:-tollgate_temporal}
VIS_DB=${TOLLGATE_PG_VISIBILITY_DB:-tollgate_temporal_visibility}
NAMESPACE=default
LOG_LEVEL=${TEMPORAL_LOG_LEVEL:-warn}
FOUNDATION_TESTS=(approval parallel policies decisions durability streaming errors suspend)

# ---------------------------------------------------------------------------------------------
# Output, timing, the summary
# ---------------------------------------------------------------------------------------------
log() { printf '[topology %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() {
  printf '[topology] error: %s\n' "$*" >&2
  exit 1
}
now() { printf '%s' "${EPOCHREALTIME/,/.}"; }
seconds_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
SUMMARY=()
figure() { SUMMARY+=("$(printf '%-34s %s' "$1" "$2")"); }
print_summary() {
  [ ${#SUMMARY[@]} -gt 0 ] || return 0
  printf '\n==== postgres-topology figures ====\n'
  printf '%s\n' "${SUMMARY[@]}"
  printf '===================================\n'
}

# ---------------------------------------------------------------------------------------------
# Processes started here, and their cleanup
# ---------------------------------------------------------------------------------------------
PIDS=()      # in start order; stopped in reverse
PID_NAMES=()
RUN_DIR=
FAILED=1
stop_pid() { # pid name: SIGTERM, up to 20 s, then SIGKILL
  local pid=$1 name=$2 i
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.2
  done
  log "$name (pid $pid) ignored SIGTERM for 20 s: SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
}
cleanup() {
  local status=$? i
  trap - EXIT INT TERM
  if [ ${#PIDS[@]} -gt 0 ]; then
    log "stopping ${#PIDS[@]} process(es)…"
    for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do stop_pid "${PIDS[i]}" "${PID_NAMES[i]}"; done
    wait 2>/dev/null || true
  fi
  print_summary
  if [ -n "$RUN_DIR" ]; then
    if [ "$FAILED" -eq 0 ] && [ "${TOLLGATE_KEEP_RUN_DIR:-0}" != 1 ]; then
      rm -rf "$RUN_DIR"
    else
      log "config and logs kept in $RUN_DIR"
    fi
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# start name logfile command... : runs it in the background, remembers its pid.
start() {
  local name=$1 logfile=$2
  shift 2
  "$@" >"$logfile" 2>&1 &
  PIDS+=("$!")
  PID_NAMES+=("$name")
  LAST_PID=$!
}
alive_or_die() { # pid name logfile
  kill -0 "$1" 2>/dev/null && return 0
  echo "---- last lines of $3 ----" >&2
  tail -n 15 "$3" | cut -c1-400 >&2 || true
  die "$2 exited early"
}

# ---------------------------------------------------------------------------------------------
# a. The server and its SQL tool, built from the Go module proxy
# ---------------------------------------------------------------------------------------------
binaries_ok() {
  [ -x "$SERVER_BIN" ] && [ -x "$SQL_TOOL" ] &&
    "$SERVER_BIN" --version 2>/dev/null | grep -q "${VERSION#v}" &&
    "$SQL_TOOL" --version 2>/dev/null | grep -q "${VERSION#v}"
}

build_server() {
  command -v go >/dev/null || die "go is not installed: it builds the Temporal server"
  mkdir -p "$BIN_DIR/logs"
  # One build at a time per cache directory.
  exec 9>"$BIN_DIR/.build.lock"
  if command -v flock >/dev/null; then flock -w 1800 9 || die "another build holds $BIN_DIR/.build.lock"; fi
  if binaries_ok; then
    log "temporal-server $VERSION: found in $BIN_DIR"
    figure "build (a)" "0.0 s (cached in $BIN_DIR)"
    return 0
  fi
  local t0 work buildlog module_dir
  t0=$(now)
  buildlog=$BIN_DIR/logs/build-$(date +%Y%m%d-%H%M%S).log
  work=$(mktemp -d "${TMPDIR:-/tmp}/tollgate-temporal-build.XXXXXX")
  log "building temporal-server and temporal-sql-tool $VERSION (first time: minutes); log: $buildlog"
  (
    set -euo pipefail
    cd "$work"
    export GOFLAGS="-mod=mod" CGO_ENABLED=0 GOWORK=off
    # The server's own go.mod: its replace directives (if any) must be repeated here, since
    # replaces only apply in the main module.
    module_dir=$(go mod download -json "go.temporal.io/server@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
    [ -d "$module_dir" ] || { echo "go mod download go.temporal.io/server@$VERSION failed"; exit 1; }
    {
      printf 'module tollgate.local/temporal-build\n\ngo 1.25.0\n\nrequire go.temporal.io/server %s\n' "$VERSION"
      awk '/^replace[[:space:]]*\(/{block=1} block{print} block&&/^\)/{block=0; next}
           /^replace[[:space:]]+[^(]/{print}' "$module_dir/go.mod" | grep -v '=>[[:space:]]*\.' || true
    } >go.mod
    echo "== go.mod"; cat go.mod
    echo "== go get"
    go get "go.temporal.io/server/cmd/server@$VERSION" "go.temporal.io/server/cmd/tools/sql@$VERSION"
    echo "== go build (tags as the server's Makefile: disable_grpc_modules)"
    go build -tags disable_grpc_modules -o "$SERVER_BIN.tmp" go.temporal.io/server/cmd/server
    go build -tags disable_grpc_modules -o "$SQL_TOOL.tmp" go.temporal.io/server/cmd/tools/sql
    mv -f "$SERVER_BIN.tmp" "$SERVER_BIN"
    mv -f "$SQL_TOOL.tmp" "$SQL_TOOL"
  ) >"$buildlog" 2>&1 || {
    tail -n 30 "$buildlog" >&2
    rm -rf "$work"
    die "the Temporal server build failed (full log: $buildlog)"
  }
  rm -rf "$work"
  binaries_ok || die "built binaries do not report version $VERSION (log: $buildlog)"
  local took
  took=$(seconds_since "$t0")
  log "built in ${took} s"
  figure "build (a)" "${took} s (go build of server + sql tool; log $buildlog)"
}

# The `temporal` CLI: $TEMPORAL_CLI, PATH, Go's bin dirs, else `go install` into the cache.
find_temporal_cli() {
  local candidate gobin gopath
  if [ -n "${TEMPORAL_CLI:-}" ]; then
    [ -x "$TEMPORAL_CLI" ] || die "TEMPORAL_CLI=$TEMPORAL_CLI is not executable"
    printf '%s' "$TEMPORAL_CLI"
    return
  fi
  if candidate=$(command -v temporal 2>/dev/null); then printf '%s' "$candidate"; return; fi
  gobin=$(go env GOBIN 2>/dev/null || true)
  gopath=$(go env GOPATH 2>/dev/null || true)
  for candidate in ${gobin:+"$gobin/temporal"} ${gopath:+"${gopath%%:*}/bin/temporal"} "$CACHE_ROOT/bin/temporal"; do
    [ -x "$candidate" ] && { printf '%s' "$candidate"; return; }
  done
  log "no temporal CLI found: go install $TEMPORAL_CLI_PACKAGE" >&2
  mkdir -p "$CACHE_ROOT/bin"
  GOBIN="$CACHE_ROOT/bin" go install "$TEMPORAL_CLI_PACKAGE" >&2 || die "go install $TEMPORAL_CLI_PACKAGE failed"
  printf '%s' "$CACHE_ROOT/bin/temporal"
}

# ---------------------------------------------------------------------------------------------
# b. Schema in the local PostgreSQL
# ---------------------------------------------------------------------------------------------
sqltool() {
  "$SQL_TOOL" --plugin postgres12 --ep "$PGHOST" -p "$PGPORT" -u "$PGUSER" ${PGPASSWORD:+--pw "$PGPASSWORD"} "$@"
}

wait_for_postgres() {
  local i
  for ((i = 0; i < 30; i++)); do
    if command -v pg_isready >/dev/null; then
      pg_isready -q -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" && return 0
    elif (exec 3<>"/dev/tcp/$PGHOST/$PGPORT") 2>/dev/null; then
      return 0
    fi
    sleep 1
  done
  die "PostgreSQL does not answer on $PGHOST:$PGPORT (PGHOST/PGPORT/PGUSER/PGPASSWORD)"
}

setup_schema() {
  local t0 schema_root logfile=$RUN_DIR/logs/schema.log
  schema_root=$(go env GOMODCACHE)/go.temporal.io/server@$VERSION/schema/postgresql/v12
  [ -d "$schema_root/temporal/versioned" ] ||
    GOFLAGS=-mod=mod go mod download "go.temporal.io/server@$VERSION" >/dev/null 2>&1 || true
  [ -d "$schema_root/temporal/versioned" ] || die "schema files not found under $schema_root"
  wait_for_postgres
  t0=$(now)
  {
    if [ "${TOLLGATE_PG_REUSE:-0}" != 1 ]; then
      echo "== drop $DB $VIS_DB (fresh databases; TOLLGATE_PG_REUSE=1 keeps them)"
      sqltool --db "$DB" drop -f --defaultdb postgres
      sqltool --db "$VIS_DB" drop -f --defaultdb postgres
    fi
    for pair in "$DB:temporal" "$VIS_DB:visibility"; do
      local db=${pair%%:*} kind=${pair##*:}
      echo "== $db ($kind)"
      sqltool --db "$db" create
      sqltool --db "$db" setup-schema -v 0.0
      sqltool --db "$db" update-schema -d "$schema_root/$kind/versioned"
    done
  } >"$logfile" 2>&1 || {
    tail -n 20 "$logfile" >&2
    die "schema setup failed (log: $logfile)"
  }
  local took versions=""
  took=$(seconds_since "$t0")
  if command -v psql >/dev/null; then
    versions=$(for db in "$DB" "$VIS_DB"; do
      printf '%s=%s ' "$db" "$(psql -X -At -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" -d "$db" -c 'select curr_version from schema_version' 2>/dev/null)"
    done)
  fi
  log "schema ready in ${took} s ${versions}"
  figure "schema setup (b)" "${took} s ($([ "${TOLLGATE_PG_REUSE:-0}" = 1 ] && echo reused || echo fresh) databases; ${versions:-versions n/a})"
}

# ---------------------------------------------------------------------------------------------
# c. Server config
# ---------------------------------------------------------------------------------------------
# n distinct free loopback ports in [20000, 32000): the SQL stores keep membership ports in a
# smallint column, so ports from the ephemeral range (32768+) fail at server start.
free_ports() {
  "$NODE" -e '
    const net = require("node:net");
    const tryPort = (port) => new Promise((resolve) => {
      const s = net.createServer();
      s.once("error", () => resolve(undefined));
      s.listen(port, "127.0.0.1", () => resolve(s));
    });
    (async () => {
      const wanted = Number(process.argv[1]), lo = 20000, span = 12000;
      const servers = [];
      let port = lo + Math.floor(Math.random() * span);
      for (let tries = 0; servers.length < wanted && tries < span; tries++) {
        const s = await tryPort(port);
        if (s) servers.push(s);
        port = port + 1 >= lo + span ? lo : port + 1;
      }
      if (servers.length < wanted) process.exit(1);
      console.log(servers.map((s) => s.address().port).join(" "));
      for (const s of servers) s.close();
    })();' "$1"
}

yaml_string() { # a double-quoted YAML scalar
  local s=${1//\\/\\\\}
  printf '"%s"' "${s//\"/\\\"}"
}

write_config() {
  local ports
  read -r -a ports <<<"$(free_ports 10)" || true
  [ "${#ports[@]}" -eq 10 ] || die "could not find 10 free loopback ports in 20000-31999"
  FRONTEND_PORT=${TEMPORAL_PORT:-${ports[0]}}
  local http=${ports[1]} front_m=${ports[2]} hist=${ports[3]} hist_m=${ports[4]} match=${ports[5]}
  local match_m=${ports[6]} work=${ports[7]} work_m=${ports[8]}
  HTTP_PORT=${TOLLGATE_HTTP_PORT:-${ports[9]}}
  TEMPORAL_ADDRESS_LOCAL=127.0.0.1:$FRONTEND_PORT
  mkdir -p "$RUN_DIR/config"
  local sql_common
  sql_common="pluginName: \"postgres12\"
        connectAddr: $(yaml_string "$PGHOST:$PGPORT")
        connectProtocol: \"tcp\"
        user: $(yaml_string "$PGUSER")
        password: $(yaml_string "$PGPASSWORD")
        maxConnLifetime: \"1h\""
  cat >"$RUN_DIR/config/tollgate.yaml" <<YAML
# Written by scripts/postgres-topology.sh: Temporal $VERSION on PostgreSQL, loopback only.
log:
  stdout: true
  level: $LOG_LEVEL

persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  # Fixed once the database is created: keep it when reusing databases.
  numHistoryShards: 4
  datastores:
    postgres-default:
      sql:
        databaseName: $(yaml_string "$DB")
        maxConns: 20
        maxIdleConns: 20
        $sql_common
    postgres-visibility:
      sql:
        databaseName: $(yaml_string "$VIS_DB")
        maxConns: 10
        maxIdleConns: 10
        $sql_common

global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
  pprof:
    port: 0

services:
  frontend:
    rpc:
      grpcPort: $FRONTEND_PORT
      membershipPort: $front_m
      httpPort: $http
      bindOnIP: "127.0.0.1"
  history:
    rpc:
      grpcPort: $hist
      membershipPort: $hist_m
      bindOnIP: "127.0.0.1"
  matching:
    rpc:
      grpcPort: $match
      membershipPort: $match_m
      bindOnIP: "127.0.0.1"
  worker:
    rpc:
      grpcPort: $work
      membershipPort: $work_m
      bindOnIP: "127.0.0.1"

clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "127.0.0.1:$FRONTEND_PORT"
      httpAddress: "127.0.0.1:$http"

dcRedirectionPolicy:
  policy: "noop"

archival:
  history:
    state: "disabled"
  visibility:
    state: "disabled"

dynamicConfigClient:
  filepath: $(yaml_string "$RUN_DIR/config/dynamicconfig.yaml")
  pollInterval: "10s"
YAML
  # The tuned settings every Tollgate topology runs with (docs/performance.md), unless
  # TOLLGATE_TEMPORAL_DEFAULTS=1 asks for Temporal's defaults (to measure the difference).
  if [ "${TOLLGATE_TEMPORAL_DEFAULTS:-0}" = 1 ]; then
    : >"$RUN_DIR/config/dynamicconfig.yaml"
  else
    cp "$ROOT/config/temporal/dynamicconfig.yaml" "$RUN_DIR/config/dynamicconfig.yaml"
  fi
  cat >>"$RUN_DIR/config/dynamicconfig.yaml" <<'YAML'

# Visibility (list) calls per namespace and frontend, 10 by default; Tollgate's listings and the
# tests' polling need more (the CLI dev server uses 100 too).
frontend.namespaceRPS.visibility:
  - value: 100
YAML
  "$SERVER_BIN" validate-dynamic-config "$RUN_DIR/config/dynamicconfig.yaml" >/dev/null 2>&1 ||
    log "warning: validate-dynamic-config did not accept $RUN_DIR/config/dynamicconfig.yaml"
  log "config: $RUN_DIR/config/tollgate.yaml (frontend $TEMPORAL_ADDRESS_LOCAL, HTTP API port $HTTP_PORT)"
}

# ---------------------------------------------------------------------------------------------
# d. Server, namespace, search attributes
# ---------------------------------------------------------------------------------------------
start_server() {
  local t0 i logfile=$RUN_DIR/logs/temporal-server.log
  t0=$(now)
  start temporal-server "$logfile" "$SERVER_BIN" --root "$RUN_DIR" --config config --env tollgate --allow-no-auth start
  SERVER_PID=$LAST_PID
  for ((i = 0; i < 240; i++)); do
    alive_or_die "$SERVER_PID" temporal-server "$logfile"
    if "$CLI" operator cluster health --address "$TEMPORAL_ADDRESS_LOCAL" 2>/dev/null | grep -q SERVING; then break; fi
    sleep 0.5
  done
  [ "$i" -lt 240 ] || die "the server did not answer within 120 s (log: $logfile)"
  local took
  took=$(seconds_since "$t0")
  log "temporal-server (pid $SERVER_PID) serving on $TEMPORAL_ADDRESS_LOCAL after ${took} s"
  figure "server start (d)" "${took} s (process start to frontend SERVING)"

  t0=$(now)
  local tcli=("$CLI" --address "$TEMPORAL_ADDRESS_LOCAL")
  if "${tcli[@]}" operator namespace describe --namespace "$NAMESPACE" >/dev/null 2>&1; then
    log "namespace $NAMESPACE already registered"
  else
    "${tcli[@]}" operator namespace create --namespace "$NAMESPACE" --retention 72h >/dev/null
  fi
  for ((i = 0; i < 60; i++)); do
    "${tcli[@]}" operator search-attribute list --namespace "$NAMESPACE" >/dev/null 2>&1 && break
    sleep 0.5
  done
  # The five of src/common/wire.ts SEARCH_ATTRIBUTES, read from the compiled module.
  local attrs existing name type
  attrs=$("$NODE" --input-type=module -e "
    const { SEARCH_ATTRIBUTES } = await import('$ROOT/dist/src/common/wire.js');
    for (const a of Object.values(SEARCH_ATTRIBUTES)) console.log(a.name + ' ' + a.type);")
  existing=$("${tcli[@]}" operator search-attribute list --namespace "$NAMESPACE")
  while read -r name type; do
    if grep -qw "$name" <<<"$existing"; then continue; fi
    "${tcli[@]}" operator search-attribute create --namespace "$NAMESPACE" --name "$name" --type "$type" >/dev/null
  done <<<"$attrs"
  # Bounded wait until every one is listed (the frontend caches search attributes).
  for ((i = 0; i < 60; i++)); do
    existing=$("${tcli[@]}" operator search-attribute list --namespace "$NAMESPACE" 2>/dev/null || true)
    local missing=0
    while read -r name type; do grep -qw "$name" <<<"$existing" || missing=1; done <<<"$attrs"
    [ "$missing" -eq 0 ] && break
    sleep 0.5
  done
  [ "$missing" -eq 0 ] || die "search attributes not listed after 30 s"
  took=$(seconds_since "$t0")
  log "namespace $NAMESPACE with $(wc -l <<<"$attrs") Tollgate search attributes in ${took} s"
  figure "namespace + search attributes" "${took} s"
}

# ---------------------------------------------------------------------------------------------
# e. Tollgate: two workers and the HTTP API
# ---------------------------------------------------------------------------------------------
wait_ready() { # pid name logfile: the command's `--json` ready document
  local i
  for ((i = 0; i < 240; i++)); do
    alive_or_die "$1" "$2" "$3"
    grep -q '"type":"ready"' "$3" && return 0
    sleep 0.25
  done
  die "$2 not ready after 60 s (log: $3)"
}

start_tollgate() {
  local t0 n
  t0=$(now)
  TOKEN=topology-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  local common=(--address "$TEMPORAL_ADDRESS_LOCAL" --namespace "$NAMESPACE" --json)
  WORKER_PIDS=()
  for n in 1 2; do
    start "worker-$n" "$RUN_DIR/logs/worker-$n.log" \
      env -u OPENAI_API_KEY -u OPENAI_BASE_URL "$NODE" "$ROOT/dist/src/cli/main.js" worker \
      --agents "$ROOT/dist/demo/agents.js" "${common[@]}"
    WORKER_PIDS+=("$LAST_PID")
  done
  start serve "$RUN_DIR/logs/serve.log" \
    env TOLLGATE_TOKENS="[{\"token\":\"$TOKEN\",\"id\":\"topology-check\",\"roles\":[\"ops\"]}]" \
    "$NODE" "$ROOT/dist/src/cli/main.js" serve --host 127.0.0.1 --port "$HTTP_PORT" "${common[@]}"
  SERVE_PID=$LAST_PID
  for n in 1 2; do wait_ready "${WORKER_PIDS[n - 1]}" "worker-$n" "$RUN_DIR/logs/worker-$n.log"; done
  wait_ready "$SERVE_PID" serve "$RUN_DIR/logs/serve.log"
  API_URL=http://127.0.0.1:$HTTP_PORT
  local took
  took=$(seconds_since "$t0")
  log "2 workers (pids ${WORKER_PIDS[*]}) and serve (pid $SERVE_PID, $API_URL/api) ready in ${took} s"
  figure "workers + API ready (e)" "${took} s (2 x tollgate worker, tollgate serve)"
}

# ---------------------------------------------------------------------------------------------
# f. Checks
# ---------------------------------------------------------------------------------------------
check_topology() {
  local t0 out
  t0=$(now)
  out=$(cd "$ROOT" && TEMPORAL_ADDRESS=$TEMPORAL_ADDRESS_LOCAL TEMPORAL_NAMESPACE=$NAMESPACE \
    API_URL=$API_URL API_TOKEN=$TOKEN TOLLGATE_CLI="$ROOT/dist/src/cli/main.js" \
    "$NODE" --input-type=module -e "
    import { execFileSync } from 'node:child_process';
    import { Connection } from '@temporalio/client';
    import { TollgateClient } from '$ROOT/dist/src/http-client/index.js';
    const env = process.env;
    const fail = (why) => { console.log('FAIL ' + why); process.exit(1); };
    const until = async (what, check, ms = 20000) => {
      const deadline = Date.now() + ms;
      for (;;) {
        const value = await check().catch(() => undefined);
        if (value) return value;
        if (Date.now() > deadline) fail(what + ' (gave up after ' + ms + ' ms)');
        await new Promise((r) => setTimeout(r, 250));
      }
    };

    // Both workers poll the task queue (what the compose health check asks of each worker).
    const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS });
    const pollers = await until('two distinct worker pollers on task queue tollgate', async () => {
      const answer = await connection.workflowService.describeTaskQueue({
        namespace: env.TEMPORAL_NAMESPACE, taskQueue: { name: 'tollgate', kind: 1 }, taskQueueType: 1 });
      const ids = new Set(answer.pollers.map((p) => p.identity));
      return ids.size >= 2 ? [...ids] : undefined;
    });
    console.log('ok   workflow pollers: ' + pollers.join(', '));

    // The HTTP API: health, a demo run that parks, listed, approved, finished.
    const client = new TollgateClient({ baseUrl: env.API_URL, token: env.API_TOKEN });
    const health = await client.health();
    if (!health.ok) fail('GET /api/health: ' + JSON.stringify(health));
    console.log('ok   GET /api/health');
    const agent = client.getAgent('ops-agent');
    const parked = await agent.generate([{ role: 'user', content: 'Delete the stale record rec-42' }]);
    if (parked.finishReason !== 'suspended') fail('the run did not park: ' + parked.finishReason + ' ' + parked.text);
    console.log('ok   run ' + parked.runId + ' parked for approval');

    // Listed through PostgreSQL visibility (search attributes), over HTTP and by the CLI.
    await until('the run in GET suspendedRuns', async () =>
      (await agent.listSuspendedRuns()).runs.some((r) => r.runId === parked.runId));
    console.log('ok   listed by the HTTP API (search attributes on PostgreSQL visibility)');
    await until('the run in tollgate runs pending', async () => {
      const text = execFileSync(process.execPath, [env.TOLLGATE_CLI, 'runs', 'pending', '--json',
        '--address', env.TEMPORAL_ADDRESS, '--namespace', env.TEMPORAL_NAMESPACE], { encoding: 'utf8' });
      return JSON.parse(text).runs.some((r) => r.runId === parked.runId);
    });
    console.log('ok   listed by tollgate runs pending');

    const done = await agent.approveToolCallGenerate({ runId: parked.runId });
    if (done.finishReason !== 'stop') fail('after approval: ' + done.finishReason + ' ' + (done.error ?? ''));
    const deleted = done.toolResults.some((r) => JSON.stringify(r).includes('\"deleted\":true'));
    if (!deleted) fail('delete-record did not run: ' + JSON.stringify(done.toolResults));
    console.log('ok   approved over HTTP; the run finished: ' + JSON.stringify(done.text));
    await connection.close();
  " 2>&1) || {
    printf '%s\n' "$out" | sed 's/^/  /'
    figure "topology check (f)" "FAILED"
    return 1
  }
  printf '%s\n' "$out" | sed 's/^/  /'
  local took
  took=$(seconds_since "$t0")
  figure "topology check (f)" "passed in ${took} s (pollers, HTTP API run park/list/approve)"
}

run_tests() {
  local t0 files=() name jest_json=$RUN_DIR/jest-results.json status=0
  local suite="foundation suite"
  if [ -n "${TOLLGATE_TOPOLOGY_TESTS:-}" ]; then
    read -r -a files <<<"$TOLLGATE_TOPOLOGY_TESTS"
    suite="tests (TOLLGATE_TOPOLOGY_TESTS)"
  else
    for name in "${FOUNDATION_TESTS[@]}"; do files+=("dist/test/$name.test.js"); done
  fi
  for name in "${files[@]}"; do [ -f "$ROOT/$name" ] || die "test file $name not found (compiled?)"; done

  # The project's global setup uses TOLLGATE_TEST_TEMPORAL_ADDRESS instead of a dev server.
  SETUP_KIND="project global setup (TOLLGATE_TEST_TEMPORAL_ADDRESS)"

  log "$suite against $TEMPORAL_ADDRESS_LOCAL: ${files[*]}"
  t0=$(now)
  # In the background, polled: a signal to this script then stops everything within a second
  # (a foreground child would delay the trap until it exits); bounded by TOLLGATE_TEST_TIMEOUT.
  start jest "$RUN_DIR/logs/jest.log" env TOLLGATE_TEST_TEMPORAL_ADDRESS="$TEMPORAL_ADDRESS_LOCAL" \
    TOLLGATE_TEST_TEMPORAL_NAMESPACE="$NAMESPACE" TEMPORAL_CLI="$CLI" \
    "$NODE" --experimental-vm-modules node_modules/jest/bin/jest.js \
    --ci --json --outputFile="$jest_json" "${files[@]}"
  local jest_pid=$LAST_PID limit=${TOLLGATE_TEST_TIMEOUT:-1200} waited=0
  while kill -0 "$jest_pid" 2>/dev/null && [ "$waited" -lt "$limit" ]; do
    sleep 1
    waited=$((waited + 1))
  done
  if kill -0 "$jest_pid" 2>/dev/null; then
    log "test suite still running after ${limit} s: stopping it"
    stop_pid "$jest_pid" jest
  fi
  wait "$jest_pid" || status=$?
  local took
  took=$(seconds_since "$t0")
  grep -E '^(PASS|FAIL) |✓|✕|Tests:|Test Suites:|●' "$RUN_DIR/logs/jest.log" | sed 's/^/  /' | tail -n 120
  local results="no results file"
  if [ -f "$jest_json" ]; then
    # shellcheck disable=SC2016 # JavaScript template literals
    results=$("$NODE" -e '
      const r = require(process.argv[1]);
      const t = r.numTotalTests, p = r.numPassedTests, f = r.numFailedTests, s = r.numPendingTests + (r.numTodoTests ?? 0);
      console.log(`${p}/${t} tests passed, ${f} failed, ${s} skipped; ${r.numPassedTestSuites}/${r.numTotalTestSuites} suites`);' "$jest_json")
  fi
  figure "$suite (f)" "$results in ${took} s"
  figure "  test setup" "$SETUP_KIND"
  figure "  jest log" "$RUN_DIR/logs/jest.log"
  return "$status"
}

# ---------------------------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------------------------
T_START=$(now)
build_server
[ "$MODE" = build ] && { FAILED=0; exit 0; }

NODE=$ROOT/node_modules/.bin/node
[ -x "$NODE" ] || NODE=$(command -v node) || die "node not found (npm ci first)"
[ -d "$ROOT/node_modules/@temporalio/client" ] || die "node_modules missing: run npm ci first"
if [ "${TOLLGATE_SKIP_TSC:-0}" != 1 ]; then
  t0=$(now)
  log "compiling (tsc -p tsconfig.json)…"
  (cd "$ROOT" && "$NODE" node_modules/typescript/bin/tsc -p tsconfig.json) || die "tsc failed"
  figure "tsc" "$(seconds_since "$t0") s"
fi
[ -f "$ROOT/dist/src/cli/main.js" ] || die "dist/src/cli/main.js missing: compile first (npm run build)"

CLI=$(find_temporal_cli)
mkdir -p "$CACHE_ROOT/runs"
RUN_DIR=$(mktemp -d "$CACHE_ROOT/runs/$(date +%Y%m%d-%H%M%S).XXXX")
mkdir -p "$RUN_DIR/logs"
# Keep the last 10 run directories.
find "$CACHE_ROOT/runs" -mindepth 1 -maxdepth 1 -type d -printf '%T@ %p\n' | sort -rn | tail -n +11 |
  cut -d' ' -f2- | while read -r old; do rm -rf "$old"; done

setup_schema
write_config
start_server
start_tollgate
CHECK_STATUS=0
check_topology || CHECK_STATUS=1

if [ "$MODE" = up ]; then
  figure "total" "$(seconds_since "$T_START") s"
  print_summary
  SUMMARY=()
  cat <<EOF

Temporal   $TEMPORAL_ADDRESS_LOCAL   (namespace $NAMESPACE; PostgreSQL $PGHOST:$PGPORT/$DB, $VIS_DB)
HTTP API   $API_URL/api          token: $TOKEN
Workers    pids ${WORKER_PIDS[*]}  (demo ops-agent, task queue tollgate)
Logs       $RUN_DIR/logs
Try:       TEMPORAL_ADDRESS=$TEMPORAL_ADDRESS_LOCAL node dist/src/cli/main.js runs pending
Ctrl-C stops the server, the workers and the API.
EOF
  FAILED=$CHECK_STATUS
  while kill -0 "$SERVER_PID" 2>/dev/null; do sleep 1; done
  die "temporal-server exited"
fi

TEST_STATUS=0
run_tests || TEST_STATUS=$?
figure "total" "$(seconds_since "$T_START") s"
if [ "$CHECK_STATUS" -eq 0 ] && [ "$TEST_STATUS" -eq 0 ]; then
  FAILED=0
  log "all checks passed"
else
  log "FAILED (topology check status $CHECK_STATUS, tests status $TEST_STATUS)"
  exit 1
fi
