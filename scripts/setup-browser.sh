#!/usr/bin/env bash
# Installs Debian's Chromium and its WebDriver server, which `tests/setup.rs` drives to click
# through `uplift setup` in a real headless browser. Idempotent; needs root (or sudo) and
# Debian's package archive.
set -euo pipefail
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends chromium chromium-driver >/dev/null
fi
chromedriver --version
