#!/usr/bin/env bash
# Validates docker-compose.yml and lints the Dockerfile without a Docker engine. CI may call it.
#
#   scripts/check-compose.sh
#
# Checks, in order:
#   1. `docker-compose config -q` (Compose 1.29, Debian's package, installed when missing):
#      schema, interpolation, depends_on conditions. With the `docker compose` v2 plugin present
#      it runs `docker compose config -q` too.
#   2. The same with every variable the file reads overridden, each reaching the config.
#   3. Structure the project relies on, read from the resolved config: the services and their
#      start order (depends_on conditions), health checks, images (temporalio/server 1.29.x),
#      the worker and API commands, and the search attributes the namespace job registers
#      being exactly SEARCH_ATTRIBUTES of src/common/wire.ts.
#   4. The two one-shot setup scripts embedded in the file parse as POSIX sh.
#   5. Dockerfile: the rules of `docker build --check` (BuildKit's Dockerfile linter), run
#      offline by a small Go program built once from the Go module proxy into
#      $TOLLGATE_CACHE_DIR/dockerfile-lint/ (CHECK_COMPOSE_SKIP_LINT=1 skips it); hadolint too
#      when installed; and structural checks (multi-stage, node:22, npm ci / build / prune,
#      non-root user, .dockerignore whitelist).
# Each variable a .env file beside the compose file could set is ignored here: the checks see
# the file's own defaults. Exit status: 0 when every check passed, 1 otherwise.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FILE=$ROOT/docker-compose.yml
DOCKERFILE=$ROOT/Dockerfile
CACHE_ROOT=${TOLLGATE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tollgate}
BUILDKIT_VERSION=v0.34.2
failures=0

