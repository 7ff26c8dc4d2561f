// Part of the pane world's script (`report` is in scope): the CSS cursor under the pointer
// (cursor.rs).
 let lastCursor = null;
 const hasText = (el) => Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim());
 const TEXT_INPUTS = /^(text|search|email|url|tel|password|number|date|time|datetime-local|month|week)$/;
 const cursorOf = (el) => {
   if (!el || el.nodeType !== 1) return 'default';
   const css = getComputedStyle(el).cursor || 'auto';
   if (css !== 'auto') return css.split(',').pop().trim();
   if (el.closest('a[href], area[href]')) return 'pointer';
   if (el.isContentEditable) return 'text';
   if (el.tagName === 'TEXTAREA') return el.disabled ? 'default' : 'text';
   if (el.tagName === 'INPUT') return TEXT_INPUTS.test(el.type) && !el.disabled ? 'text' : 'default';
   if (hasText(el) && !el.closest('button, select, label, [role=button]')) return 'text';
   return 'default';
 };
 // Read at once, never by a timer: a timer here would count as work the page scheduled and
 // make every agent click wait for extra frames (tools' settle, `page_scheduled`). Moves from
 // a pane come collapsed (one per input dispatch), so a style read per move is cheap.
 addEventListener('mousemove', (e) => {
   const cursor = cursorOf(e.composedPath()[0]);
   if (cursor !== lastCursor) { lastCursor = cursor; report({kind: 'cursor', cursor}); }
 }, true);
