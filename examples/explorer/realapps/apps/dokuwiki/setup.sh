#!/usr/bin/env bash
# Set-up of DokuWiki for the realapps benchmark: installs Debian's dokuwiki
# and PHP (when missing, as root, idempotent) and makes the pristine copy
# $1/pristine that every instance is copied from. The installed system
# copy (/usr/share/dokuwiki) is only read, never changed.
set -euo pipefail
dest="${1:?usage: setup.sh CACHE_DIR}"
pkgs=(php-cli php-cgi php-xml php-mbstring dokuwiki)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "dokuwiki setup: missing Debian packages: ${missing[*]} (run as root, or apt-get install them)" >&2
    exit 2
  fi
  apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
  # php-cgi satisfies the php package's web-server SAPI dependency without Apache.
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
version="$(dpkg-query -W -f='${Version}' dokuwiki) $(cat /usr/share/dokuwiki/VERSION)"
if [ -f "$dest/pristine/.realapps-version" ] && [ "$(cat "$dest/pristine/.realapps-version")" = "$version" ]; then
  exit 0
fi
mkdir -p "$dest"
tmp="$dest/pristine.tmp"
rm -rf "$tmp"
# -L: the Debian tree links lib/plugins and lib/tpl into /var/lib/dokuwiki.
cp -rL /usr/share/dokuwiki "$tmp"
rm -f "$tmp/.htaccess" "$tmp/install.php"
mkdir -p "$tmp/conf"
for f in dokuwiki.php acronyms.conf entities.conf interwiki.conf license.php mediameta.php mime.conf \
  plugins.php plugins.required.php scheme.conf smileys.conf wordblock.conf manifest.json; do
  cp /etc/dokuwiki/$f "$tmp/conf/"
done
# Debian's preload points the configuration at /etc/dokuwiki; the copy keeps its own.
cat > "$tmp/inc/preload.php" <<'PHP'
<?php
// realapps: this copy's configuration is its own conf/ directory.
if (!defined('DOKU_CONF')) define('DOKU_CONF', dirname(__DIR__) . '/conf/');
PHP
echo "$version" > "$tmp/.realapps-version"
rm -rf "$dest/pristine"
mv "$tmp" "$dest/pristine"
