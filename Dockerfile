# Tollgate: one image for the worker (`tollgate worker --agents <module>`) and the HTTP API
# (`tollgate serve`). docker-compose.yml builds it for both services; see notes/production.md.
#
#   docker build -t tollgate .
#   docker run --rm -e TEMPORAL_ADDRESS=temporal:7233 tollgate worker --agents dist/demo/agents.js
#   docker run --rm -e TEMPORAL_ADDRESS=temporal:7233 -e TOLLGATE_TOKENS='[...]' -p 8787:8787 \
#     tollgate serve --host 0.0.0.0
#
# Debian (glibc), not Alpine: the Temporal worker's native core bridge ships glibc builds.
ARG NODE_IMAGE=node:22-bookworm-slim

##### build: full install, compile, then drop dev dependencies #####
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV NODE_ENV=development \
    npm_config_fund=false \
    npm_config_audit=false \
    npm_config_update_notifier=false

# Dependencies first, so source edits do not reinstall them.
COPY package.json package-lock.json ./
RUN npm ci

# Sources (.dockerignore lets through only what the build needs).
COPY . .
RUN npm run build

RUN mkdir -p inbox

RUN npm prune --omit=dev \
 && rm -rf dist/test dist/bench

##### runtime: compiled output and production dependencies only, as a non-root user #####
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
# MALLOC_ARENA_MAX: glibc gives every allocating thread its own arena, and a worker has many
# (Temporal's Rust core, V8, libuv); two arenas kept 2,000 parked runs 26 MiB (6 %) smaller
# (docs/performance.md).
ENV NODE_ENV=production \
    TEMPORAL_ADDRESS=temporal:7233 \
    TEMPORAL_NAMESPACE=default \
    MALLOC_ARENA_MAX=2

COPY --from=build --chown=node:node /app/package.json /app/package-lock.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
# The approval inbox page, served by `serve` when it holds an index.html (empty otherwise).
COPY --from=build --chown=node:node /app/inbox ./inbox

# The official node image's unprivileged user (uid 1000).
USER node

# 8787: the HTTP API and inbox of `serve` (the worker listens on nothing).
EXPOSE 8787

# Node as PID 1 would ignore SIGTERM without handlers; tollgate installs its own (Ctrl-C/SIGTERM
# stop the worker gracefully), so no init shim is needed. Override the command per service.
ENTRYPOINT ["node", "dist/src/cli/main.js"]
CMD ["--help"]
