#!/usr/bin/env bash
# Download and unpack the packages of bench/repo_packages.txt into data/repo_bench/SPLIT/LANG/NAME (one
# workspace root per package; gitignored). Python: the PyPI sdist (pip download --no-binary);
# JavaScript/TypeScript: npm pack; Go and Rust: the Debian binary package that carries the sources
# (apt-get download, dpkg-deb -x; the root is the module under /usr/share/gocode/src or the crate
# under /usr/share/cargo/registry). Existing workspaces are kept (delete one to fetch it again).
#
#   bench/repo_fetch.sh [--split dev|heldout|all] [NAME ...]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/data/repo_bench
SPLIT=all
if [[ "${1:-}" == "--split" ]]; then SPLIT=$2; shift 2; fi
ONLY=" $* "
PY=${PYTHON:-$ROOT/.venv/bin/python}
mkdir -p "$OUT/_dl"
APT_UPDATED=0

apt_download() {  # NAME=VERSION into the current directory; one apt-get update when it is not known
  if ! apt-get download "$1" >/dev/null 2>&1; then
    if [[ $APT_UPDATED == 0 ]]; then apt-get update >/dev/null; APT_UPDATED=1; fi
    apt-get download "$1"
  fi
}

grep -v '^\s*#' bench/repo_packages.txt | grep -v '^\s*$' | while read -r split lang name version; do
  [[ $SPLIT != all && $SPLIT != "$split" ]] && continue
  [[ "$ONLY" != "  " && "$ONLY" != *" $name "* ]] && continue
  dest=$OUT/$split/$lang/$name
  mkdir -p "$OUT/$split/$lang"
  if [[ -d $dest ]]; then echo "have $name"; continue; fi
  tmp=$(mktemp -d "$OUT/_dl/$name.XXXX")
  case $lang in
    python)
      "$PY" -m pip download -q --no-deps --no-binary :all: "$name==$version" -d "$tmp/dl"
      mkdir "$tmp/x" && tar xzf "$tmp"/dl/*.tar.gz -C "$tmp/x"
      mv "$tmp"/x/* "$dest" ;;
    javascript|typescript)
      (cd "$tmp" && npm pack -q "$name@$version" >/dev/null)
      mkdir "$tmp/x" && tar xzf "$tmp"/*.tgz -C "$tmp/x"
      mv "$tmp/x/package" "$dest" ;;
    go|rust)
      (cd "$tmp" && apt_download "$name=$version")
      dpkg-deb -x "$tmp"/*.deb "$tmp/x"
      if [[ $lang == go ]]; then
        # the module root: the shallowest directory under gocode/src that holds .go files
        src=$(find "$tmp/x/usr/share/gocode/src" -name '*.go' -printf '%h\n' | awk '{print length, $0}' | sort -n | head -1 | cut -d' ' -f2-)
      else
        src=$(find "$tmp/x/usr/share/cargo/registry" -mindepth 1 -maxdepth 1 -type d | head -1)
      fi
      cp -rL "$src" "$dest" ;;
  esac
  rm -rf "$tmp"
  echo "fetched $name $version -> ${dest#$ROOT/}"
done
rm -rf "$OUT/_dl"
