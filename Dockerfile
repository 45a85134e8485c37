# syntax=docker/dockerfile:1
# Tandem: production dependencies only, runs as the unprivileged `node` user.
# Data: set DATABASE_URL for PostgreSQL, or mount a volume at /data for the embedded PGlite.
# Node 24, the Active LTS (Node 20 reached its end of life in April 2026). The code itself supports Node
# 20.19 and newer (package.json engines); the tests run on Node 20 — see README, "Supported Node versions".

FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# The build (docs/decisions/061): esbuild bundles src/ and what it imports. bin/tandem.js runs dist/ while its stamp matches src/ and the lockfile.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY bin ./bin
COPY scripts/build.mjs ./scripts/
COPY src ./src
RUN node scripts/build.mjs

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    DATA_DIR=/data \
    PORT=3000
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json manifest.yml ./
COPY bin ./bin
COPY src ./src
COPY --from=build /app/dist ./dist
COPY drizzle ./drizzle
COPY runbooks ./runbooks
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "bin/tandem.js", "start"]
