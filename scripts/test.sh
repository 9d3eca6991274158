#!/usr/bin/env bash
# The whole test suite: installs Debian's Java packages for the offline Maven builds,
# bubblewrap for the build sandbox and Chromium for the setup page's browser test
# (all idempotent), then runs unit, recipe and end-to-end tests (real Maven and javac).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-java-offline.sh
scripts/setup-sandbox.sh
scripts/setup-browser.sh
cargo test --locked "$@"
