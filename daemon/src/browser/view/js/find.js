// Part of the pane world's script: find in page, window.__portholeFind(query, backwards)
// (find.rs).
 const FIND_MAX = 1000;
 let found = {query: '', ranges: [], index: -1};
 let findSheet = null;
 const findRanges = (query) => {
   const ranges = [], q = query.toLowerCase();
   const root = document.body || document.documentElement;
   if (!root) return ranges;
   const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {acceptNode: (n) => {
     const p = n.parentElement;
     if (!p || /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE)$/.test(p.tagName)) return NodeFilter.FILTER_REJECT;
     return p.getClientRects().length ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT;
   }});
   for (let n = walker.nextNode(); n && ranges.length < FIND_MAX; n = walker.nextNode()) {
     const text = n.data.toLowerCase();
     for (let i = text.indexOf(q); i >= 0 && ranges.length < FIND_MAX; i = text.indexOf(q, i + q.length)) {
       const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + q.length); ranges.push(r);
     }
   }
   return ranges;
 };
 const paintFound = () => {
   const all = typeof CSS !== 'undefined' && CSS.highlights && typeof Highlight === 'function';
   if (!found.ranges.length) {
     if (all) { CSS.highlights.delete('porthole-find'); CSS.highlights.delete('porthole-find-current'); }
     if (findSheet) { document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== findSheet); findSheet = null; }
     return;
   }
   const current = found.ranges[found.index];
   if (all) {
     if (!findSheet) {
       findSheet = new CSSStyleSheet();
       findSheet.replaceSync('::highlight(porthole-find){background:#fde047;color:inherit}::highlight(porthole-find-current){background:#f97316;color:#000}');
       document.adoptedStyleSheets = [...document.adoptedStyleSheets, findSheet];
     }
     CSS.highlights.set('porthole-find', new Highlight(...found.ranges));
     CSS.highlights.set('porthole-find-current', new Highlight(current));
   }
   const selection = getSelection();
   selection.removeAllRanges(); selection.addRange(current.cloneRange());
   const box = current.getBoundingClientRect();
   if (box.top < 0 || box.bottom > innerHeight || box.left < 0 || box.right > innerWidth) {
     scrollBy({left: box.left - innerWidth / 2, top: box.top - innerHeight / 2, behavior: 'instant'});
   }
 };
 window.__portholeFind = (query, backwards) => {
   if (!query) {
     found = {query: '', ranges: [], index: -1};
     paintFound();
     return {index: 0, count: 0};
   }
   if (query === found.query && found.ranges.length && found.ranges.every((r) => r.startContainer.isConnected)) {
     const n = found.ranges.length;
     found.index = (found.index + (backwards ? n - 1 : 1)) % n;
   } else {
     found = {query, ranges: findRanges(query), index: 0};
     if (backwards && found.ranges.length) found.index = found.ranges.length - 1;
   }
   paintFound();
   return {index: found.ranges.length ? found.index + 1 : 0, count: found.ranges.length};
 };
