#!/usr/bin/env bash
# Starts an Adminer instance for the realapps benchmark: a throwaway
# PostgreSQL cluster on 127.0.0.1:$DB_PORT (initdb in a temporary
# directory, as the postgres user when run as root) with one superuser
# role $ADMIN_USER / $ADMIN_PASSWORD and a seeded database "shop";
# Adminer's source tree in $APP_DIR (mutations already applied) served by
# PHP's built-in server on 127.0.0.1:$PORT, its login form fixed to that
# cluster by Adminer's own login-servers plugin. TERM stops both.
set -euo pipefail
: "${APP_DIR:?}" "${PORT:?}" "${DB_PORT:?}" "${ADMIN_USER:?}" "${ADMIN_PASSWORD:?}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pgbin="${AGENTGRAPH_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)}"
pgport="$DB_PORT"
pgdir="$(mktemp -d /tmp/realapps-pg.XXXXXX)"
as=()
if [ "$(id -u)" = 0 ]; then
  chown postgres "$pgdir"
  as=(runuser -u postgres --)
fi
php_pid=""
cleanup() {
  # PHP's built-in server forks its workers: end them with it.
  [ -n "$php_pid" ] && kill $(pgrep -P "$php_pid") "$php_pid" 2>/dev/null || true
  "${as[@]}" "$pgbin/pg_ctl" stop -m immediate -w -t 20 -D "$pgdir/data" >/dev/null 2>&1 || true
  rm -rf "$pgdir"
}
trap cleanup EXIT
trap 'exit 0' TERM INT
printf '%s\n' "$ADMIN_PASSWORD" > "$pgdir/pw"
chmod 644 "$pgdir/pw"
"${as[@]}" "$pgbin/initdb" -D "$pgdir/data" -U "$ADMIN_USER" --pwfile="$pgdir/pw" --auth-local=trust --auth-host=scram-sha-256 \
  --no-sync -E UTF8 --locale=C >/dev/null
"${as[@]}" "$pgbin/pg_ctl" start -w -t 30 -D "$pgdir/data" -l "$pgdir/log" \
  -o "-c listen_addresses=127.0.0.1 -p $pgport -k $pgdir -c fsync=off -c full_page_writes=off" >/dev/null
"${as[@]}" "$pgbin/psql" -q -h "$pgdir" -p "$pgport" -U "$ADMIN_USER" -d postgres -c "CREATE DATABASE shop" >/dev/null
"${as[@]}" "$pgbin/psql" -q -h "$pgdir" -p "$pgport" -U "$ADMIN_USER" -d shop -v ON_ERROR_STOP=1 >/dev/null < "$here/seed.sql"
cat > "$APP_DIR/realapps-conf.php" <<PHP
<?php
// realapps: Adminer's plugins, its login form fixed to the throwaway cluster.
function adminer_object() {
    include_once __DIR__ . "/plugins/plugin.php";
    include_once __DIR__ . "/plugins/login-servers.php";
    include_once __DIR__ . "/plugins/version-noverify.php";
    return new AdminerPlugin(array(
        new AdminerVersionNoverify(),
        new AdminerLoginServers(array('Shop database' => array('server' => '127.0.0.1:$pgport', 'driver' => 'pgsql'))),
    ));
}
PHP
# The site's root sends visitors to Adminer, as a deployment at a path does.
printf '<?php header("Location: /adminer/");\n' > "$APP_DIR/index.php"
cd "$APP_DIR"
PHP_CLI_SERVER_WORKERS=4 php -d display_errors=0 -d log_errors=1 -d error_log="$APP_DIR/php-error.log" \
  -d auto_prepend_file="$APP_DIR/realapps-conf.php" -S "127.0.0.1:$PORT" -t "$APP_DIR" &
php_pid=$!
wait "$php_pid"
