#!/usr/bin/env bash
# Starts a Jingo instance for the realapps benchmark: $APP_DIR is a copy of
# the pristine tree (mutations already applied); the wiki is a fresh git
# repository seeded with the seed pages; one local account
# ($ADMIN_USER / $ADMIN_PASSWORD); served on 127.0.0.1:$PORT.
set -euo pipefail
: "${APP_DIR:?}" "${PORT:?}" "${ADMIN_USER:?}" "${ADMIN_PASSWORD:?}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jingo="$APP_DIR/node_modules/jingo"
wiki="$APP_DIR/wiki"
export GIT_AUTHOR_NAME="Wiki Admin" GIT_AUTHOR_EMAIL="$ADMIN_USER@example.test"
export GIT_COMMITTER_NAME="Wiki Admin" GIT_COMMITTER_EMAIL="$ADMIN_USER@example.test"
rm -rf "$wiki"
mkdir -p "$wiki"
cp -r "$here/seed/." "$wiki/"
git -C "$wiki" init -q
git -C "$wiki" add -A
git -C "$wiki" commit -q -m "Seed pages"
hash="$(node "$jingo/jingo" -# "$ADMIN_PASSWORD")"
cat > "$APP_DIR/config.yaml" <<YAML
application:
  title: Team Notes
  repository: '$wiki'
  secret: realapps-$PORT
  skipGitCheck: true
  loggingMode: 1
  pedanticMarkdown: true
  gfmBreaks: true
  allowHtml: false
authentication:
  google:
    enabled: false
  github:
    enabled: false
  ldap:
    enabled: false
  local:
    enabled: true
    accounts:
      - username: '$ADMIN_USER'
        passwordHash: '$hash'
        email: '$ADMIN_USER@example.test'
features:
  codemirror: true
  gravatar: false
server:
  hostname: 127.0.0.1
  port: $PORT
  localOnly: true
  baseUrl: 'http://127.0.0.1:$PORT'
authorization:
  anonRead: true
  validMatches: .+
  emptyEmailMatches: false
pages:
  index: Home
  itemsPerPage: 10
YAML
cd "$APP_DIR"
exec node "$jingo/jingo" -c "$APP_DIR/config.yaml"
