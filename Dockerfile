# blob-cacher-node-perf: the entry point is `blob-cacher`; without arguments it runs the small-file
# upload benchmark, configured only by environment, e.g.
#   docker run -v "$PWD/results:/app/results" -e PROCESSES=16 -e MAX_SOCKETS=8 blob-cacher-node-perf
# and with arguments any command: `docker run IMAGE download …`, `IMAGE collect --run-id …`.
# With no STORAGE_* credentials it runs against an embedded Azurite inside the container.
# Credentials are passed at run time (-e or --env-file); no .env is ever copied into the image.
# Results go to /app/results: mount a directory there to keep them, writable by uid 1000 (or run with
# --user); the image's own is writable by any uid in group 0, as OpenShift runs images.

FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
# The image already has Node 24: skip install scripts (the pinned node@24 package is only for npm scripts).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY scripts/bundle.ts ./scripts/
COPY src ./src
# As `npm run build` (tsc, then the start files bundled in place); then only what runs is kept: the
# production packages, dist/, and results/ owned by uid 1000 and group 0, group-writable.
RUN node node_modules/typescript/bin/tsc -p tsconfig.json && node scripts/bundle.ts \
  && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
  && rm -rf scripts src tsconfig.json \
  && mkdir results && chown 1000:0 results && chmod 2775 results

# Nothing runs in this stage (no npm: it would leave a root-owned compile cache in /tmp that the
# image's user can neither use nor replace), and the one large layer comes last: on a vfs engine
# each step copies the whole image so far.
FROM node:24-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
# Numeric, so that Kubernetes can check runAsNonRoot; uid 1000 is the base image's `node`.
USER 1000
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["upload"]
COPY --from=build /app /app
