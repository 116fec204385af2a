# v2gw: the v2beta1 gateway over a v1 backend.
#   docker build -t v2gw .
#   docker run --rm -p 8080:8080 -e V2GW_V1_URL=https://v1.example.internal v2gw
# Every flag of src/config.ts has a V2GW_ environment variable. Without
# V2GW_V1_URL the gateway serves an in-process demo emulator, not a real backend;
# with V2GW_MODE=native it serves v2 from its own store (/data, or V2GW_STORE=postgres://…).
# Node 24 runs the TypeScript sources directly (type stripping): no build step,
# and no devDependency (typescript, vitest, the `node` npm package) at runtime.

FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; none of them needs an install script.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM node:24-slim
ENV NODE_ENV=production \
    V2GW_HOST=0.0.0.0 \
    V2GW_PORT=8080
WORKDIR /app
# Owned by root, run as `node`: the process cannot rewrite its own code.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY src ./src
COPY mappings ./mappings
# A writable place for the embedded store (times v1 omits; everything in native mode):
# run with -e V2GW_DATA_DIR=/data and a volume there to keep it across restarts. Not set
# by default, because --data-dir and --store (PostgreSQL) exclude each other.
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 8080
STOPSIGNAL SIGTERM
# slim has no curl: probe liveness with Node's own fetch.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.V2GW_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"]
CMD ["node", "src/cli.ts"]