pass() { printf '  ok    %s\n' "$*"; }
fail() {
  printf '  FAIL  %s\n' "$*" >&2
  failures=$((failures + 1))
}
step() { printf '\n== %s\n' "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }
# expect "description" command...: one check.
expect() {
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
: >"$TMP/empty.env"

ensure_docker_compose() {
  have docker-compose && return 0
  have apt-get || {
    echo "docker-compose is missing and apt-get is unavailable: install Compose 1.29+ or v2." >&2
    return 1
  }
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    have sudo || {
      echo "need root (or sudo) to apt-get install docker-compose" >&2
      return 1
    }
    sudo=(sudo)
  fi
  echo "Installing docker-compose (Debian package)…"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get install -y -q docker-compose >/dev/null 2>&1 || {
    "${sudo[@]}" apt-get update -q >/dev/null
    "${sudo[@]}" apt-get install -y -q docker-compose >/dev/null
  }
}

# `docker-compose config` needs no engine. Variables come from the caller's environment only.
compose() { (cd "$ROOT" && env -u DOCKER_HOST docker-compose --env-file "$TMP/empty.env" -f "$FILE" "$@"); }
compose_v2() { (cd "$ROOT" && docker compose --env-file "$TMP/empty.env" -f "$FILE" "$@"); }

# ---------------------------------------------------------------------------------------------
step "Compose file: $FILE"
ensure_docker_compose
echo "  docker-compose $(docker-compose version --short 2>/dev/null || echo '?')"
expect "docker-compose config -q (defaults)" compose config -q
if docker compose version >/dev/null 2>&1; then
  expect "docker compose (v2) config -q" compose_v2 config -q
else
  echo "  skip  docker compose (v2): the docker CLI here has no compose plugin"
fi

# ---------------------------------------------------------------------------------------------
step "Interpolation with every variable overridden"
overrides=(
  POSTGRES_VERSION=17 POSTGRES_USER=tg POSTGRES_PASSWORD=s3cret TEMPORAL_DB=tg_main
  TEMPORAL_VISIBILITY_DB=tg_visibility TEMPORAL_VERSION=1.29.2
  TEMPORAL_ADMINTOOLS_VERSION=1.29.2 TEMPORAL_UI_VERSION=2.40.0 TEMPORAL_NAMESPACE=prod
  TEMPORAL_NAMESPACE_RETENTION=168h TEMPORAL_PORT=17233 TEMPORAL_UI_PORT=18080
  TEMPORAL_LOG_LEVEL=info TOLLGATE_PUBLISH_IP=0.0.0.0 TOLLGATE_HTTP_PORT=18787
  TOLLGATE_AGENTS=/app/agents/index.js TOLLGATE_TASK_QUEUE=agents-q TOLLGATE_IMAGE=registry.example/tollgate:1
  TOLLGATE_TOKENS='[{"token":"t","id":"ci"}]' TOLLGATE_TOKENS_FILE=/run/secrets/tokens
  OPENAI_API_KEY=sk-test OPENAI_BASE_URL=http://llm:8000/v1 OPENAI_MODEL=gpt-4o
)
# Every ${VAR...} the file reads must be in the list above.
# shellcheck disable=SC2016 # a literal ${ to find
mapfile -t used < <(grep -o '\${[A-Z_][A-Z0-9_]*' "$FILE" | cut -c3- | sort -u)
for var in "${used[@]}"; do
  printf '%s\n' "${overrides[@]}" | grep -q "^$var=" || fail "variable $var is not exercised here"
done
if resolved_overridden=$(env "${overrides[@]}" bash -c "$(declare -f compose); ROOT='$ROOT' FILE='$FILE' TMP='$TMP' compose config"); then
  pass "config with ${#overrides[@]} variables overridden (${#used[@]} read by the file)"
  for pair in "${overrides[@]}"; do
    value=${pair#*=}
    expect "${pair%%=*} reaches the config" grep -qF -- "$value" <<<"$resolved_overridden"
  done
else
  fail "config with overrides"
fi

# ---------------------------------------------------------------------------------------------
step "Structure"
resolved=$(compose config)
PYTHON=$(command -v python3 || true)
if [ -z "$PYTHON" ] || ! "$PYTHON" -c 'import yaml' 2>/dev/null; then
  fail "python3 with PyYAML (a docker-compose 1.29 dependency) not found: structure checks skipped"
else
  RESOLVED="$resolved" COMPOSE_ROOT="$ROOT" OUT="$TMP" "$PYTHON" - <<'PY' || failures=$((failures + $?))
import os, re, sys, yaml

doc = yaml.safe_load(os.environ["RESOLVED"])
services = doc["services"]
problems = []

def check(cond, what):
    print(("  ok    " if cond else "  FAIL  ") + what, file=sys.stdout if cond else sys.stderr)
    if not cond:
        problems.append(what)

expected = ["postgresql", "temporal-schema", "temporal", "temporal-namespace", "temporal-ui",
            "tollgate-worker", "tollgate-api"]
check(sorted(services) == sorted(expected), "services: " + ", ".join(expected))

def waits(svc, on, cond):
    d = services.get(svc, {}).get("depends_on", {})
    return isinstance(d, dict) and d.get(on, {}).get("condition") == cond

check(waits("temporal-schema", "postgresql", "service_healthy"), "temporal-schema waits for postgresql healthy")
check(waits("temporal", "temporal-schema", "service_completed_successfully"), "temporal waits for the schema job")
check(waits("temporal-namespace", "temporal", "service_healthy"), "temporal-namespace waits for temporal healthy")
check(waits("temporal-ui", "temporal", "service_healthy"), "temporal-ui waits for temporal healthy")
for svc in ("tollgate-worker", "tollgate-api"):
    check(waits(svc, "temporal-namespace", "service_completed_successfully"), f"{svc} waits for the namespace job")
for svc in ("postgresql", "temporal", "tollgate-worker", "tollgate-api"):
    check("healthcheck" in services.get(svc, {}), f"{svc} has a health check")

check(re.fullmatch(r"postgres:\d+", services["postgresql"]["image"]) is not None,
      f"postgresql: official image, major pinned ({services['postgresql']['image']})")
check(re.fullmatch(r"temporalio/server:1\.29\.\d+", services["temporal"]["image"]) is not None,
      f"temporal: temporalio/server 1.29.x ({services['temporal']['image']})")
check(services["temporal-ui"]["image"].startswith("temporalio/ui:"), "temporal-ui: temporalio/ui")
for svc in ("temporal-schema", "temporal-namespace"):
    check(services[svc]["image"].startswith("temporalio/admin-tools:1.29."), f"{svc}: temporalio/admin-tools 1.29.x")
check(not any("ports" in services[s] for s in ("postgresql",)), "postgresql is not published")

worker, api = services["tollgate-worker"], services["tollgate-api"]
for svc in ("tollgate-worker", "tollgate-api"):
    build = services[svc].get("build", {})
    check(build.get("dockerfile") == "Dockerfile" and build.get("context") == os.environ["COMPOSE_ROOT"],
          f"{svc} builds ./Dockerfile from the repository root")
check(worker.get("image") == api.get("image"), "tollgate-worker and tollgate-api share one image tag")
check(worker["command"][:2] == ["worker", "--agents"] and bool(worker["command"][2]),
      "worker runs `worker --agents <module>`")
check(api["command"][0] == "serve" and "0.0.0.0" in api["command"], "api runs `serve --host 0.0.0.0`")

wire = open(os.path.join(os.environ["COMPOSE_ROOT"], "src/common/wire.ts"), encoding="utf8").read()
block = re.search(r"SEARCH_ATTRIBUTES = \{(.*?)\} as const", wire, re.S)
want = set(re.findall(r"name: '(\w+)', type: '(\w+)'", block.group(1))) if block else set()
script = "\n".join(services["temporal-namespace"]["command"])
got = set(re.findall(r"(Tollgate\w+):(Keyword\w*)", script))
check(len(want) == 5 and want == got,
      "namespace job registers SEARCH_ATTRIBUTES of wire.ts: " + ", ".join(sorted(f"{n}={t}" for n, t in want)))

# The tuned dynamic config: mounted into the server, the file the server reads, and the same
# settings as the dev server's TUNED_DYNAMIC_CONFIG (src/devserver/dev-server.ts).
temporal_svc = services["temporal"]
dc_path = temporal_svc.get("environment", {}).get("DYNAMIC_CONFIG_FILE_PATH")
dc_file = os.path.join(os.environ["COMPOSE_ROOT"], "config/temporal/dynamicconfig.yaml")
mounts = [str(v) for v in temporal_svc.get("volumes", [])]
check(dc_path is not None and any(dc_file in m and dc_path in m for m in mounts),
      f"temporal mounts config/temporal/dynamicconfig.yaml at DYNAMIC_CONFIG_FILE_PATH ({dc_path})")
dev_server = open(os.path.join(os.environ["COMPOSE_ROOT"], "src/devserver/dev-server.ts"), encoding="utf8").read()
tuned_block = re.search(r"export const TUNED_DYNAMIC_CONFIG[^=]*=\s*Object\.freeze\(\{(.*?)\}\)", dev_server, re.S)
tuned = dict(re.findall(r"'([\w.]+)':\s*([\w.]+)", tuned_block.group(1))) if tuned_block else {}
file_doc = yaml.safe_load(open(dc_file, encoding="utf8"))
from_file = {k: str(v[0]["value"]).lower() for k, v in file_doc.items()}
check(len(tuned) >= 2 and from_file == {k: v.lower() for k, v in tuned.items()},
      "dynamicconfig.yaml holds the dev server's TUNED_DYNAMIC_CONFIG: " + ", ".join(f"{k}={v}" for k, v in sorted(from_file.items())))

# The embedded scripts, as the containers' shell will see them ($$ is Compose's escaped $).
for name in ("temporal-schema", "temporal-namespace"):
    body = "\n".join(services[name]["command"]).replace("$$", "$")
    open(os.path.join(os.environ["OUT"], name + ".sh"), "w").write(body)
sys.exit(min(len(problems), 100))  # the number of failed checks
PY

  step "Embedded setup scripts parse as POSIX sh"
  shell=$(command -v dash || command -v sh)
  for name in temporal-schema temporal-namespace; do
    expect "$name: $(basename "$shell") -n" "$shell" -n "$TMP/$name.sh"
  done
fi

# ---------------------------------------------------------------------------------------------
step "Dockerfile: $DOCKERFILE"

# BuildKit's Dockerfile linter (what `docker build --check` runs), offline. Built once.
dockerfile_lint() {
  local dir=$CACHE_ROOT/dockerfile-lint/$BUILDKIT_VERSION bin work
  bin=$dir/dockerfile-lint
  if [ ! -x "$bin" ]; then
    have go || {
      echo "  skip  BuildKit lint: go is not installed"
      return 0
    }
    mkdir -p "$dir"
    work=$(mktemp -d)
    echo "  building the BuildKit $BUILDKIT_VERSION Dockerfile linter (once; log $dir/build.log)…"
    cat >"$work/go.mod" <<EOF
module tollgate.local/dockerfile-lint

go 1.25.0

require github.com/moby/buildkit $BUILDKIT_VERSION
EOF
    cat >"$work/main.go" <<'EOF'
// dockerfile-lint: the checks of `docker build --check` (BuildKit's Dockerfile frontend
// linter), run offline. No image is pulled: every FROM resolves to an empty image config.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/moby/buildkit/client/llb"
	"github.com/moby/buildkit/client/llb/sourceresolver"
	"github.com/moby/buildkit/frontend/dockerfile/dockerfile2llb"
	"github.com/moby/buildkit/solver/pb"
	digest "github.com/opencontainers/go-digest"
)

type offlineResolver struct{}

func (offlineResolver) ResolveImageConfig(_ context.Context, ref string, _ sourceresolver.Opt) (string, digest.Digest, []byte, error) {
	cfg := []byte(`{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]},"config":{}}`)
	return ref, digest.FromBytes(cfg), cfg, nil
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: dockerfile-lint <Dockerfile>")
		os.Exit(2)
	}
	dt, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	sm := llb.NewSourceMap(nil, os.Args[1], "Dockerfile", dt)
	sm.Definition = &llb.Definition{}
	results, err := dockerfile2llb.DockerfileLint(context.Background(), dt,
		dockerfile2llb.ConvertOpt{MetaResolver: offlineResolver{}, SourceMap: sm})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	same := func(s *pb.SourceInfo) *pb.SourceInfo { return s }
	if err := results.PrintTo(os.Stdout, same); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if results.Error != nil {
		results.PrintErrorTo(os.Stdout, same)
		os.Exit(1)
	}
	if len(results.Warnings) > 0 {
		fmt.Printf("\n%d warning(s)\n", len(results.Warnings))
		os.Exit(1)
	}
}
EOF
    if ! (cd "$work" && export GOFLAGS=-mod=mod CGO_ENABLED=0 GOWORK=off &&
      go get "github.com/moby/buildkit/frontend/dockerfile/dockerfile2llb@$BUILDKIT_VERSION" &&
      go build -o "$bin.tmp" . && mv -f "$bin.tmp" "$bin") >"$dir/build.log" 2>&1; then
      rm -rf "$work"
      tail -n 5 "$dir/build.log" >&2
      fail "BuildKit lint: building the linter failed (log $dir/build.log)"
      return 0
    fi
    rm -rf "$work"
  fi
  expect "BuildKit lint (the rules of docker build --check), no warnings" "$bin" "$DOCKERFILE"
}

if [ "${CHECK_COMPOSE_SKIP_LINT:-0}" = 1 ]; then
  echo "  skip  BuildKit lint: CHECK_COMPOSE_SKIP_LINT=1"
else
  dockerfile_lint
fi
if have hadolint; then
  expect "hadolint" hadolint "$DOCKERFILE"
else
  echo "  skip  hadolint: not installed"
fi
if have docker && docker info >/dev/null 2>&1 && docker buildx version >/dev/null 2>&1; then
  expect "docker build --check" docker build --check "$ROOT"
else
  echo "  skip  docker build --check: needs a Docker engine with BuildKit (none here)"
fi

in_dockerfile() { grep -Eq -- "$1" "$DOCKERFILE"; }
expect "multi-stage: a build stage" in_dockerfile '^FROM .* AS build$'
expect "multi-stage: a runtime stage copying from it" in_dockerfile '^COPY --from=build '
expect "node:22 base image" in_dockerfile '^ARG NODE_IMAGE=node:22'
expect "npm ci" in_dockerfile '^RUN npm ci'
expect "npm run build" in_dockerfile '^RUN npm run build'
expect "npm prune --omit=dev" in_dockerfile 'npm prune --omit=dev'
last_user=$(awk '/^USER /{u=$2} END{print u}' "$DOCKERFILE")
non_root() { [ -n "$last_user" ] && [ "$last_user" != root ] && [ "$last_user" != 0 ]; }
expect "runs as a non-root user (${last_user:-none})" non_root
expect ".dockerignore is a whitelist" grep -qx '\*' "$ROOT/.dockerignore"
for path in package.json package-lock.json tsconfig.json src demo; do
  expect ".dockerignore lets $path through" grep -qx "!$path/\{0,1\}" "$ROOT/.dockerignore"
done

echo
if [ "$failures" -eq 0 ]; then
  echo "check-compose: all checks passed"
else
  echo "check-compose: $failures check(s) failed" >&2
  exit 1
fi
