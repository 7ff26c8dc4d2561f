// Drives a Porthole CDP door with real Puppeteer (connect by its WebSocket URL, as
// chrome-devtools-mcp's --wsEndpoint does), as an agent's own script would.
// Usage: node puppeteer-drive.js <door ws url> <json args>; args: { page: URL to open }.
// An http:// endpoint is passed as `browserURL` instead (Puppeteer keeps its origin and asks
// /json/version there, as at `porthole-mcp cdp --listen`).
// Prints one JSON line of what it saw; then `browser.close()` (CDP Browser.close).
const puppeteer = require('puppeteer-core');

async function attempt(f) {
  try {
    return { ok: await f() };
  } catch (e) {
    return { error: String((e && e.message) || e) };
  }
}

async function main() {
  const [ws, argsJson] = process.argv.slice(2);
  const args = JSON.parse(argsJson || '{}');
  const out = {};
  const endpoint = ws.startsWith('http') ? { browserURL: ws } : { browserWSEndpoint: ws };
  const browser = await puppeteer.connect({ ...endpoint, defaultViewport: null, protocolTimeout: 30000 });
  out.pagesAtStart = (await browser.pages()).map((p) => p.url());
  const page = await browser.newPage();
  await page.goto(args.page);
  out.title = await page.title();
  await page.click('#button');
  out.clicked = await page.$eval('#result', (e) => e.textContent);
  out.pages = (await browser.pages()).map((p) => p.url());
  out.targets = browser.targets().map((t) => t.url());
  const cdp = await page.createCDPSession();
  out.refused = await attempt(() => cdp.send('Tracing.start', {}));
  await browser.close();
  console.log(JSON.stringify(out));
}

main().catch((e) => {
  console.log(JSON.stringify({ failed: String((e && e.stack) || e) }));
  process.exit(1);
});
