#!/usr/bin/env bash
# The runtime matrix: the built package's smoke test (search pages, rule lookup, HMAC and JWT
# signing, verify) on Node 22, Node 24, Bun and Deno, and in headless Chromium. The runtimes come
# from the npm registry into .runtimes/; Chromium from Debian's packages when it is missing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runtimes="$root/.runtimes"
cd "$root"
if [ ! -x "$runtimes/node_modules/.bin/deno" ]; then
  mkdir -p "$runtimes"
  echo '{ "name": "runtimes", "private": true }' > "$runtimes/package.json"
  (cd "$runtimes" && npm install --no-audit --no-fund node@22 bun@1 deno@2 > /dev/null)
fi
bin="$runtimes/node_modules/.bin"
"$bin/node" scripts/smoke/server-runtime.mjs
"$root/node_modules/.bin/node" scripts/smoke/server-runtime.mjs
# Bun applies tsconfig.json "paths" at run time, which point the package at its sources: give it none.
echo '{}' > "$runtimes/tsconfig.json"
"$bin/bun" --tsconfig-override="$runtimes/tsconfig.json" scripts/smoke/server-runtime.mjs
"$bin/deno" run --allow-all scripts/smoke/server-runtime.mjs
if [ ! -x /usr/bin/chromium ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium > /dev/null
fi
"$root/node_modules/.bin/node" scripts/smoke/browser.mjs
