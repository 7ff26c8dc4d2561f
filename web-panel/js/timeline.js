// @ts-check
/**
 * timeline.js — the channel's timeline as a strip over the bottom of <porthole-pane>'s view,
 * opened from the status line (so a closed strip takes no room from the page) (DESIGN.md §17):
 * one mark per event (who did what: the person, each agent, the page), filtered by actor,
 * scrubbed with a slider or a click on a mark to show the event's line and the frame kept with
 * it, and an export of the whole span as one HTML file. Events come from
 * `GET /api/browser/channels/{channel}/timeline` (paged, owner token in a header, never the URL)
 * when the pane connects, then live as `timeline_event` messages. Frames and the export are
 * fetched with the token and shown through blob URLs. Owns only its own section;
 * porthole-pane.js feeds it messages and says where the session is.
 */

/**
 * @typedef {Object} TimelineActor
 * @property {string} kind        agent | human | page
 * @property {string} [agent_id]
 * @property {string} [name]
 *
 * @typedef {Object} TimelineEvent
 * @property {number} seq
 * @property {string} at
 * @property {string} kind
 * @property {TimelineActor} actor
 * @property {string} [url]
 * @property {string} [frame_id]
 * @property {string} [tool]
 * @property {boolean} [ok]
 * @property {number} [ms]
 * @property {string} [summary]
 * @property {string} [action]
 */

/** The most events the strip keeps (the oldest go first). */
const MAX_EVENTS = 2000;
/** Pages of 1000 read when the pane connects (the newest 2000 are kept). */
const MAX_PAGES = 20;

/** @param {TimelineActor} actor */
function actorKey(actor) {
  if (!actor) return 'page';
  if (actor.kind === 'agent') return `agent:${actor.agent_id || actor.name || '?'}`;
  return actor.kind;
}

/** @param {TimelineActor} actor */
function actorLabel(actor) {
  if (!actor) return 'Page';
  if (actor.kind === 'agent') return actor.name || actor.agent_id || 'Agent';
  if (actor.kind === 'human') return 'You';
  return 'Page';
}

/** @param {string} key */
function actorColour(key) {
  if (key === 'human') return '#1a73e8';
  if (key === 'page') return '#9aa0a6';
  let hash = 0;
  for (const c of key) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  return `hsl(${hash % 360} 65% 45%)`;
}

/** @param {TimelineEvent} e */
function describe(e) {
  const time = (e.at || '').replace(/^.*T/, '').replace(/Z$/, '');
  const what = e.kind === 'tool' ? e.tool : e.action ? `${e.kind} · ${e.action}` : e.kind;
  const result = e.kind === 'tool' ? ` · ${e.ok ? 'ok' : 'failed'}${e.ms != null ? ` · ${e.ms} ms` : ''}` : '';
  const summary = e.summary ? ` — ${e.summary}` : e.url ? ` — ${e.url}` : '';
  return `${time} · ${actorLabel(e.actor)} · ${what}${result}${summary}`;
}

export class TimelineStrip {
  /**
   * @param {HTMLElement} section  the pane's timeline section (hidden until opened)
   * @param {HTMLButtonElement} toggle  the status line's button that opens and closes it
   * @param {() => ({api: string, token: string, channel: string} | null)} session
   */
  constructor(section, toggle, session) {
    this.section = section;
    this.toggle = toggle;
    this.session = session;
    /** @type {TimelineEvent[]} */
    this.events = [];
    /** @type {string} `all`, or an actor key (`human`, `page`, `agent:<id>`) */
    this.filter = 'all';
    /** @type {number | null} */
    this.selected = null;
    /** @type {string | null} the frame shown (its id) */
    this.frameShown = null;
    /** @type {string | null} */
    this.frameUrl = null;
    /** Bumped on every reload, so an old load's answers are dropped. */
    this.generation = 0;
    this.lastError = '';

    section.innerHTML = `
      <div class="timeline-bar">
        <select class="timeline-filter" aria-label="Whose events"><option value="all">Everyone</option></select>
        <input class="timeline-scrub" type="range" min="0" max="0" value="0" aria-label="Scrub the timeline">
        <button class="timeline-export btn small" type="button" title="Save the timeline as one HTML file that plays it back">Export</button>
        <button class="timeline-close icon-btn" type="button" title="Close the timeline" aria-label="Close the timeline">×</button>
      </div>
      <div class="timeline-marks" role="listbox" aria-label="Timeline events"></div>
      <div class="timeline-detail">
        <img class="timeline-frame" alt="The tab at this event" hidden>
        <p class="timeline-line"></p>
      </div>`;
    const q = (/** @type {string} */ s) => /** @type {HTMLElement} */ (section.querySelector(s));
    this.filterBox = /** @type {HTMLSelectElement} */ (q('.timeline-filter'));
    this.scrub = /** @type {HTMLInputElement} */ (q('.timeline-scrub'));
    this.marks = q('.timeline-marks');
    this.img = /** @type {HTMLImageElement} */ (q('.timeline-frame'));
    this.line = q('.timeline-line');
    this.toggle.addEventListener('click', () => this.setOpen(this.section.hidden));
    q('.timeline-close').addEventListener('click', () => this.setOpen(false));
    this.filterBox.addEventListener('change', () => this.setFilter(this.filterBox.value));
    this.scrub.addEventListener('input', () => {
      const shown = this.visible();
      const e = shown[Number(this.scrub.value)];
      if (e) this.select(e.seq);
    });
    q('.timeline-export').addEventListener('click', () => { void this.exportHtml(); });
    this.marks.addEventListener('click', (ev) => {
      const mark = /** @type {HTMLElement} */ (ev.target).closest('[data-seq]');
      if (mark) this.select(Number(/** @type {HTMLElement} */ (mark).dataset.seq));
    });
  }

