#!/usr/bin/env bash
# A minimal Debian bookworm root made here, since no image registry is reachable from the
# machines this project builds on: debootstrap from the Debian mirror apt already uses.
#
#   scripts/debian-root.sh image [TAG]   import it into Docker as TAG (default
#                                        debian:bookworm-slim), the base of docker/Dockerfile
#   scripts/debian-root.sh arm64 DIR     an arm64 root in DIR, unpacked only (no arm64 code
#                                        runs), whose libraries qemu-user loads the arm64
#                                        executable with (test-dist/)
#
# Needs root and debootstrap (apt-get install debootstrap). Each is skipped when it exists.
set -euo pipefail

# The first Debian mirror apt is configured with (deb822 or one-line sources).
mirror() {
  local m
  m=$(grep -hs -E '^\s*(URIs:|deb )' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
    grep -oE 'https?://[^ ]+/debian/?(\s|$)' | head -1 | tr -d ' ')
  echo "${m:-http://deb.debian.org/debian}"
}

case "${1:-}" in
  image)
    tag=${2:-debian:bookworm-slim}
    if docker image inspect "$tag" >/dev/null 2>&1; then echo "$tag exists"; exit 0; fi
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    # libatomic1, which Node 26 links against, is not in minbase: docker/Dockerfile installs it
    # when missing, as on the published debian:bookworm-slim; here it comes in now, so the
    # image builds with no network.
    debootstrap --variant=minbase --include=libatomic1 bookworm "$dir" "$(mirror)" >/dev/null
    # What the slim image leaves out too: apt's lists and caches, docs.
    rm -rf "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/*.bin "$dir"/var/cache/apt/archives/*.deb "$dir"/usr/share/doc/* "$dir"/usr/share/man/*
    tar -C "$dir" -c . | docker import - "$tag" >/dev/null
    echo "$tag imported"
    ;;
  arm64)
    dir=${2:?usage: debian-root.sh arm64 DIR}
    if [ -e "$dir/usr/lib/aarch64-linux-gnu/libatomic.so.1" ]; then echo "$dir exists"; exit 0; fi
    rm -rf "$dir"
    # --foreign: download and unpack only; the second stage would run arm64 programs.
    # libatomic1: Node 26 links against it and minbase leaves it out.
    debootstrap --arch=arm64 --foreign --variant=minbase --include=libatomic1 bookworm "$dir" "$(mirror)" >/dev/null
    # The first stage unpacks only the required packages; the included one is unpacked here.
    dpkg-deb -x "$dir"/var/cache/apt/archives/libatomic1_*_arm64.deb "$dir"
    echo "$dir unpacked"
    ;;
  *)
    echo "usage: $0 image [TAG] | arm64 DIR" >&2
    exit 2
    ;;
esac
