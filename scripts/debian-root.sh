#!/usr/bin/env bash
# A minimal Debian bookworm root made here, since no image registry is reachable from the
# machines this project builds on: debootstrap from the Debian mirror apt already uses.
#
#   scripts/debian-root.sh image [TAG]   import it into Docker as TAG (default
#                                        debian:bookworm-slim), the base of docker/Dockerfile;
#                                        a TAG that exists is reused only if `check` passes
#   scripts/debian-root.sh check TAG     exit 0 when the image TAG holds nothing under proc/
#                                        or sys/ (a listing of its files, by docker export)
#   scripts/debian-root.sh arm64 DIR     an arm64 root in DIR, unpacked only (no arm64 code
#                                        runs), whose libraries qemu-user loads the arm64
#                                        executable with (test-dist/)
#
# Needs root and debootstrap (apt-get install debootstrap). Each is skipped when it exists.
#
# debootstrap mounts the host's /proc and /sys inside the root while it works; one left
# mounted would put every process's command line into the image. So whatever is mounted
# below the root is unmounted first, the archive leaves out the contents of proc/, sys/ and
# dev/ (the container runtime provides them) and stays on the root's own filesystem, and
# both the archive and the imported image are listed to prove it.
set -euo pipefail

# The first Debian mirror apt is configured with (deb822 or one-line sources).
mirror() {
  local m
  m=$(grep -hs -E '^\s*(URIs:|deb )' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
    grep -oE 'https?://[^ ]+/debian/?(\s|$)' | head -1 | tr -d ' ')
  echo "${m:-http://deb.debian.org/debian}"
}

# The entries of an archive listing (on stdin) below proc/ or sys/: none is allowed.
mounted_leftovers() {
  grep -E '^(\./)?(proc|sys)/.' || true
}

# Whether the image $1 holds nothing under proc/ or sys/ (its mount points aside): a
# container created from it, never started, is exported and listed.
check() {
  local tag=$1 id found
  docker image inspect "$tag" >/dev/null 2>&1 || { echo "$tag: no such image" >&2; return 1; }
  id=$(docker create "$tag" /bin/true)
  found=$(docker export "$id" | tar -t | mounted_leftovers | head -3)
  docker rm "$id" >/dev/null
  if [ -n "$found" ]; then
    echo "$tag holds what a build host had mounted (e.g. $(echo "$found" | tr '\n' ' '))" >&2
    return 1
  fi
}

# Everything mounted at or below $1, deepest first, unmounted; fails if any is left.
unmount_below() {
  local m
  awk -v d="$1/" 'index($2 "/", d) == 1 { print $2 }' /proc/self/mounts | sort -r | while read -r m; do umount -l "$m"; done
  if awk -v d="$1/" 'index($2 "/", d) == 1 { found = 1 } END { exit !found }' /proc/self/mounts; then
    echo "still mounted below $1" >&2
    return 1
  fi
}

case "${1:-}" in
  check)
    check "${2:?usage: debian-root.sh check TAG}"
    ;;
  image)
    tag=${2:-debian:bookworm-slim}
    if docker image inspect "$tag" >/dev/null 2>&1; then
      if check "$tag"; then echo "$tag exists"; exit 0; fi
      echo "$tag is rebuilt" >&2
    fi
    dir=$(mktemp -d)
    archive=$(mktemp)
    trap 'unmount_below "$dir" || true; rm -rf "$dir" "$archive"' EXIT
    # libatomic1, which Node 26 links against, is not in minbase: docker/Dockerfile installs it
    # when missing, as on the published debian:bookworm-slim; here it comes in now, so the
    # image builds with no network.
    debootstrap --variant=minbase --include=libatomic1 bookworm "$dir" "$(mirror)" >/dev/null
    # What the slim image leaves out too: apt's lists and caches, docs.
    rm -rf "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/*.bin "$dir"/var/cache/apt/archives/*.deb "$dir"/usr/share/doc/* "$dir"/usr/share/man/*
    unmount_below "$dir"
    tar -C "$dir" --one-file-system --exclude='./proc/*' --exclude='./sys/*' --exclude='./dev/*' -cf "$archive" .
    if [ -n "$(tar -tf "$archive" | mounted_leftovers | head -1)" ]; then echo "the root's archive holds proc/ or sys/ entries" >&2; exit 1; fi
    # The archive's hash, for `docker image inspect` to show which root the tag holds.
    sum=$(sha256sum "$archive" | cut -d' ' -f1)
    docker import --change "LABEL org.offramp.debian-root.sha256=$sum" - "$tag" <"$archive" >/dev/null
    check "$tag"
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