  /** @param {boolean} open */
  setOpen(open) {
    this.section.hidden = !open;
    this.toggle.setAttribute('aria-expanded', String(open));
    if (open && this.selected == null) {
      const last = this.visible().at(-1);
      if (last) this.select(last.seq);
    }
  }

  /** Plain data for tests. */
  snapshot() {
    return {
      events: this.events.length,
      shown: this.visible().length,
      filter: this.filter,
      actors: [...this.filterBox.options].map((o) => o.value),
      selected: this.selected,
      frameShown: this.frameShown,
      line: this.line.textContent || '',
      open: !this.section.hidden,
      lastError: this.lastError,
    };
  }

  /** Forget everything (no session). */
  clear() {
    this.generation += 1;
    this.events = [];
    this.selected = null;
    this.showFrame(null);
    this.line.textContent = '';
    this.render();
  }

  /** Reads the channel's timeline from the start (the pane connected or reconnected). */
  async reload() {
    const s = this.session();
    this.generation += 1;
    const generation = this.generation;
    if (!s) return;
    /** @type {TimelineEvent[]} */
    let events = [];
    let since = 0;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const url = `${s.api}/api/browser/channels/${encodeURIComponent(s.channel)}/timeline?since_seq=${since}&limit=1000`;
      let body;
      try {
        const res = await fetch(url, { headers: { Authorization: `Bearer ${s.token}` }, cache: 'no-store' });
        if (res.status === 404) break; // a channel with no timeline yet
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        body = await res.json();
      } catch (err) {
        this.lastError = String(err);
        break;
      }
      if (generation !== this.generation) return;
      const got = /** @type {TimelineEvent[]} */ (body.events || []);
      events = events.concat(got).slice(-MAX_EVENTS);
      if (got.length < 1000 || body.next_seq <= since) break;
      since = body.next_seq;
    }
    if (generation !== this.generation) return;
    // Live events that arrived while reading are kept too.
    const known = new Set(events.map((e) => e.seq));
    for (const e of this.events) if (!known.has(e.seq)) events.push(e);
    events.sort((a, b) => a.seq - b.seq);
    this.events = events.slice(-MAX_EVENTS);
    this.render();
  }

  /**
   * A `timeline_event` message.
   * @param {TimelineEvent} event
   */
  add(event) {
    if (typeof event.seq !== 'number') return;
    if (this.events.length && this.events[this.events.length - 1].seq >= event.seq) {
      if (this.events.some((e) => e.seq === event.seq)) return;
    }
    const { type: _type, ...rest } = /** @type {any} */ (event);
    this.events.push(rest);
    this.events.sort((a, b) => a.seq - b.seq);
    if (this.events.length > MAX_EVENTS) this.events.splice(0, this.events.length - MAX_EVENTS);
    this.render();
  }

  /** @param {string} filter `all` or an actor key */
  setFilter(filter) {
    this.filter = filter;
    this.filterBox.value = filter;
    const shown = this.visible();
    if (this.selected != null && !shown.some((e) => e.seq === this.selected)) {
      this.selected = null;
      this.showFrame(null);
      this.line.textContent = '';
    }
    this.render();
  }

  /** The events the filter lets through, in order. */
  visible() {
    return this.filter === 'all' ? this.events : this.events.filter((e) => actorKey(e.actor) === this.filter);
  }

  /**
   * Shows event `seq`: its line, and its frame (or the nearest earlier frame of the tab).
   * @param {number} seq
   */
  select(seq) {
    const shown = this.visible();
    const index = shown.findIndex((e) => e.seq === seq);
    if (index < 0) return;
    this.selected = seq;
    const event = shown[index];
    this.line.textContent = describe(event);
    this.scrub.value = String(index);
    let frame = null;
    for (let i = index; i >= 0 && !frame; i -= 1) frame = shown[i].frame_id || null;
    void this.loadFrame(frame);
    for (const mark of this.marks.querySelectorAll('[data-seq]')) {
      mark.setAttribute('aria-selected', String(Number(/** @type {HTMLElement} */ (mark).dataset.seq) === seq));
    }
  }

  /**
   * Fetches frame `id` with the token and shows it.
   * @param {string | null} id
   */
  async loadFrame(id) {
    if (id === this.frameShown) return;
    const s = this.session();
    if (!id || !s) {
      this.showFrame(null);
      return;
    }
    const url = `${s.api}/api/browser/channels/${encodeURIComponent(s.channel)}/timeline/frames/${encodeURIComponent(id)}`;
    try {
      const res = await fetch(url, { headers: { Authorization: `Bearer ${s.token}` } });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const blob = await res.blob();
      this.showFrame(id, URL.createObjectURL(blob));
    } catch (err) {
      this.lastError = String(err);
      this.showFrame(null);
    }
  }

  /**
   * @param {string | null} id
   * @param {string} [url]
   */
  showFrame(id, url) {
    if (this.frameUrl) URL.revokeObjectURL(this.frameUrl);
    this.frameUrl = url || null;
    this.frameShown = url ? id : null;
    this.img.hidden = !url;
    if (url) this.img.src = url;
    else this.img.removeAttribute('src');
  }

  /**
   * Saves the whole timeline as one HTML file that plays it back.
   * @returns {Promise<boolean>}
   */
  async exportHtml() {
    const s = this.session();
    if (!s) return false;
    const url = `${s.api}/api/browser/channels/${encodeURIComponent(s.channel)}/timeline/export`;
    try {
      const res = await fetch(url, { headers: { Authorization: `Bearer ${s.token}` }, cache: 'no-store' });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const href = URL.createObjectURL(await res.blob());
      const a = document.createElement('a');
      a.href = href;
      a.download = `timeline-${s.channel}.html`;
      this.section.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(href), 60_000);
      return true;
    } catch (err) {
      this.lastError = String(err);
      return false;
    }
  }

  /** @private */
  render() {
    this.toggle.textContent = `Timeline (${this.events.length})`;
    // The filter offers everyone who appears, in order of first appearance.
    /** @type {Map<string, string>} */
    const actors = new Map();
    for (const e of this.events) {
      const key = actorKey(e.actor);
      if (!actors.has(key)) actors.set(key, actorLabel(e.actor));
    }
    const wanted = ['all', ...actors.keys()];
    const have = [...this.filterBox.options].map((o) => o.value);
    if (wanted.join('\n') !== have.join('\n')) {
      this.filterBox.replaceChildren();
      const all = document.createElement('option');
      all.value = 'all';
      all.textContent = 'Everyone';
      this.filterBox.appendChild(all);
      for (const [key, label] of actors) {
        const o = document.createElement('option');
        o.value = key;
        o.textContent = label;
        this.filterBox.appendChild(o);
      }
      this.filterBox.value = wanted.includes(this.filter) ? this.filter : 'all';
    }
    const shown = this.visible();
    this.scrub.max = String(Math.max(0, shown.length - 1));
    const marks = document.createDocumentFragment();
    for (const e of shown.slice(-400)) {
      const mark = document.createElement('span');
      mark.className = `timeline-mark${e.frame_id ? ' has-frame' : ''}${e.ok === false ? ' failed' : ''}`;
      mark.dataset.seq = String(e.seq);
      mark.setAttribute('role', 'option');
      mark.setAttribute('aria-selected', String(e.seq === this.selected));
      mark.style.background = actorColour(actorKey(e.actor));
      mark.title = describe(e);
      marks.appendChild(mark);
    }
    this.marks.replaceChildren(marks);
  }
}
