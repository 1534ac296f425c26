#!/usr/bin/env bash
# The repository stands alone: a clone of the committed HEAD, in a folder with nothing beside it, passes
# `npm ci && npm test`, and no tracked file names a document or folder outside the repository. The
# crash and lease-takeover tests, which CI has just run on its own clone and which mostly wait out
# processes and leases, are left out of this second run to keep CI short: they read nothing outside.
# (The patterns are written with [.] so that this file does not name them itself.)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if git grep -n -I -e 'SPEC[.]md' -e 'FACTS[.]md' -e '[.][.]/shared'; then
  echo "tracked files above name documents outside the repository: state the fact, or point at guides/protocol.md" >&2
  exit 1
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
git clone -q "$PWD" "$tmp/sdk"
cd "$tmp/sdk"
# The npm cache of this machine is reused, so the install is quick and reads the registry only for misses.
npm ci --no-audit --no-fund --prefer-offline --loglevel=error > /dev/null
npm test -- --exclude 'test/**/*-crash.test.ts' --exclude 'test/**/*-leases.test.ts'
echo "standalone clone: npm ci && npm test passed"
