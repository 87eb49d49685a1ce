# syntax=docker/dockerfile:1
# The service's image: `docker build -t evm-sim-service .` (or podman build). docs/operations.md
# says how to run it; docs/decisions/0115-container-image.md why it is built this way.
ARG NODE_IMAGE=node:20-bookworm-slim

# Build: every dependency (TypeScript among them), the ethereumjs patches applied by npm ci's
# postinstall, the sources compiled to dist/, then the dev dependencies pruned away.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
COPY patches ./patches
# Behind a proxy that re-signs TLS, hand npm its certificate bundle as a build secret
# (`--secret id=npm_ca,src=ca.pem`): it is mounted for this step only, never stored in a layer.
RUN --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --omit=optional --no-audit --no-fund --loglevel=warn
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/
COPY config ./config
COPY tracers ./tracers
COPY engine ./engine
COPY host ./host
COPY src ./src
COPY client ./client
# type declarations and source maps are never loaded at run time: a fifth of node_modules
RUN npm run build -- --no-bundle \
 && npm prune --omit=dev --omit=optional --no-audit --no-fund --loglevel=warn \
 && find dist node_modules -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -delete

# Runtime: production dependencies, dist/, the config files and the viewer's static files; no
# compiler, no test or bench code. Runs as a user of its own, with a root file system that may be
# read-only: the only writes are long struct logs spilled under $TMPDIR.
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
# the user and group by hand: any Node base image has /etc/passwd, not all have useradd
RUN echo 'sim:x:10001:10001:evm-sim-service:/nonexistent:/usr/sbin/nologin' >> /etc/passwd \
 && echo 'sim:x:10001:' >> /etc/group
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY config/*.toml ./config/
COPY src/ui ./src/ui
# The development settings on 0.0.0.0: with nothing set, the embedded devnet, no token; every
# setting is an environment variable (README "Configuration"); APP_ENV=production asks a token.
ENV HOST=0.0.0.0 PORT=8080 TMPDIR=/tmp
USER 10001:10001
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/v1/health/live`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node is PID 1 and handles SIGTERM itself (the drain): exec form, no shell or init between.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "dist/src/main.js"]
