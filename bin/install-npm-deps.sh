#!/usr/bin/env bash
# Installs the npm packages the integration tests use into <repo>/.tools/npm (node_modules inside it) and
# prints that directory.
#
# The packages are exactly those of tern-it/src/test/js/package-lock.json (npm ci), installed with the Node 22
# of bin/install-node.sh. Nothing changed since the last install: prints the directory and does nothing else.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source_dir="$root/tern-it/src/test/js"
dest="$root/.tools/npm"
stamp_file="$dest/.installed"

node_bin=$("$root/bin/install-node.sh")

# What the install depends on: the manifest, the lock file and the Node version.
stamp=$("$node_bin" -e 'const c = require("crypto"), fs = require("fs"), h = c.createHash("sha256");
  for (const f of process.argv.slice(1)) h.update(fs.readFileSync(f));
  h.update(process.version);
  process.stdout.write(h.digest("hex"));' "$source_dir/package.json" "$source_dir/package-lock.json")

installed() {
  [ -d "$dest/node_modules" ] && [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ]
}

if installed; then
  echo "$dest"
  exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
  echo "install-npm-deps.sh: npm is needed to install the test packages" >&2
  exit 1
fi

mkdir -p "$dest"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$root/.tools/.install-npm-deps.lock"
  flock 9
  if installed; then
    echo "$dest"
    exit 0
  fi
fi

rm -f "$stamp_file"
cp "$source_dir/package.json" "$source_dir/package-lock.json" "$dest/"
echo "install-npm-deps.sh: npm ci in $dest" >&2
# npm's own launcher runs on the first node on PATH: put Node 22 there so installs and scripts use it.
(cd "$dest" && PATH="$(dirname "$node_bin"):$PATH" npm ci --no-audit --no-fund --loglevel=error >&2)
echo "$stamp" >"$stamp_file"
echo "$dest"
