#!/usr/bin/env bash
# Installs what the VS Code end-to-end test needs, idempotently, and caches it outside the repo so
# that fresh clones reuse it:
#   * Debian packages: build tools and headers for code-server's native modules, ripgrep, chromium,
#     and fonts so that CJK and emoji render in the screenshots (apt-get only when one is missing);
#   * code-server (= VS Code 1.100.3, the last release that runs on Node 20) from npm;
#   * playwright-core (drives /usr/bin/chromium; it never downloads browsers).
# Cache: ${REDRAFT_EDITORS_CACHE:-$HOME/.cache/redraft-editors}. A step whose stamp file exists is
# skipped; delete the cache directory to start over. Prints how long each step took.
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
PLAYWRIGHT_VERSION=1.65.1
RIPGREP_CACHE_VERSION=1.15.11   # @vscode/ripgrep used by code-server 4.100.3
CACHE="${REDRAFT_EDITORS_CACHE:-$HOME/.cache/redraft-editors}"
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
PW_DIR="$CACHE/playwright-core-$PLAYWRIGHT_VERSION"
APT_PACKAGES=(build-essential pkg-config python3 libkrb5-dev libsecret-1-dev libxkbfile-dev libx11-dev
              ripgrep chromium fonts-wqy-zenhei fonts-noto-color-emoji)

step() {  # step NAME COMMAND...: run and time one step
  local name=$1 start=$SECONDS; shift
  echo "== $name"
  "$@"
  echo "== $name: $((SECONDS - start)) s"
}

apt_packages() {
  local missing=() p
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then echo "all Debian packages present"; return; fi
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "missing Debian packages (${missing[*]}); run as root" >&2; exit 1; }
    sudo=(sudo)
  fi
  echo "installing: ${missing[*]}"
  if ! compgen -G "/var/lib/apt/lists/*Packages*" >/dev/null; then "${sudo[@]}" apt-get update; fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
}

code_server() {
  if [ -f "$CS_DIR/.installed" ]; then echo "cached: $CS_DIR"; return; fi
  rm -rf "$CS_DIR" && mkdir -p "$CS_DIR" && echo '{"private": true}' >"$CS_DIR/package.json"
  # @vscode/ripgrep's postinstall downloads rg from GitHub (unreachable) unless its cache has the
  # archive; seed the cache with Debian's rg (13.0.0, the version it wants).
  local rg_cache="${TMPDIR:-/tmp}/vscode-ripgrep-cache-$RIPGREP_CACHE_VERSION"
  mkdir -p "$rg_cache"
  tar czf "$rg_cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$(dirname "$(command -v rg)")" rg
  # node-pty's install script runs `npx node-gyp`, which needs yes=true; native builds use the
  # system Node headers rather than downloading them.
  local nodedir=()
  [ -f /usr/include/node/node.h ] && nodedir=(npm_config_nodedir=/usr)
  (cd "$CS_DIR" && env npm_config_yes=true "${nodedir[@]}" \
     npm install --no-package-lock --unsafe-perm --no-fund --no-audit \
     "code-server@$CODE_SERVER_VERSION" >install.log 2>&1) \
    || { tail -40 "$CS_DIR/install.log" >&2; echo "code-server install failed (log: $CS_DIR/install.log)" >&2; exit 1; }
  "$CS_DIR/node_modules/.bin/code-server" --config "$CS_DIR/config.yaml" --version  # --config: keep ~/.config clean
  touch "$CS_DIR/.installed"
}

playwright() {
  if [ -f "$PW_DIR/.installed" ]; then echo "cached: $PW_DIR"; return; fi
  rm -rf "$PW_DIR" && mkdir -p "$PW_DIR" && echo '{"private": true}' >"$PW_DIR/package.json"
  (cd "$PW_DIR" && npm install --no-package-lock --no-fund --no-audit "playwright-core@$PLAYWRIGHT_VERSION")
  touch "$PW_DIR/.installed"
}

total=$SECONDS
step "Debian packages" apt_packages
step "code-server $CODE_SERVER_VERSION" code_server
step "playwright-core $PLAYWRIGHT_VERSION" playwright
echo "== setup done in $((SECONDS - total)) s; cache: $CACHE"
