#!/usr/bin/env bash
# Packs the SDK as `npm publish` would from a fresh checkout (a clean clone of HEAD, where only the
# prepack build makes dist/), checks that the tarball holds every file package.json points at, and
# installs it into fresh consumer projects without the optional peers (msw, pg, @opentelemetry/api): publint, attw, an
# ESM import, a CJS require, a strict type-check under Node-only libs, DOM libs and skipLibCheck on
# and off, a paging run against the loopback fake tenant, "install msw" when msw is missing, and
# browser and server bundles.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git clone -q "$root" "$work/clone"
ln -s "$root/node_modules" "$work/clone/node_modules"
(cd "$work/clone" && npm pack --silent --pack-destination "$work" > "$work/pack.log")
mv "$work"/*.tgz "$work/sdk.tgz"
cd "$root"
# Every export and bin target is in the tarball: a pack without a build ships package.json alone.
mkdir "$work/unpacked" && tar -xzf "$work/sdk.tgz" -C "$work/unpacked"
node -e '
  const pkg = require(process.argv[1] + "/package.json");
  const targets = (v) => (typeof v === "string" ? [v] : Object.values(v).flatMap(targets));
  const fs = require("node:fs");
  const missing = [...targets(pkg.exports), ...Object.values(pkg.bin)]
    .filter((t) => !fs.existsSync(process.argv[1] + "/" + t));
  if (missing.length) {
    console.error("the tarball lacks files package.json points at (is dist/ built on pack?):\n  " + missing.join("\n  "));
    process.exit(1);
  }
' "$work/unpacked/package"
# The tarball ships the built code, its declarations and the package's documents: no sources, no maps.
unexpected="$(tar -tzf "$work/sdk.tgz" | grep -Ev '^package/(dist/[^/]+\.(js|cjs|d\.ts|d\.cts)|guides/[^/]+\.md|package\.json|README\.md|CHANGELOG\.md|LICENSE)$' || true)"
if [ -n "$unexpected" ]; then
  echo "the tarball ships files users do not need:" >&2
  echo "$unexpected" >&2
  exit 1
fi
echo "package size: $(du -k "$work/sdk.tgz" | cut -f1) KiB packed, $(tar -tzvf "$work/sdk.tgz" | awk '{ s += $3 } END { print int(s / 1024) }') KiB unpacked, $(tar -tzf "$work/sdk.tgz" | wc -l) files"
npx publint run "$work/unpacked/package" --pack false
npx attw "$work/sdk.tgz" --profile node16
mkdir "$work/consumer" && cd "$work/consumer"
echo '{ "name": "consumer", "private": true, "type": "module" }' > package.json
npm install --no-audit --no-fund --prefer-offline "$work/sdk.tgz" > /dev/null
for peer in msw pg @opentelemetry/api; do
  if [ -e "node_modules/$peer" ]; then echo "the consumer got $peer, an optional peer, without asking" >&2; exit 1; fi
done
cp "$root"/scripts/consumer/* .
check() { # resolution, lib, skipLibCheck
  local module; module=$([ "$1" = node16 ] && echo node16 || echo esnext)
  "$root/node_modules/.bin/tsc" --noEmit --strict --target es2022 --lib "$2" --types node \
    --typeRoots "$root/node_modules/@types" --module "$module" --moduleResolution "$1" \
    --skipLibCheck "$3" --allowImportingTsExtensions consumer.ts
  echo "type-check: $1 resolution, lib $2, skipLibCheck $3: ok"
}
check node16 es2024 false
check node16 es2024 true
check bundler es2024 false
check node16 es2024,dom false
check bundler es2024,dom true
node consumer.ts
node consumer.cjs
node missing-peer.mjs
node bins.mjs
# Responses are validated by closures built once per schema, never by generated code: no bundle may
# call new Function (a strict CSP refuses it, and it costs size).
for platform in browser node; do
  "$root/node_modules/.bin/esbuild" bundled.js --bundle --format=esm --platform="$platform" \
    --outfile="bundle-$platform.js" --log-level=error
  if grep -Eq '(new|=) *Function\b' "bundle-$platform.js"; then
    echo "the $platform bundle generates code with new Function" >&2
    exit 1
  fi
done
echo "bundles for browsers and servers: no code generation"
