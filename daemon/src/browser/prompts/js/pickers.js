// Part of the pane world's script, after select-popup.js (whose selects, selectSeq, describe
// and PICKERS it uses): an <input list>'s suggestions; offers window.__portholeLists (pickers.rs).
 const lists = new Map(); let listChoosing = false;
 const listInput = (el) => el instanceof HTMLInputElement && !PICKERS.test(el.type) && el.list
   && !el.disabled && !el.readOnly ? el : null;
 const suggestions = (el) => {
   const q = el.value.toLowerCase(), out = [];
   for (const o of el.list ? el.list.querySelectorAll('option') : []) {
     if (o.disabled || !o.value) continue;
     const label = o.label && o.label !== o.value ? o.label : '';
     if (q && !o.value.toLowerCase().includes(q) && !label.toLowerCase().includes(q)) continue;
     out.push(label ? {label, value: o.value, disabled: false} : {label: o.value, value: o.value, disabled: false});
     if (out.length >= 200) break;
   }
   return out;
 };
 const closeList = (el) => {
   const st = lists.get(el); if (!st) return;
   lists.delete(el);
   if (selects.get(st.id) === el) { selects.delete(st.id); report({kind: 'select_closed', id: st.id}); }
 };
 const showList = (el) => {
   const shown = suggestions(el);
   let st = lists.get(el);
   if (!shown.length) { closeList(el); return; }
   if (!st) { st = {id: 's' + (++selectSeq), shown, active: -1}; lists.set(el, st); selects.set(st.id, el); }
   else { st.shown = shown; st.active = -1; }
   report(Object.assign({kind: 'select_open', id: st.id}, describe(el)));
 };
 const setValue = (el, value) => {
   if (el.value === value) return false;
   el.value = value;
   listChoosing = true;
   try {
     el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
     el.dispatchEvent(new Event('change', {bubbles: true}));
   } finally { listChoosing = false; }
   return true;
 };
 addEventListener('mousedown', (e) => { const el = e.button === 0 && listInput(e.composedPath()[0]); if (el) showList(el); }, true);
 // Typing (an InputEvent) narrows the list; Chrome's own pick of a suggestion (its invisible
 // popup takes ArrowUp/ArrowDown/Enter before the page sees them) fires a plain Event: closed.
 addEventListener('input', (e) => {
   const el = listInput(e.composedPath()[0]);
   if (!el || listChoosing) return;
   if (e instanceof InputEvent) showList(el); else closeList(el);
 }, true);
 addEventListener('focusout', (e) => { const el = listInput(e.composedPath()[0]); if (el) closeList(el); }, true);
 // Keys that reach the page (Chrome showed no suggestion popup of its own) move a highlight
 // the pane draws; Enter takes it.
 addEventListener('keydown', (e) => {
   const el = listInput(e.composedPath()[0]); if (!el) return;
   const st = lists.get(el);
   if (!st) { if (e.key === 'ArrowDown') showList(el); return; }
   if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
     e.preventDefault();
     const n = st.shown.length;
     st.active = e.key === 'ArrowDown' ? (st.active + 1) % n : (st.active <= 0 ? n - 1 : st.active - 1);
     report(Object.assign({kind: 'select_open', id: st.id}, describe(el)));
   } else if (e.key === 'Enter' && st.active >= 0) {
     e.preventDefault();
     const value = st.shown[st.active].value;
     closeList(el);
     setValue(el, value);
   } else if (e.key === 'Escape' || e.key === 'Tab') closeList(el);
 }, true);
 window.__portholeLists = {lists, setValue, closeList};
