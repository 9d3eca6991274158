#!/usr/bin/env bash
# Installs GitHub's published descriptions the fake GitHub is checked against: the REST API's
# OpenAPI description (@octokit/openapi) and real webhook deliveries (@octokit/webhooks-examples),
# at the versions pinned by tests/openapi/package-lock.json, into the cache directory the tests
# read (tests/support/openapi.rs). Idempotent: `npm ci` runs only when the pinned lock changed.
# Needs node and npm, and the npm registry.
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${UPLIFT_GITHUB_DESCRIPTIONS:-${XDG_CACHE_HOME:-$HOME/.cache}/uplift-github-descriptions}"
mkdir -p "$cache"
if ! cmp -s tests/openapi/package-lock.json "$cache/package-lock.json" \
  || [ ! -f "$cache/node_modules/.package-lock.json" ]; then
  cp tests/openapi/package.json tests/openapi/package-lock.json "$cache/"
  (cd "$cache" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null)
fi
echo "GitHub descriptions in $cache"
