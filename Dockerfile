# syntax=docker/dockerfile:1
# Node 20 reached end of life on 2026-04-30: the image defaults to 22, the code stays
# Node 20 compatible because CI runs on 20.
ARG NODE_VERSION=22

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
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data \
 && chown node:node /data
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
COPY --chown=node:node openapi ./openapi
USER node
ENV PORT=8080 \
    STORE=sqlite \
    SQLITE_PATH=/data/agent-todos.db
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/livez').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"]
# npm does not pass SIGTERM on: run node directly, under tini as PID 1.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/server.js"]
