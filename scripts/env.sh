# Source this file: exports what playwright-go needs to run offline against
# the project-local Playwright driver and Debian's Chromium (see scripts/setup.sh).
_ag_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PLAYWRIGHT_NODEJS_PATH="${PLAYWRIGHT_NODEJS_PATH:-$(command -v node)}"
export PLAYWRIGHT_CLI_PATH="${PLAYWRIGHT_CLI_PATH:-$_ag_root/.tools/node/node_modules/playwright-core/cli.js}"
# Chromium's headless shell (Debian's chromium-headless-shell) when it is
# installed: headless runs take about three quarters of the full build's
# CPU. A headed run (--headed) takes /usr/bin/chromium whatever this says.
if [ -z "${AGENTGRAPH_CHROMIUM:-}" ]; then
  if [ -x /usr/bin/chromium-headless-shell ]; then
    export AGENTGRAPH_CHROMIUM=/usr/bin/chromium-headless-shell
  else
    export AGENTGRAPH_CHROMIUM=/usr/bin/chromium
  fi
fi
# axe-core, for the accessibility checks of personas and the explorer.
if [ -z "${AGENTGRAPH_AXE_PATH:-}" ] && [ -f "$_ag_root/.tools/node/node_modules/axe-core/axe.min.js" ]; then
  export AGENTGRAPH_AXE_PATH="$_ag_root/.tools/node/node_modules/axe-core/axe.min.js"
fi
# gremlins.js, for the explorer's side-by-side comparison.
if [ -z "${AGENTGRAPH_GREMLINS_JS:-}" ] && [ -f "$_ag_root/.tools/node/node_modules/gremlins.js/dist/gremlins.min.js" ]; then
  export AGENTGRAPH_GREMLINS_JS="$_ag_root/.tools/node/node_modules/gremlins.js/dist/gremlins.min.js"
fi
if [ -z "${AGENTGRAPH_PLAYWRIGHT_MCP:-}" ] && [ -f "$_ag_root/.tools/mcp/node_modules/@playwright/mcp/cli.js" ]; then
  export AGENTGRAPH_PLAYWRIGHT_MCP="$_ag_root/.tools/mcp/node_modules/@playwright/mcp/cli.js"
fi
unset _ag_root
