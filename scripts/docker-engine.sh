#!/bin/sh
# Starts a Docker engine where none answers (CI machines): Debian's docker.io, vfs storage, no
# iptables and no bridge, since these machines allow neither overlay mounts nor network set-up;
# containers then use --network host or --network none. Does nothing where `docker info` answers.
# Needs root. Exit 0 once the engine answers; 1 with the reason on one line otherwise.
#   scripts/docker-engine.sh && docker info
set -u
docker info >/dev/null 2>&1 && exit 0
if ! command -v dockerd >/dev/null; then
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io; } >/dev/null 2>&1; then
    echo "docker.io could not be installed (apt-get install docker.io failed)"
    exit 1
  fi
fi
log=${DOCKERD_LOG:-/tmp/dockerd.log}
nohup dockerd --storage-driver=vfs --iptables=false --ip-masq=false --bridge=none >"$log" 2>&1 &
# Bounded: 30 s for the daemon to answer.
i=0
until docker info >/dev/null 2>&1; do
  i=$((i + 1))
  if [ "$i" -gt 60 ]; then
    echo "dockerd did not answer within 30 s: $(tail -1 "$log")"
    exit 1
  fi
  sleep 0.5
done
echo "docker engine up (vfs, no bridge; log: $log)"
