#!/usr/bin/env bash
# Installs bubblewrap, the sandbox every build runs in (src/build/sandbox.rs), and socat,
# which relays an online build's proxy port (src/build/egress.rs). Idempotent; needs root
# (or sudo) and Debian's package archive.
set -euo pipefail
if ! command -v bwrap >/dev/null || ! command -v socat >/dev/null; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends bubblewrap socat >/dev/null
fi
bwrap --version
