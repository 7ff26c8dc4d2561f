// @ts-check
/**
 * tabs.js — owns the tab strip: the list of the channel's tabs as the daemon reports them
 * (`tabs` snapshots plus `tab_created` / `tab_closed` / `tab_switched` / `page_info` updates),
 * rendering one button per tab with a close × and, on an agent's tab, a badge with the agent's
 * name (lit while that agent acts), and the "+" button. It never changes the list on its own:
 * clicks only send requests, and the daemon's replies update the strip.
 */

/**
 * A tab; `owner` is `"human"` or the owning agent's id, `owner_name` its name.
 * @typedef {{target_id: string, url: string, title: string, owner: string, owner_name: string}} Tab
 */

/**
 * @typedef {Object} TabStripOptions
 * @property {HTMLElement} container      #tabs
 * @property {HTMLButtonElement} newTab   #new-tab
 * @property {(msg: object) => void} send
 * @property {() => void} onChange        the list or the active tab changed
 */

export class TabStrip {
  /** @param {TabStripOptions} opts */
  constructor(opts) {
    this.opts = opts;
    /** @type {Tab[]} */
    this.tabs = [];
    /** @type {string | null} */
    this.activeId = null;
    /** Agents acting now, and the tabs they act in (agents.js keeps these current). */
    /** @type {Set<string>} */
    this.actingAgents = new Set();
    /** @type {Set<string>} */
    this.actingTabs = new Set();

    opts.newTab.addEventListener('click', () => opts.send({ type: 'new_tab' }));

    opts.container.addEventListener('click', (e) => {
      const el = /** @type {HTMLElement} */ (e.target);
      const tabEl = /** @type {HTMLElement | null} */ (el.closest('.tab'));
      const id = tabEl && tabEl.dataset.targetId;
      if (!id) return;
      if (el.closest('.tab-close')) {
        opts.send({ type: 'close_tab', target_id: id });
      } else if (id !== this.activeId) {
        opts.send({ type: 'switch_tab', target_id: id });
      }
    });
    // Middle click closes, as in every browser.
    opts.container.addEventListener('auxclick', (e) => {
      if (e.button !== 1) return;
      const tabEl = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (e.target).closest('.tab'));
      const id = tabEl && tabEl.dataset.targetId;
      if (id) {
        e.preventDefault();
        opts.send({ type: 'close_tab', target_id: id });
      }
    });
  }

  /** @returns {Tab | null} */
  active() {
    return this.tabs.find((t) => t.target_id === this.activeId) || null;
  }

  /**
   * A full snapshot (`tabs` message).
   * @param {Tab[]} tabs
   * @param {string | null | undefined} activeId
   */
  setAll(tabs, activeId) {
    this.tabs = (Array.isArray(tabs) ? tabs : []).map(normalize);
    this.activeId = activeId || null;
    this.changed();
  }

  /** @param {Partial<Tab>} tab */
  created(tab) {
    const t = normalize(tab);
    const i = this.tabs.findIndex((x) => x.target_id === t.target_id);
    // `tab_created` says nothing of the owner; the next `tabs` snapshot does.
    if (i >= 0) this.tabs[i] = { ...t, owner: this.tabs[i].owner, owner_name: this.tabs[i].owner_name };
    else this.tabs.push(t);
    this.changed();
  }

  /** @param {string} targetId */
  closed(targetId) {
    this.tabs = this.tabs.filter((t) => t.target_id !== targetId);
    if (this.activeId === targetId) this.activeId = null;
    this.changed();
  }

  /** @param {string} targetId */
  switched(targetId) {
    this.activeId = targetId;
    this.changed();
  }

  /**
   * `page_info` describes the active tab.
   * @param {string} url
   * @param {string} title
   */
  pageInfo(url, title) {
    const t = this.active();
    if (!t) return;
    t.url = url ?? t.url;
    t.title = title ?? t.title;
    this.changed();
  }

  /**
   * Which agents are acting now and in which tabs: their tabs' badges light up.
   * @param {Set<string>} agents
   * @param {Set<string>} tabs
   */
  setActing(agents, tabs) {
    this.actingAgents = agents;
    this.actingTabs = tabs;
    this.render();
  }

  /** Empty the strip (new channel). */
  reset() {
    this.tabs = [];
    this.activeId = null;
    this.changed();
  }

  /** @private */
  changed() {
    this.render();
    this.opts.onChange();
  }

  /** @private */
  render() {
    const box = this.opts.container;
    const frag = document.createDocumentFragment();
    for (const t of this.tabs) {
      const isActive = t.target_id === this.activeId;
      const label = t.title || t.url || 'New tab';

      const el = document.createElement('div');
      el.className = isActive ? 'tab active' : 'tab';
      el.dataset.targetId = t.target_id;
      el.title = t.title && t.url ? `${t.title}\n${t.url}` : label;

      const btn = document.createElement('button');
      btn.type = 'button';
      btn.className = 'tab-title';
      btn.setAttribute('role', 'tab');
      btn.setAttribute('aria-selected', String(isActive));
      btn.textContent = label;

      const close = document.createElement('button');
      close.type = 'button';
      close.className = 'tab-close';
      close.title = 'Close tab';
      close.setAttribute('aria-label', `Close ${label}`);
      close.textContent = '×';

      if (t.owner && t.owner !== 'human') {
        const badge = document.createElement('span');
        const acting = this.actingAgents.has(t.owner) || this.actingTabs.has(t.target_id);
        badge.className = acting ? 'tab-owner acting' : 'tab-owner';
        badge.textContent = t.owner_name || t.owner;
        badge.title = `${t.owner_name || t.owner}'s tab`;
        el.classList.add('agent-tab');
        el.dataset.owner = t.owner;
        el.append(badge);
      }
      el.append(btn, close);
      frag.append(el);
    }
    box.replaceChildren(frag);
    const activeEl = box.querySelector('.tab.active');
    if (activeEl) activeEl.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }
}

/**
 * @param {Partial<Tab>} t
 * @returns {Tab}
 */
function normalize(t) {
  return {
    target_id: String(t.target_id ?? ''),
    url: t.url ?? '',
    title: t.title ?? '',
    owner: t.owner ?? 'human',
    owner_name: t.owner_name ?? '',
  };
}
