// Throwaway: what Chromium pauses at Fetch (browser target, all types) — issue 52 step 1.
const http = require('http');
const { spawn } = require('child_process');
const fs = require('fs');
const WebSocket = require('ws');
const log = { A: [], B: [] };
function server(name, handler) {
  return new Promise(res => {
    const s = http.createServer((req, resp) => {
      let body = '';
      req.on('data', d => body += d);
      req.on('end', () => { log[name].push(`${req.method} ${req.url}${body ? ' body=' + body : ''}`); handler(req, resp); });
    });
    s.on('upgrade', (req, sock) => { log[name].push(`UPGRADE ${req.url}`); sock.destroy(); });
    s.listen(0, '127.0.0.1', () => res(s.address().port));
  });
}
let PA, PB;
const pages = {};
function serveA(req, resp) {
  const path = req.url.split('?')[0];
  const p = pages[path];
  if (p) { resp.writeHead(200, p.headers); resp.end(p.body()); return; }
  if (path === '/sse') { resp.writeHead(200, {'content-type': 'text/event-stream', 'access-control-allow-origin': '*'}); resp.end('data: x\n\n'); return; }
  resp.writeHead(200, {'content-type': 'text/plain', 'access-control-allow-origin': '*'}); resp.end('ok');
}
function serveB(req, resp) { serveA(req, resp); }
(async () => {
  PA = await server('A', serveA); PB = await server('B', serveB);
  const B = `http://127.0.0.1:${PB}`;
  pages['/all.html'] = { headers: { 'content-type': 'text/html', 'content-security-policy': `img-src 'self'; report-uri ${B}/csp-report` }, body: () => `
<img src="${B}/img.png"><img src="/blocked-by-csp.png" style="display:none">
<img src="http://localhost:${PA}/csp-violator.png">
<script src="${B}/script.js"></script>
<link rel=stylesheet href="${B}/style.css">
<style>@font-face{font-family:f;src:url(${B}/font.woff)} body{font-family:f}</style>
<link rel=prefetch href="${B}/prefetch">
<link rel=preconnect href="http://127.0.0.1:${PB}">
<iframe src="${B}/frame.html"></iframe>
<script>
fetch('${B}/fetch-get'); fetch('${B}/fetch-post',{method:'POST',body:'p'}); fetch('/options-body',{method:'OPTIONS',body:'secret'});
const x = new XMLHttpRequest(); x.open('GET','${B}/xhr-get'); x.send();
const y = new XMLHttpRequest(); y.open('POST','${B}/xhr-post'); y.send('q');
navigator.sendBeacon('${B}/beacon','b');
new EventSource('${B}/sse');
new WebSocket('ws://127.0.0.1:${PB}/ws');
new Worker('/dw.js');
new SharedWorker('/shw.js');
navigator.serviceWorker.register('/sw.js').then(r => navigator.serviceWorker.ready).then(() => { document.title = 'sw-ready'; });
</script>` };
  pages['/frame.html'] = { headers: {'content-type': 'text/html'}, body: () => 'frame' };
  pages['/dw.js'] = { headers: {'content-type': 'text/javascript'}, body: () => `fetch('/from-dedicated-worker',{method:'POST',body:'d'});` };
  pages['/shw.js'] = { headers: {'content-type': 'text/javascript'}, body: () => `fetch('/from-shared-worker',{method:'POST',body:'s'});` };
  pages['/sw.js'] = { headers: {'content-type': 'text/javascript'}, body: () => `
self.addEventListener('install', e => self.skipWaiting());
self.addEventListener('activate', e => e.waitUntil(clients.claim()));
fetch('/from-service-worker-script',{method:'POST',body:'sw'});
self.addEventListener('fetch', e => {
  const u = new URL(e.request.url);
  if (u.pathname === '/sw-synth') e.respondWith(new Response('<h1>synth from SW</h1>', {headers:{'content-type':'text/html'}}));
  else if (u.pathname === '/sw-proxy') e.respondWith(fetch(e.request));
});` };
  pages['/second.html'] = { headers: {'content-type': 'text/html'}, body: () => `<script>
fetch('/sw-synth'); fetch('/sw-proxy',{method:'POST',body:'proxied'}); fetch('/sw-none');
</script>` };
  const dir = fs.mkdtempSync(require('path').join(require('os').tmpdir(), 'fetch-pauses-'));
  const chrome = spawn('/usr/bin/chromium', ['--headless=new', '--no-sandbox', '--remote-debugging-port=0', `--user-data-dir=${dir}`,
    '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic', 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const wsUrl = await new Promise(res => { let buf = ''; chrome.stderr.on('data', d => { buf += d; const m = buf.match(/DevTools listening on (ws:\S+)/); if (m) res(m[1]); }); });
  const ws = new WebSocket(wsUrl, { perMessageDeflate: false });
  await new Promise(r => ws.on('open', r));
  let id = 0; const waiting = new Map(); const paused = [];
  const call = (method, params = {}, sessionId) => new Promise((res, rej) => { const i = ++id; waiting.set(i, { res, rej }); ws.send(JSON.stringify({ id: i, method, params, sessionId })); });
  const mode = process.argv[2] || 'plain';
  ws.on('message', m => {
    const msg = JSON.parse(m);
    if (msg.id) { const w = waiting.get(msg.id); waiting.delete(msg.id); msg.error ? w.rej(new Error(JSON.stringify(msg.error))) : w.res(msg.result); return; }
    if (msg.method === 'Fetch.requestPaused') {
      const p = msg.params; paused.push(`${p.resourceType} ${p.request.method} ${p.request.url.replace(/http:\/\/127.0.0.1:\d+/, m => m.endsWith(PB) ? 'B' : 'A')} frameId=${p.frameId === undefined ? '(none)' : p.frameId === '' ? '(empty)' : p.frameId.slice(0, 8)}${msg.sessionId ? ' session' : ''}`);
      call('Fetch.continueRequest', { requestId: p.requestId }, msg.sessionId).catch(() => {});
    }
  });
  await call('Fetch.enable', { patterns: [{ urlPattern: '*' }] });
  const { targetId } = await call('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await call('Target.attachToTarget', { targetId, flatten: true });
  await call('Page.enable', {}, sessionId);
  await call('Network.enable', {}, sessionId);
  if (mode === 'blocked') await call('Network.setBlockedURLs', { urls: [`*127.0.0.1:${PB}*`] }, sessionId);
  if (mode === 'blockedws') await call('Network.setBlockedURLs', { urls: ['ws://*', `ws://127.0.0.1:${PB}/ws`] }, sessionId);
  if (mode === 'patterns') { const r = await call('Network.setBlockedURLs', { urlPatterns: [{urlPattern: `ws://127.0.0.1:${PB}/*`, block: true}] }, sessionId).catch(e => e.message); console.log('urlPatterns:', JSON.stringify(r)); }
  if (mode === 'bypass') await call('Network.setBypassServiceWorker', { bypass: true }, sessionId);
  console.log('chromium', (await call('Browser.getVersion')).product, 'tab main frame', targetId.slice(0, 8));
  await call('Page.navigate', { url: `http://127.0.0.1:${PA}/all.html` }, sessionId);
  await new Promise(r => setTimeout(r, 4000));
  await call('Page.navigate', { url: `http://127.0.0.1:${PA}/second.html` }, sessionId);
  await new Promise(r => setTimeout(r, 2000));
  await call('Page.navigate', { url: `http://127.0.0.1:${PA}/sw-synth` }, sessionId);
  await new Promise(r => setTimeout(r, 1500));
  const t = await call('Runtime.evaluate', { expression: 'document.body.innerText' }, sessionId);
  console.log('navigation to /sw-synth shows:', t.result.value);
  (await call('Target.getTargets')).targetInfos.forEach(t => console.log('target', t.type, t.targetId.slice(0, 8), t.url));
  console.log('--- paused (mode ' + mode + ')'); paused.forEach(p => console.log(p));
  console.log('--- A received'); log.A.forEach(l => console.log(l));
  console.log('--- B received'); log.B.forEach(l => console.log(l));
  chrome.kill(); process.exit(0);
})();
