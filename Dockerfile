# syntax=docker/dockerfile:1
# The Node major CI tests (.ci/run runs on Node 20), pinned to a minor so a rebuild does not
# move the runtime under the tests' feet; bump it together with CI's Node. Node 20 reached end
# of life on 2026-04-30: move both to 22 (or 24) at once.
ARG NODE_VERSION=20.20

FROM node:${NODE_VERSION}-bookworm-slim AS base
WORKDIR /app
ENV NODE_ENV=production

# The toolchain lives only in this stage: node-gyp's fallback build of better-sqlite3
# when no prebuilt binary can be fetched.
FROM base AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --include=dev
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/copy-assets.mjs ./scripts/
COPY src ./src
# tsc compiles src/*.ts; copy-assets.mjs adds the files it does not emit (dashboard, docs page)
# The native addon is already compiled for this Node ABI; pruning keeps it.
RUN npm run build && npm prune --omit=dev

FROM base AS runtime
# VERSION is package.json's (test/e2e/package.test.ts keeps them equal); the repository has no
# public address yet: pass it with --build-arg SOURCE_URL=https://… when building for a registry.
ARG VERSION=0.1.0
ARG SOURCE_URL=""
LABEL org.opencontainers.image.title="agent-todos" \
      org.opencontainers.image.description="One HTTP service that owns the todo / plan tool of LLM agent loops, in every agent's dialect." \
      org.opencontainers.image.source="${SOURCE_URL}" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}"
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data \
 && chown node:node /data
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json LICENSE ./
COPY --chown=node:node openapi ./openapi
USER node
# HOST is left unset on purpose: with AUTH_KEYS the service listens on 0.0.0.0; in open access
# (no keys) on 127.0.0.1, out of reach of a published port, so open access needs an explicit
# `-e HOST=0.0.0.0` (and ALLOWED_HOSTS with the names people use, unless they use localhost).
ENV PORT=8080 \
    STORE=sqlite \
    SQLITE_PATH=/data/agent-todos.db
# docker stop sends STOPSIGNAL, then SIGKILL after 10 s: the drain (in-flight requests, SSE
# streams, the store's close) must end before that, so the grace is 8 s, not the default 10 s.
ENV SHUTDOWN_GRACE_MS=8000
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/livez').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"]
# npm does not pass SIGTERM on: run node directly, under tini as PID 1. SIGTERM starts the drain.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/server.js"]
