#!/usr/bin/env bash
# Offline set-up for agentgraph's browser and database pieces. Idempotent: safe to run again.
#  - Debian chromium when no Chromium/Chrome is found, and chromium-headless-shell (headless runs)
#  - Debian postgresql when initdb/pg_ctl are not found (the Postgres back-ends' tests)
#  - playwright-core, @playwright/test, axe-core and gremlins.js into .tools/node (project-local)
#  - Go modules
# Prints the environment it settled on; scripts/env.sh exports the same.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

say() { printf 'setup: %s\n' "$*"; }
fail() { printf 'setup: error: %s\n' "$*" >&2; exit 2; }

find_chromium() {
  for c in "${AGENTGRAPH_CHROMIUM:-}" /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome /usr/bin/google-chrome-stable; do
    if [ -n "$c" ] && [ -x "$c" ]; then echo "$c"; return 0; fi
  done
  return 1
}

if ! chromium_path="$(find_chromium)"; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing Debian chromium (apt-get)"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    chromium_path="$(find_chromium)" || fail "chromium was installed but not found at /usr/bin/chromium"
  else
    fail "no Chromium found; install Debian's chromium package (apt-get install chromium) or set AGENTGRAPH_CHROMIUM"
  fi
fi
say "chromium: $chromium_path"
# Chromium's headless shell, from the same Debian source: what headless
# runs (the tests, CI, the explorer without --headed) launch when present,
# for about three quarters of the CPU. Optional: without it the full
# build runs headless.
if [ ! -x /usr/bin/chromium-headless-shell ] && [ -z "${AGENTGRAPH_CHROMIUM:-}" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing Debian chromium-headless-shell (apt-get)"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null \
      || say "chromium-headless-shell could not be installed; headless runs use $chromium_path"
  else
    say "chromium-headless-shell not installed (apt-get install chromium-headless-shell): headless runs use $chromium_path"
  fi
fi
if [ -x /usr/bin/chromium-headless-shell ]; then
  say "chromium headless shell: /usr/bin/chromium-headless-shell"
fi

# PostgreSQL for the Postgres checkpointer's and store's tests: Debian's
# postgresql package. The tests start a throwaway cluster themselves
# (internal/pgtest: initdb + pg_ctl in a temp dir on a loopback port, as an
# unprivileged user when run as root); the package's own service is not used.
find_pg_bin() {
  if [ -n "${AGENTGRAPH_PG_BIN:-}" ] && [ -x "$AGENTGRAPH_PG_BIN/initdb" ]; then echo "$AGENTGRAPH_PG_BIN"; return 0; fi
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
  return 1
}
if ! pg_bin="$(find_pg_bin)"; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing Debian postgresql (apt-get)"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    pg_bin="$(find_pg_bin)" || fail "postgresql was installed but initdb was not found under /usr/lib/postgresql/*/bin"
  else
    fail "PostgreSQL not found; install it (apt-get update && apt-get install -y postgresql) or set AGENTGRAPH_PG_BIN to the directory of initdb and pg_ctl"
  fi
fi
if [ "$(id -u)" = 0 ] && ! command -v runuser >/dev/null; then
  fail "runuser not found (util-linux): the tests need it to run initdb as an unprivileged user when run as root"
fi
say "postgresql: $pg_bin"

# PHP and Debian's dokuwiki for the realapps benchmark's smoke test
# (examples/explorer/realapps: DokuWiki served by PHP's built-in server
# from a copy of /usr/share/dokuwiki). php-cgi satisfies the php
# package's web-server dependency without Apache.
realapps_pkgs=(php-cli php-cgi php-xml php-mbstring dokuwiki)
realapps_missing=()
for p in "${realapps_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || realapps_missing+=("$p")
done
if [ "${#realapps_missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing Debian ${realapps_missing[*]} (apt-get; the realapps benchmark)"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${realapps_missing[@]}" >/dev/null
  else
    say "not installed: ${realapps_missing[*]} (apt-get install --no-install-recommends ${realapps_pkgs[*]}): the realapps smoke test needs them"
  fi
fi

command -v node >/dev/null || fail "node not found; install Node.js 20+ (Debian: apt-get install nodejs npm)"
command -v npm >/dev/null || fail "npm not found; install npm"

tools="$root/.tools/node"
want_core=1.64.1
have() { [ -f "$tools/node_modules/$1/package.json" ] && grep -q "\"version\": \"$2" "$tools/node_modules/$1/package.json"; }
if ! have playwright-core "$want_core" || ! have @playwright/test "$want_core" || ! have axe-core 4.; then
  say "installing playwright-core@$want_core @playwright/test@$want_core axe-core@4 into .tools/node"
  mkdir -p "$tools"
  [ -f "$tools/package.json" ] || printf '{"name":"agentgraph-tools","private":true}\n' > "$tools/package.json"
  (cd "$tools" && npm install --no-audit --no-fund --silent "playwright-core@$want_core" "@playwright/test@$want_core" "axe-core@4" >/dev/null) \
    || fail "npm install failed (is the npm registry reachable?)"
fi
say "playwright: $tools/node_modules/playwright-core/cli.js"

# gremlins.js for the explorer's side-by-side comparison
# (go run ./examples/explorer/gremlins/cmd/gremlins); pinned, injected as an init script.
want_gremlins=2.2.0
if ! have gremlins.js "$want_gremlins"; then
  say "installing gremlins.js@$want_gremlins into .tools/node"
  mkdir -p "$tools"
  [ -f "$tools/package.json" ] || printf '{"name":"agentgraph-tools","private":true}\n' > "$tools/package.json"
  (cd "$tools" && npm install --no-audit --no-fund --silent "gremlins.js@$want_gremlins" >/dev/null) \
    || fail "npm install gremlins.js failed (is the npm registry reachable?)"
fi
say "gremlins.js: $tools/node_modules/gremlins.js/dist/gremlins.min.js"

# Optional: @playwright/mcp for the snapshot-size comparison in
# `go test -bench SnapshotSize ./browser/` (kept apart: it bundles its own Playwright).
if [ "${AGENTGRAPH_WITH_MCP:-}" = 1 ]; then
  mcp="$root/.tools/mcp"
  if [ ! -f "$mcp/node_modules/@playwright/mcp/cli.js" ]; then
    say "installing @playwright/mcp@0.0.83 into .tools/mcp"
    mkdir -p "$mcp"
    [ -f "$mcp/package.json" ] || printf '{"name":"agentgraph-mcp","private":true}\n' > "$mcp/package.json"
    (cd "$mcp" && npm install --no-audit --no-fund --silent "@playwright/mcp@0.0.83" >/dev/null) \
      || fail "npm install @playwright/mcp failed (is the npm registry reachable?)"
  fi
  say "playwright mcp: $mcp/node_modules/@playwright/mcp/cli.js"
fi

if [ "${SKIP_GO_DOWNLOAD:-}" != 1 ]; then
  go mod download >/dev/null || fail "go mod download failed (is the Go module proxy reachable?)"
fi
say "ok"
