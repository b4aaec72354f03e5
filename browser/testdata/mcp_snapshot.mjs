// Prints @playwright/mcp's browser_snapshot of a URL, driving the MCP server
// over stdio against the same Chromium. Used by BenchmarkSnapshotSize when
// AGENTGRAPH_PLAYWRIGHT_MCP names @playwright/mcp's cli.js.
// usage: node mcp_snapshot.mjs <path/to/@playwright/mcp/cli.js> <url>
import { spawn } from 'node:child_process';
const [cli, url] = process.argv.slice(2);
const p = spawn(process.execPath, [cli, '--headless', '--isolated', '--no-sandbox',
  '--executable-path', process.env.AGENTGRAPH_CHROMIUM || '/usr/bin/chromium'], { stdio: ['pipe', 'pipe', 'inherit'] });
let buf = '', id = 0;
const waiters = {};
p.stdout.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.id && waiters[m.id]) waiters[m.id](m);
  }
});
const call = (method, params) => new Promise((resolve) => {
  const i = ++id;
  waiters[i] = resolve;
  p.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: i, method, params }) + '\n');
});
await call('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'agentgraph-bench', version: '0' } });
p.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
await call('tools/call', { name: 'browser_navigate', arguments: { url } });
const r = await call('tools/call', { name: 'browser_snapshot', arguments: {} });
process.stdout.write(r.result.content.map((c) => c.text || '').join('\n'));
p.kill();
