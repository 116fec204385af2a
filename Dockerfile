# v2gw: the v2beta1 gateway over a v1 backend.
#   docker build -t v2gw .
#   docker run --rm -p 8080:8080 -e V2GW_V1_URL=https://v1.example.internal v2gw
# Every flag of src/config.ts has a V2GW_ environment variable. Without
# V2GW_V1_URL the gateway serves an in-process demo emulator, not a real backend;
# with V2GW_MODE=native it serves v2 from its own store (/data, or V2GW_STORE=postgres://…).
# The gateway runs its build (`npm run build`: the sources bundled and minified into plain JavaScript in
# dist/ by esbuild), so the process never loads Node's type stripper (~18 MB of RSS) nor keeps the
# source text of ~1,500 modules (~10 MB); no devDependency (esbuild, typescript, vitest, the `node` npm
# package) is in the image.

FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
# esbuild is a devDependency; it finds its binary in its platform package, with no install script.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY scripts ./scripts
COPY src ./src
COPY mappings ./mappings
RUN node scripts/build.ts

FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; none of them needs an install script.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM node:24-slim
# The embedded store lives on the /data volume, so native mode and the times kept
# for v1 survive a restart. With a shared PostgreSQL store instead, run with
# -e V2GW_STORE=postgres://… -e V2GW_DATA_DIR= (empty: a gateway has one store).
# --expose-gc: the gateway makes one memory-reducing collection before it listens, handing back the young
# generation start-up grew (src/startup-memory.ts); nothing else calls gc.
# --max-semi-space-size=8: V8's young generation capped at two 8 MB semi-spaces instead of growing to
# 32 MB each under load: tens of MB less at the peak, for more frequent (smaller) scavenges; at 4 MB a
# gRPC Get paid for the scavenges in CPU. Measured with `npm run bench` (bench/README.md, Memory).
# --max-old-space-size=2000: a heap limit under 2 GiB is what makes V8 grow its old generation by at
# most ~2x of what survived its last full collection (at 2 GiB and over, on a host or container with
# 4 GiB or more, it grows by up to 4x when collections look slow next to the allocation rate, as on a
# busy machine), so a busy gateway holds about the same heap at any rate. Not a tighter limit: below
# ~1.6x, Lists pay in full collections. The gateway's own heap is far below it (its stores keep their
# rows outside V8's heap, its caches are bounded in bytes) (bench/README.md, Memory under churn).
# MALLOC_ARENA_MAX=2: glibc gives each thread that mallocs (V8's compiler and GC workers) an arena of
# its own, and keeps what it freed there; two arenas idle ~3 MB lower, at the same CPU per request
# (bench/README.md, Memory).
ENV NODE_ENV=production \
    NODE_OPTIONS="--expose-gc --max-semi-space-size=8 --max-old-space-size=2000" \
    MALLOC_ARENA_MAX=2 \
    V2GW_HOST=0.0.0.0 \
    V2GW_PORT=8080 \
    V2GW_DATA_DIR=/data
WORKDIR /app
# Owned by root, run as `node`: the process cannot rewrite its own code.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY --from=build /app/dist ./dist
# The sources stay for the health probe (below), which runs once per interval, and for `node src/cli.ts`.
COPY src ./src
COPY mappings ./mappings
# The one writable place: the embedded store, owned by the user the process runs as.
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 8080
STOPSIGNAL SIGTERM
# slim has no curl: the probe is a small script that reads the same settings as the
# gateway — the V2GW_* variables, and the flags of the gateway's command line, which it
# reads from PID 1 (`docker run v2gw node dist/src/cli.js --port 9000`, with or without --init) —
# so it follows any port, host and TLS.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "src/healthcheck.ts"]
CMD ["node", "dist/src/cli.js"]
