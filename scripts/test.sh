#!/usr/bin/env bash
# The whole test suite: installs Debian's Java packages for the offline Maven builds and
# bubblewrap for the build sandbox, and GitHub's OpenAPI description and webhook examples for the
# fake GitHub (all idempotent), then runs unit, recipe and end-to-end tests (real Maven and javac).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-java-offline.sh
scripts/setup-sandbox.sh
scripts/setup-github-descriptions.sh
cargo test --locked "$@"
