#!/usr/bin/env bash
# The whole test suite: installs Debian's Java packages for the offline Maven builds,
# bubblewrap for the build sandbox, GitHub's OpenAPI description and webhook examples for the
# fake GitHub and Chromium for the setup page's browser test (all idempotent), then runs unit,
# recipe and end-to-end tests (real Maven and javac).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-java-offline.sh
scripts/setup-sandbox.sh
scripts/setup-github-descriptions.sh
scripts/setup-browser.sh
cargo test --locked "$@"
