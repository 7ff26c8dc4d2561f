// The CDP door's confined methods with real Playwright (connectOverCDP, the http form):
// cookies (context.cookies / addCookies, and the Cookie / Set-Cookie headers Playwright reads
// from Network.*ExtraInfo) and downloads (page.waitForEvent('download') while the client asks
// Chrome to save into a directory of its own).
// Usage: node playwright-confined.js <door http url> <json args>
// args: { setCookies: URL that answers with Set-Cookie, again: a page of the same site,
//         site: its origin, refusedDomain: a domain the agent's sites refuse,
//         downloadPage: a page with a download link #dl, clientDir: a directory the client
//         names as its downloadPath, headers: extra headers for connectOverCDP }.
// Prints one JSON line of what it saw; every step's failure is reported, not thrown.
const { chromium } = require('playwright-core');

async function attempt(f) {
  try {
    const value = await f();
    return { ok: value === undefined ? true : value };
  } catch (e) {
    return { error: String((e && e.message) || e) };
  }
}

async function main() {
  const [url, argsJson] = process.argv.slice(2);
  const args = JSON.parse(argsJson || '{}');
  const out = {};
  const browser = await chromium.connectOverCDP(url, { timeout: 30000, headers: args.headers });
  const context = browser.contexts()[0];
  const page = await context.newPage();

  if (args.setCookies) {
    // The site sets a cookie: Set-Cookie reaches Playwright through responseReceivedExtraInfo.
    const response = await page.goto(args.setCookies);
    out.setCookieHeaders = (await response.headersArray())
      .filter((h) => h.name.toLowerCase() === 'set-cookie')
      .map((h) => h.value);
    out.addOwn = await attempt(() =>
      context.addCookies([{ name: 'mine', value: 'client-set-value', url: args.site }]));
    out.addRefused = await attempt(() =>
      context.addCookies([
        { name: 'also-mine', value: 'never-set', url: args.site },
        { name: 'refused', value: 'never-set', domain: args.refusedDomain, path: '/' },
      ]));
    // The next request carries every cookie of the site: its Cookie header, from
    // requestWillBeSentExtraInfo.
    const again = await page.goto(args.again);
    out.cookieHeader = (await again.request().allHeaders())['cookie'] || null;
    out.cookies = await context.cookies();
    const cdp = await context.newCDPSession(page);
    out.networkCookies = await attempt(async () => (await cdp.send('Network.getAllCookies')).cookies);
    out.deleteEverywhere = await attempt(() => cdp.send('Network.deleteCookies', { name: 'mine' }));
  }

  if (args.downloadPage) {
    const cdp = await browser.newBrowserCDPSession();
    out.behavior = await attempt(() =>
      cdp.send('Browser.setDownloadBehavior', {
        behavior: 'allow',
        downloadPath: args.clientDir,
        eventsEnabled: true,
      }));
    await page.goto(args.downloadPage);
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 15000 }),
      page.click('#dl'),
    ]);
    out.download = {
      suggestedFilename: download.suggestedFilename(),
      url: download.url(),
      failure: await download.failure(),
    };
    out.downloadSaveAs = await attempt(() => download.saveAs(args.clientDir + '/saved-by-client.bin'));
  }
  await browser.close();
  console.log(JSON.stringify(out));
}

main().catch((e) => {
  console.log(JSON.stringify({ failed: String((e && e.stack) || e) }));
  process.exit(1);
});
