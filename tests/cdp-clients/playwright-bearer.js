// Reaches a Porthole CDP door whose URL carries no token, with real Playwright
// (connectOverCDP with `headers`: the token goes as `Authorization: Bearer` on the http
// request and on the WebSocket), as a tool on an agent listener would.
// Usage: node playwright-bearer.js <door root, e.g. http://127.0.0.1:7879/cdp> <json args>
// args: { headers: {Authorization: 'Bearer …'}, page: URL to open }.
// Prints one JSON line of what it saw.
const { chromium } = require('playwright-core');

async function main() {
  const [url, argsJson] = process.argv.slice(2);
  const args = JSON.parse(argsJson || '{}');
  const out = {};
  const version = await (await fetch(url + '/json/version', { headers: args.headers })).json();
  out.wsEndpoint = version.webSocketDebuggerUrl;
  const browser = await chromium.connectOverCDP(url, { timeout: 30000, headers: args.headers });
  const page = await browser.contexts()[0].newPage();
  await page.goto(args.page);
  out.title = await page.title();
  await browser.close();
  console.log(JSON.stringify(out));
}

main().catch((e) => {
  console.log(JSON.stringify({ failed: String((e && e.stack) || e) }));
  process.exit(1);
});
