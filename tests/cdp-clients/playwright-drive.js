// Drives a Porthole CDP door with real Playwright (connectOverCDP, the http form), as an
// agent's own script would. Usage: node playwright-drive.js <door http url> <json args>
// args: { page: URL to open, denied: URL the agent's sites refuse }.
// Prints one JSON line of what it saw; every step's failure is reported, not thrown.
const { chromium } = require('playwright-core');

async function attempt(f) {
  try {
    return { ok: await f() };
  } catch (e) {
    return { error: String((e && e.message) || e) };
  }
}

async function main() {
  const [url, argsJson] = process.argv.slice(2);
  const args = JSON.parse(argsJson || '{}');
  const out = {};
  const browser = await chromium.connectOverCDP(url, { timeout: 30000 });
  const context = browser.contexts()[0];
  out.pagesAtStart = context.pages().map((p) => p.url());
  const page = await context.newPage();
  await page.goto(args.page);
  out.title = await page.title();
  await page.click('#button');
  out.clicked = await page.textContent('#result');
  const [popup] = await Promise.all([context.waitForEvent('page', { timeout: 15000 }), page.click('#open')]);
  // Not waitForLoadState: the door does not hold a popup before its first load (Chrome's
  // waitForDebuggerOnStart), so a popup that loaded before Playwright attached never fires it.
  await popup.waitForFunction(() => document.readyState === 'complete', null, { timeout: 15000 });
  out.popup = { url: popup.url(), title: await popup.title() };
  out.pages = context.pages().map((p) => p.url());
  const cdp = await context.newCDPSession(page);
  out.refused = await attempt(() => cdp.send('Network.clearBrowserCookies'));
  out.denied = await attempt(() => page.goto(args.denied));
  out.urlAfterDenied = page.url();
  await browser.close();
  console.log(JSON.stringify(out));
}

main().catch((e) => {
  console.log(JSON.stringify({ failed: String((e && e.stack) || e) }));
  process.exit(1);
});
