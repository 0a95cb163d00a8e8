# blob-cacher-node-perf: the entry point is `blob-cacher`; without arguments it runs the small-file
# upload benchmark, configured only by environment, e.g.
#   docker run -e PROCESSES=16 -e MAX_SOCKETS=8 -e FILE_SIZE=102 -e FILE_COUNT=2400 blob-cacher-node-perf
# and with arguments any command: `docker run IMAGE download …`, `IMAGE collect --run-id …`.
# With no STORAGE_* credentials it runs against an embedded Azurite inside the container.
# Credentials are passed at run time (-e or --env-file); no .env is ever copied into the image.

FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The image already has Node 24: skip install scripts (the pinned node@24 package is only for npm scripts).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
RUN node node_modules/typescript/bin/tsc -p tsconfig.json

FROM node:24-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["upload"]
