#!/usr/bin/env bash
# The repository stands alone: no tracked file names a document or folder outside it, and a clone of
# the committed HEAD, in a folder with nothing beside it, installs with `npm ci`. Prints the clone's
# path on stdout (the caller removes its parent folder): `.ci/run` runs the README's `npm test` there,
# so a test that read anything outside the repository fails in CI.
# (The patterns are written with [.] so that this file does not name them itself.)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if git grep -n -I -e 'SPEC[.]md' -e 'FACTS[.]md' -e '[.][.]/shared' >&2; then
  echo "tracked files above name documents outside the repository: state the fact, or point at guides/protocol.md" >&2
  exit 1
fi
tmp="$(mktemp -d)"
git clone -q "$PWD" "$tmp/sdk"
cd "$tmp/sdk"
# The npm cache of this machine is reused, so the install is quick and reads the registry only for misses.
npm ci --no-audit --no-fund --prefer-offline --loglevel=error > /dev/null
echo "$tmp/sdk"
