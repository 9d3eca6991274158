#!/usr/bin/env bash
# The whole test suite: installs Debian's Java packages for the offline Maven builds and
# bubblewrap for the build sandbox
# (both idempotent), then runs unit, recipe and end-to-end tests (real Maven and javac).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-java-offline.sh
scripts/setup-sandbox.sh
cargo test --locked "$@"
