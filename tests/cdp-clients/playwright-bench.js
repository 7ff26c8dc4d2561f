// `porthole-bench cdp`: one Playwright script, timed step by step, on two browsers taking
// turns — a Porthole CDP door and a plain Chromium's own debugging port.
// Usage: node playwright-bench.js <door http url> <json args>
// args: { direct: the plain Chromium's WebSocket URL, page: the bench form's URL, runs: measured runs per browser (after one warm-up
// each), evaluations: how many `page.evaluate` calls a run makes, pauseMs: the pause before each measured run }.
// Prints one JSON line: { steps: [names], door: {connectMs, runs: [[ms per step]], shot},
// direct: {…} } (shot: the warm-up's screenshot, its size and bytes); a failure prints { failed } and exits 1.
const { chromium } = require('playwright-core');

const STEPS = ['newPage', 'goto', 'fill', 'click', 'read text', 'screenshot', 'evaluate', 'close'];

async function connect(url) {
  const started = performance.now();
  const browser = await chromium.connectOverCDP(url, { timeout: 60000 });
  return { browser, context: browser.contexts()[0], connectMs: performance.now() - started };
}

// One run of the script; the time of each step (ms) and the screenshot's size (bytes).
async function run(context, args) {
  const times = [];
  let since = performance.now();
  const lap = () => {
    const now = performance.now();
    times.push(now - since);
    since = now;
  };
  const page = await context.newPage();
  lap();
  await page.goto(args.page);
  lap();
  await page.fill('#name', 'hello');
  lap();
  await page.click('#change');
  lap();
  const status = await page.textContent('#status');
  if (status !== 'Changed!') throw new Error(`the click did not take: #status is ${status}`);
  lap();
  const shot = await page.screenshot();
  lap();
  let sum = 0;
  for (let i = 0; i < args.evaluations; i++) sum += await page.evaluate((n) => n + 1, i);
  if (sum !== (args.evaluations * (args.evaluations + 1)) / 2) throw new Error(`evaluate summed ${sum}`);
  lap();
  await page.close();
  lap();
  // A PNG's IHDR holds its width and height.
  return { times, shot: `${shot.readUInt32BE(16)}×${shot.readUInt32BE(20)}, ${shot.length} bytes` };
}

async function main() {
  const [doorUrl, argsJson] = process.argv.slice(2);
  const args = JSON.parse(argsJson);
  const door = await connect(doorUrl);
  const direct = await connect(args.direct);
  const sides = { door, direct };
  const out = { steps: STEPS };
  for (const [name, side] of Object.entries(sides)) {
    const warm = await run(side.context, args);
    out[name] = { connectMs: side.connectMs, runs: [], shot: warm.shot };
  }
  // Taking turns, each browser first every other round, so neither always runs on the heels
  // of the other.
  const pause = () => new Promise((resolve) => setTimeout(resolve, args.pauseMs || 0));
  for (let round = 0; round < args.runs; round++) {
    const order = round % 2 === 0 ? ['door', 'direct'] : ['direct', 'door'];
    for (const name of order) {
      await pause();
      out[name].runs.push((await run(sides[name].context, args)).times);
    }
  }
  console.log(JSON.stringify(out));
  // Leaves both browsers as they were: nothing is closed but the pages the script opened.
  process.exit(0);
}

main().catch((e) => {
  console.log(JSON.stringify({ failed: String((e && e.stack) || e) }));
  process.exit(1);
});
