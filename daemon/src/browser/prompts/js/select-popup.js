// Part of the pane world's script (browser/view/js/pane-world.js, whose scope `report` is in):
// watches <select>s and pickers open and close; offers window.__portholeSelects (select_popup.rs).
 const selects = new Map(); const answering = new Map(); let selectSeq = 0;
 const PICKERS = /^(date|time|datetime-local|month|week|color)$/;
 const isOpen = (el) => { try { return el.matches(':open'); } catch (_) { return false; } };
 const frameOffset = () => {
   let x = 0, y = 0, w = window;
   try { while (w.frameElement) { const f = w.frameElement, r = f.getBoundingClientRect();
     x += r.left + f.clientLeft; y += r.top + f.clientTop; w = w.parent; } } catch (_) {}
   return {x, y};
 };
 const pickerOf = (el) => el instanceof HTMLSelectElement ? 'select'
   : el instanceof HTMLInputElement ? (PICKERS.test(el.type) ? el.type : (el.list ? 'datalist' : null)) : null;
 const describe = (el) => {
   const picker = pickerOf(el), options = [], selected = [];
   if (picker === 'select') Array.from(el.options).forEach((o, i) => {
     const g = o.parentElement && o.parentElement.tagName === 'OPTGROUP' ? o.parentElement : null;
     const option = {label: o.label || o.text, value: o.value, disabled: o.disabled || !!(g && g.disabled)};
     if (g) option.group = g.label;
     options.push(option);
     if (o.selected) selected.push(i);
   });
   const r = el.getBoundingClientRect(), off = frameOffset();
   const out = {picker, rect: {x: r.left + off.x, y: r.top + off.y, width: r.width, height: r.height},
           options, selected, multiple: picker === 'select' && el.multiple};
   if (picker === 'datalist') {
     const st = window.__portholeLists && window.__portholeLists.lists.get(el);
     if (st) { out.options = st.shown; if (st.active >= 0) out.selected = [st.active]; }
   }
   if (picker !== 'select') {
     out.value = el.value;
     for (const k of ['min', 'max', 'step']) { const v = el.getAttribute(k); if (v) out[k] = v; }
   }
   return out;
 };
 const followSelect = (id, el) => {
   const timer = setInterval(() => {
     if (!selects.has(id)) { clearInterval(timer); return; }
     if (!el.isConnected || !isOpen(el)) {
       clearInterval(timer); selects.delete(id); report({kind: 'select_closed', id});
     }
   }, 100);
 };
 const waitOpen = (el) => {
   for (const open of selects.values()) if (open === el) return;
   let tries = 0;
   const check = () => {
     for (const open of selects.values()) if (open === el) return;
     if (isOpen(el)) {
       const id = 's' + (++selectSeq);
       selects.set(id, el);
       report(Object.assign({kind: 'select_open', id}, describe(el)));
       followSelect(id, el);
     } else if (++tries < 20) setTimeout(check, 50);
   };
   setTimeout(check, 0);
 };
 const onSelectInput = (e) => {
   const el = e.composedPath()[0];
   const target = el instanceof HTMLSelectElement ? el
     : el instanceof HTMLInputElement && PICKERS.test(el.type) ? el
     : (el && el.closest ? el.closest('select') : null);
   if (target && !target.disabled && !target.readOnly) waitOpen(target);
 };
 addEventListener('mousedown', onSelectInput, true);
 addEventListener('keydown', onSelectInput, true);
 // Whether `value` is one the field takes: the browser's own parsing, and min/max.
 const valueRefusal = (el, value) => {
   const probe = document.createElement('input');
   probe.type = el.type;
   if (value && (probe.value = value, probe.value === '')) return value + ' is not a valid ' + el.type;
   for (const k of ['min', 'max']) { const v = el.getAttribute(k); if (v) probe.setAttribute(k, v); }
   if (probe.validity.rangeUnderflow) return value + ' is before the field\'s min ' + probe.min;
   if (probe.validity.rangeOverflow) return value + ' is after the field\'s max ' + probe.max;
   return null;
 };
 window.__portholeSelects = {
   take(id, answer) {
     const el = selects.get(id);
     if (!el || !el.isConnected) return {error: 'gone'};
     const picker = pickerOf(el);
     let value = null, indices = null;
     if (answer && picker === 'select') {
       indices = answer.indices;
       const n = el.options.length;
       if (!el.multiple && indices.length > 1) return {error: 'this select takes one option, not ' + indices.length};
       for (const i of indices) {
         if (!(i >= 0 && i < n)) return {error: 'there is no option ' + i + ' (the list has ' + n + ', counted from 0)'};
         const o = el.options[i], g = o.parentElement;
         if (o.disabled || (g && g.tagName === 'OPTGROUP' && g.disabled)) return {error: 'option ' + i + ' (' + o.label + ') is disabled'};
       }
     } else if (answer && picker === 'datalist') {
       if (answer.indices) {
         const st = window.__portholeLists.lists.get(el), shown = st ? st.shown : [], i = answer.indices[0];
         if (answer.indices.length > 1) return {error: 'a suggestion list takes one index'};
         if (!(i >= 0 && i < shown.length)) return {error: 'there is no suggestion ' + i + ' (the list has ' + shown.length + ', counted from 0)'};
         value = shown[i].value;
       } else value = answer.value;
     } else if (answer) {
       const refusal = valueRefusal(el, answer.value);
       if (refusal) return {error: refusal};
       value = answer.value;
     }
     selects.delete(id);
     if (picker === 'datalist') window.__portholeLists.lists.delete(el);
     answering.set(id, {el, picker, value, indices});
     return {open: isOpen(el)};
   },
   stillOpen(id) { const a = answering.get(id); return !!a && isOpen(a.el); },
   choose(id) {
     const a = answering.get(id); answering.delete(id);
     if (!a || (a.value === null && !a.indices)) return false;
     const el = a.el;
     if (a.picker !== 'select') return window.__portholeLists.setValue(el, a.value);
     const before = Array.from(el.options).map((o) => o.selected).join();
     if (el.multiple) Array.from(el.options).forEach((o, i) => { o.selected = a.indices.includes(i); });
     else el.selectedIndex = a.indices[0];
     if (Array.from(el.options).map((o) => o.selected).join() === before) return false;
     el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
     el.dispatchEvent(new Event('change', {bubbles: true}));
     return true;
   },
 };
