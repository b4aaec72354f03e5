#!/usr/bin/env bash
# Set-up of Jingo for the realapps benchmark: installs the jingo package
# from the npm registry (pinned) into $1/pristine, a tree that every
# instance is copied from and that mutations patch in their copies only.
set -euo pipefail
dest="${1:?usage: setup.sh CACHE_DIR}"
version=1.9.7
command -v node >/dev/null || { echo "jingo setup: node not found (Node.js 20)" >&2; exit 2; }
command -v npm >/dev/null || { echo "jingo setup: npm not found" >&2; exit 2; }
command -v git >/dev/null || { echo "jingo setup: git not found (Jingo keeps its pages in git)" >&2; exit 2; }
if [ -f "$dest/pristine/.realapps-version" ] && [ "$(cat "$dest/pristine/.realapps-version")" = "$version" ]; then
  exit 0
fi
mkdir -p "$dest"
tmp="$dest/pristine.tmp"
rm -rf "$tmp"
mkdir -p "$tmp"
printf '{"name":"realapps-jingo","private":true}\n' > "$tmp/package.json"
(cd "$tmp" && npm install --no-audit --no-fund --silent "jingo@$version" >/dev/null)
echo "$version" > "$tmp/.realapps-version"
rm -rf "$dest/pristine"
mv "$tmp" "$dest/pristine"
