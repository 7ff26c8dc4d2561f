// The `evaluate` tool's size guard (evaluate.rs): runs the agent's expression (`run`, an async
// arrow around it) in the page's main world and hands back a value no larger than `limit`
// bytes of JSON, or `{[over]: bytes}` (bytes counted when it stopped, at least `limit`).
//
// The page can have replaced any global or prototype method before this runs (JSON.stringify,
// Object.keys, Array.isArray, String.prototype.*), so nothing here calls one: only syntax
// (typeof, `in`, for-in, object spread, `+`, comparisons) and the own `length` and indexes of
// primitive strings, which no page can change. What comes back is not the page's value but a
// copy made of data only, read once: objects and arrays become null-prototype objects with
// plain properties (an array's carries `[tag]: length`, for the daemon to turn back into an
// array), so getters and proxies cannot answer one thing here and another when the copy is
// sent. Strings are measured by their UTF-8 and JSON escaping, char by char, only when their
// length alone does not settle it.
async (run, limit, tag, over) => {
  'use strict';
  const value = await run();
  // Bytes still allowed; below zero means over the cap.
  let room = limit;
  // Objects being copied (for cycles), a null-prototype stack: no page setter can see it.
  const path = { __proto__: null };
  let depth = 0;
  const MAX_DEPTH = 1000;
  const overCap = () => ({ __proto__: null, [over]: limit - room });

  // JSON bytes of string `s` (quotes and escapes included, UTF-8), counted until they pass
  // `room`: a length past it is over however the string is escaped.
  const stringBytes = (s) => {
    const n = s.length;
    if (n + 2 > room) return n + 2;
    let bytes = 2;
    for (let i = 0; i < n && bytes <= room; i++) {
      const c = s[i];
      if (c < ' ') bytes += 6;
      else if (c === '"' || c === '\\') bytes += 2;
      else if (c > '\u07ff') bytes += 3;
      else if (c > '\u007f') bytes += 2;
      else bytes += 1;
    }
    return bytes;
  };

  // Whether own key `k` is an array index below `n` (its canonical decimal form).
  const isIndex = (k, n) => {
    const i = +k;
    return '' + i === k && i >= 0 && i < n;
  };

  // A copy of `v` with its size taken off `room`; `undefined` for what JSON leaves out.
  const copy = (v) => {
    const type = typeof v;
    if (v === null) {
      room -= 4;
      return null;
    }
    if (type === 'string') {
      room -= stringBytes(v);
      return v;
    }
    if (type === 'number') {
      const finite = v === v && v !== 1 / 0 && v !== -1 / 0;
      room -= finite ? ('' + v).length : 4;
      return finite ? v : null;
    }
    if (type === 'boolean') {
      room -= v ? 4 : 5;
      return v;
    }
    if (type === 'bigint') {
      const text = '' + v + 'n';
      room -= text.length + 2;
      return text;
    }
    // Functions, symbols and undefined are left out, as JSON leaves them (a function at the
    // top is copied as an object: its own properties).
    if (type !== 'object' && !(type === 'function' && depth === 0)) return undefined;
    for (let i = 0; i < depth; i++) {
      if (path[i] === v) throw new TypeError('the result refers to itself (a cycle)');
    }
    if (depth >= MAX_DEPTH) throw new RangeError('the result is nested too deep');
    // An array-like whose length alone is past the room (two bytes an element at least) is
    // over without copying it (spreading a 50-million-element array would cost the page
    // gigabytes before anything is measured).
    const claimed = v.length;
    if (typeof claimed === 'number' && claimed * 2 > room) {
      room -= claimed * 2;
      return null;
    }
    path[depth] = v;
    depth++;
    // Its own enumerable properties, read once, into data we hold (no getter or proxy trap
    // runs after this line for this object).
    const own = { __proto__: null, ...v };
    const n = claimed;
    let array = typeof n === 'number' && n >= 0 && n % 1 === 0 && !('length' in own);
    if (array) {
      for (const k in own) {
        if (!isIndex(k, n)) {
          array = false;
          break;
        }
      }
    }
    const out = { __proto__: null };
    room -= 2;
    if (array) {
      out[tag] = n;
      // Each element takes at least two bytes ("0,"): a length past the room is over at once.
      if (n * 2 > room) room -= n * 2;
      for (let i = 0; i < n && room >= 0; i++) {
        const item = i in own ? copy(own[i]) : undefined;
        out[i] = item === undefined ? null : item;
        if (item === undefined) room -= 4;
        room -= 1;
      }
    } else {
      for (const k in own) {
        if (room < 0) break;
        const item = copy(own[k]);
        if (item === undefined) continue;
        out[k] = item;
        room -= stringBytes(k) + 2;
      }
    }
    depth--;
    path[depth] = undefined;
    return out;
  };

  if (typeof value !== 'object' && typeof value !== 'function') {
    if (typeof value === 'string') {
      room -= stringBytes(value);
      if (room < 0) return overCap();
    }
    // Numbers, booleans, undefined, symbols, bigints: as they are (the wire says what they are).
    return value;
  }
  if (value === null) return null;
  const out = copy(value);
  return room < 0 ? overCap() : out;
};
