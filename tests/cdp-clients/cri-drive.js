// chrome-remote-interface builds its API from the door's `json/protocol` (its default,
// `local: false`), lists the agent's tabs, opens one (`json/new`), loads a page in it and reads
// its title through the API it built; a method the door refuses is missing from that API, and
// sending it anyway gets the door's refusal.
// Usage: node cri-drive.js <door http url> <json args: { page: URL to load }>
// Prints one JSON line: { listed: {page: [...], target: [...], storageClears}, tabs: [urls],
// title, refusedInApi, refusal }; a failure prints { failed } and exits 1.
const CDP = require('chrome-remote-interface');

async function main() {
  const [doorUrl, argsJson] = process.argv.slice(2);
  const args = JSON.parse(argsJson);
  const door = new URL(doorUrl);
  // The door lives under a path: its HTTP addresses get it added; its WebSocket URLs have it.
  const options = {
    host: door.hostname,
    port: Number(door.port),
    alterPath: (path) => (path.startsWith('/json') ? door.pathname.replace(/\/$/, '') + path : path),
  };
  const protocol = await CDP.Protocol(options);
  const commands = (name) =>
    (protocol.domains.find((d) => d.domain === name) || { commands: [] }).commands.map((c) => c.name);
  const listed = {
    page: commands('Page'),
    target: commands('Target'),
    storageClears: commands('Storage').filter((c) => c.startsWith('clear')),
  };
  const tabs = (await CDP.List(options)).map((t) => t.url);
  const target = await CDP.New({ ...options, url: 'about:blank' });
  const client = await CDP({ ...options, target });
  await client.Page.enable();
  const loaded = client.Page.loadEventFired();
  await client.Page.navigate({ url: args.page });
  await loaded;
  const title = (await client.Runtime.evaluate({ expression: 'document.title' })).result.value;
  const refusedInApi = typeof (client.Storage && client.Storage.clearDataForOrigin);
  let refusal = null;
  try {
    await client.send('Storage.clearDataForOrigin', { origin: args.page, storageTypes: 'all' });
  } catch (e) {
    refusal = String((e && e.response && e.response.message) || e);
  }
  await client.close();
  await CDP.Close({ ...options, id: target.id });
  console.log(JSON.stringify({ listed, tabs, title, refusedInApi, refusal }));
}

main().catch((e) => {
  console.log(JSON.stringify({ failed: String((e && e.stack) || e) }));
  process.exit(1);
});
