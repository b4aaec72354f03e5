#!/usr/bin/env bash
# Set-up of Adminer for the realapps benchmark: installs Debian's adminer,
# PHP with its PostgreSQL driver and PostgreSQL (when missing, as root,
# idempotent) and makes the pristine copy $1/pristine of Adminer's source
# tree (/usr/share/adminer: adminer/ and the externals it loads), which
# every instance is copied from. The system copy is only read.
set -euo pipefail
dest="${1:?usage: setup.sh CACHE_DIR}"
pkgs=(php-cli php-cgi php-pgsql php-mbstring adminer postgresql)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "adminer setup: missing Debian packages: ${missing[*]} (run as root, or apt-get install them)" >&2
    exit 2
  fi
  apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
version="$(dpkg-query -W -f='${Version}' adminer)"
if [ -f "$dest/pristine/.realapps-version" ] && [ "$(cat "$dest/pristine/.realapps-version")" = "$version" ]; then
  exit 0
fi
mkdir -p "$dest"
tmp="$dest/pristine.tmp"
rm -rf "$tmp"
mkdir -p "$tmp"
cp -rL /usr/share/adminer/adminer /usr/share/adminer/externals /usr/share/adminer/plugins "$tmp/"
echo "$version" > "$tmp/.realapps-version"
rm -rf "$dest/pristine"
mv "$tmp" "$dest/pristine"
