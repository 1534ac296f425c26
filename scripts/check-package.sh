#!/usr/bin/env bash
# Packs the SDK as npm would publish it, installs the tarball into a fresh consumer project, and
# checks it there: publint, attw, an ESM import, a CJS require, a strict type-check under node16
# and bundler resolution, a paging run against the loopback fake tenant, and browser and server
# bundles.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$root"
npx publint
npx attw --pack . --profile node16
tarball="$root/$(npm pack --silent --pack-destination "$work" | tail -n 1 | xargs basename)"
mv "$work/$(basename "$tarball")" "$work/sdk.tgz"
# The tarball ships the built code, its declarations and the package's documents: no sources, no maps.
unexpected="$(tar -tzf "$work/sdk.tgz" | grep -Ev '^package/(dist/[^/]+\.(js|cjs|d\.ts|d\.cts)|package\.json|README\.md|CHANGELOG\.md|LICENSE)$' || true)"
if [ -n "$unexpected" ]; then
  echo "the tarball ships files users do not need:" >&2
  echo "$unexpected" >&2
  exit 1
fi
echo "tarball: $(du -k "$work/sdk.tgz" | cut -f1) KiB packed, $(tar -tzvf "$work/sdk.tgz" | awk '{ s += $3 } END { print int(s / 1024) }') KiB unpacked"
mkdir "$work/consumer" && cd "$work/consumer"
echo '{ "name": "consumer", "private": true, "type": "module" }' > package.json
npm install --no-audit --no-fund --prefer-offline "$work/sdk.tgz" msw@^3 > /dev/null
cp "$root/scripts/consumer/consumer.ts" "$root/scripts/consumer/consumer.cjs" .
for resolution in node16 bundler; do
  module=$([ "$resolution" = node16 ] && echo node16 || echo esnext)
  "$root/node_modules/.bin/tsc" --noEmit --strict --target es2022 --lib es2023,dom --types node \
    --typeRoots "$root/node_modules/@types" --module "$module" --moduleResolution "$resolution" \
    --skipLibCheck false --allowImportingTsExtensions consumer.ts
  echo "type-check under $resolution: ok"
done
node consumer.ts
node consumer.cjs
# Responses are validated by closures built once per schema, never by generated code: no bundle may
# call new Function (a strict CSP refuses it, and it costs size).
cp "$root/scripts/consumer/bundled.js" .
for platform in browser node; do
  "$root/node_modules/.bin/esbuild" bundled.js --bundle --format=esm --platform="$platform" \
    --outfile="bundle-$platform.js" --log-level=error
  if grep -Eq '(new|=) *Function\b' "bundle-$platform.js"; then
    echo "the $platform bundle generates code with new Function" >&2
    exit 1
  fi
done
echo "bundles for browsers and servers: no code generation"
