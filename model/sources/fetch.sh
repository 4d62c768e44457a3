#!/usr/bin/env bash
# Sources for the multi-language corpus (issue 27): Rust and Go from Debian packages, JavaScript and
# TypeScript from npm, at the pinned versions of deb.txt and npm.txt, unpacked under DEST.
# Needs apt-get (after one `apt-get update`), dpkg-deb and npm; nothing is installed system-wide.
#   bash model/sources/fetch.sh DEST      (~66 MB download, ~700 MB unpacked; about 15 s)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DEST=${1:?usage: fetch.sh DEST}
mkdir -p "$DEST"/deb "$DEST"/npm/tgz "$DEST"/rust "$DEST"/go "$DEST"/js
(cd "$DEST/deb" && apt-get download $(grep -v '^#' "$HERE/deb.txt"))
for f in "$DEST"/deb/*.deb; do
    case "$(basename "$f")" in golang-*) dpkg-deb -x "$f" "$DEST/go" ;; *) dpkg-deb -x "$f" "$DEST/rust" ;; esac
done
(cd "$DEST/npm/tgz" && npm pack --silent $(grep -v '^#' "$HERE/npm.txt") > /dev/null)
for f in "$DEST"/npm/tgz/*.tgz; do n=$(basename "$f" .tgz); mkdir -p "$DEST/js/$n"; tar xzf "$f" -C "$DEST/js/$n"; done
