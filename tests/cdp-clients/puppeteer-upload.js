// The CDP door's DOM.setFileInputFiles with real Puppeteer (connect by the door's WebSocket
// URL): ElementHandle.uploadFile sends Chrome the paths as they are, for the browser to read.
// The door takes only files the agent uploaded, by name, and never reads a path.
// (Playwright's connectOverCDP reads a path on the client's machine itself and sets the bytes
// by script, so it never sends DOM.setFileInputFiles.)
// Usage: node puppeteer-upload.js <door ws url> <json args>
// args: { page: the agent's open page with a file input #one, hostFile: a host path the agent
//         never uploaded, named: a path whose name the agent uploaded }.
// Prints one JSON line of what it saw; every step's failure is reported, not thrown.
const puppeteer = require('puppeteer-core');

async function attempt(f) {
  try {
    const value = await f();
    return { ok: value === undefined ? true : value };
  } catch (e) {
    return { error: String((e && e.message) || e) };
  }
}

async function main() {
  const [ws, argsJson] = process.argv.slice(2);
  const args = JSON.parse(argsJson || '{}');
  const out = {};
  const browser = await puppeteer.connect({ browserWSEndpoint: ws, defaultViewport: null, protocolTimeout: 30000 });
  const page = (await browser.pages()).find((p) => p.url() === args.page);
  if (!page) throw new Error('the agent page is not among ' + (await browser.pages()).map((p) => p.url()));
  const uploaded = () => page.evaluate(() => window.uploaded.one || null);
  const input = await page.$('#one');
  out.hostPath = await attempt(() => input.uploadFile(args.hostFile));
  out.afterHostPath = await uploaded();
  out.named = await attempt(() => input.uploadFile(args.named));
  await page.waitForFunction(() => window.uploaded.one, { timeout: 10000 });
  out.afterNamed = await uploaded();
  browser.disconnect();
  console.log(JSON.stringify(out));
}

main().catch((e) => {
  console.log(JSON.stringify({ failed: String((e && e.stack) || e) }));
  process.exit(1);
});
