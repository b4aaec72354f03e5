#!/usr/bin/env bash
# Starts a DokuWiki instance for the realapps benchmark: $APP_DIR is a copy
# of the pristine tree (mutations already applied), served by PHP's
# built-in server on 127.0.0.1:$PORT, with a fresh data directory, the
# seed pages and one admin account ($ADMIN_USER / $ADMIN_PASSWORD).
set -euo pipefail
: "${APP_DIR:?}" "${PORT:?}" "${ADMIN_USER:?}" "${ADMIN_PASSWORD:?}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
data="$APP_DIR/data"
mkdir -p "$data"/{attic,cache,index,locks,log,media,media_attic,media_meta,meta,pages,tmp}
cp -r "$here/seed/pages/." "$data/pages/"
cat > "$APP_DIR/conf/local.php" <<PHP
<?php
\$conf['title'] = 'Team Wiki';
\$conf['savedir'] = '$data';
\$conf['useacl'] = 1;
\$conf['authtype'] = 'authplain';
\$conf['superuser'] = '@admin';
\$conf['disableactions'] = 'register,resendpwd';
\$conf['updatecheck'] = 0;
\$conf['securecookie'] = 0;
\$conf['send404'] = 1;
PHP
hash="$(ADMIN_PASSWORD="$ADMIN_PASSWORD" php -r 'echo password_hash(getenv("ADMIN_PASSWORD"), PASSWORD_BCRYPT);')"
printf '# <?php exit()?>\n%s:%s:Wiki Admin:%s@example.test:admin,user\n' "$ADMIN_USER" "$hash" "$ADMIN_USER" > "$APP_DIR/conf/users.auth.php"
printf '# <?php exit()?>\n*               @ALL        1\n*               @user       16\n' > "$APP_DIR/conf/acl.auth.php"
: > "$APP_DIR/conf/plugins.local.php"
cd "$APP_DIR"
# Several workers so that one slow request does not hold up the others.
export PHP_CLI_SERVER_WORKERS=4
exec php -d display_errors=0 -d log_errors=1 -d error_log="$APP_DIR/php-error.log" -S "127.0.0.1:$PORT" -t "$APP_DIR"
