// Part of the pane world's script (`report` and `frameOffset` are in scope): the person's right
// click; offers window.__portholeMenu (context_menu.rs fills in its limits).
 const menuImages = new Map(); let menuSeq = 0;
 const selectedText = () => {
   const el = document.activeElement;
   if (el && (el.tagName === 'TEXTAREA' || el.tagName === 'INPUT') && typeof el.selectionStart === 'number'
       && el.selectionEnd > el.selectionStart) return el.value.substring(el.selectionStart, el.selectionEnd);
   return String(getSelection ? getSelection() : '');
 };
 addEventListener('contextmenu', (e) => {
   if (!e.isTrusted) return;
   const path = e.composedPath(), first = path[0], x = e.clientX, y = e.clientY;
   // After the page's own handlers: a page that draws its own menu keeps it.
   setTimeout(() => {
     if (e.defaultPrevented) return;
     const node = first && first.nodeType === 1 ? first : (first && first.parentElement);
     const link = node && node.closest ? node.closest('a[href], area[href]') : null;
     const img = path.find((n) => n instanceof HTMLImageElement) || null;
     const off = frameOffset();
     const out = {kind: 'context_menu', x: x + off.x, y: y + off.y};
     if (link) { out.link = link.href; out.link_text = (link.textContent || '').trim().slice(0, 200); }
     menuImages.clear();
     if (img && img.currentSrc && img.currentSrc.length <= MENU_MAX_ADDRESS) {
       const id = 'm' + (++menuSeq);
       menuImages.set(id, img);
       out.image = img.currentSrc; out.image_id = id;
     }
     const text = selectedText();
     if (text) out.selection = text.slice(0, MENU_MAX_SELECTION);
     report(out);
   }, 0);
 }, true);
 const toBase64 = (bytes) => {
   let s = '';
   for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
   return btoa(s);
 };
 window.__portholeMenu = {
   // The image of menu image `id` as PNG: {png, width, height}, {tainted: true} when the
   // canvas may not be read (cross-origin), or {error}. `bytes` {data, mime}: draw those
   // instead (the image's own bytes, fetched by the daemon).
   async png(id, bytes) {
     const img = menuImages.get(id);
     if (!img || !img.isConnected) return {error: 'the image is no longer in the page'};
     let source = img;
     if (bytes) {
       const bin = atob(bytes.data), buf = new Uint8Array(bin.length);
       for (let i = 0; i < bin.length; i++) buf[i] = bin.charCodeAt(i);
       try { source = await createImageBitmap(new Blob([buf], {type: bytes.mime || ''})); }
       catch (_) { return {error: 'Chrome cannot decode the image (' + (bytes.mime || 'unknown type') + ')'}; }
     } else if (!img.complete || !img.naturalWidth) return {error: 'the image has not loaded'};
     const w = source.naturalWidth || source.width, h = source.naturalHeight || source.height;
     if (!w || !h) return {error: 'the image has no size'};
     if (w * h > MENU_MAX_PIXELS) return {error: 'the image is ' + w + '×' + h + ' pixels; copy image takes at most ' + MENU_MAX_PIXELS + ' pixels'};
     const canvas = new OffscreenCanvas(w, h);
     canvas.getContext('2d').drawImage(source, 0, 0, w, h);
     let blob;
     try { blob = await canvas.convertToBlob({type: 'image/png'}); }
     catch (e) { if (e && e.name === 'SecurityError') return {tainted: true}; throw e; }
     return {png: toBase64(new Uint8Array(await blob.arrayBuffer())), width: w, height: h};
   },
 };
