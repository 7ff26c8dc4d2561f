// Answers every page load of its site with a page of its own, without the network.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(clients.claim()));
self.addEventListener('fetch', (e) => {
  if (e.request.mode !== 'navigate') return;
  e.respondWith(new Response('<title>from sw</title><p>from the service worker</p>', {
    headers: { 'content-type': 'text/html' },
  }));
});
