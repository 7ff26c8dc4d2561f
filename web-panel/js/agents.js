// @ts-check
/**
 * agents.js — what the person sees of agents and how they steer them (DESIGN.md §12, "Seeing
 * and stopping agents"): the pill naming the agent(s) driving (from `agent_activity`
 * start/end), the outline round the view while one acts, which agents and tabs the tab strip
 * lights up, the "Follow agents" toggle (`follow_agents`), and the Take over / Release and
 * Stop agents buttons, which show who holds control (`control`). Sending is delegated; the
 * daemon's replies are the truth (a click changes nothing until `control` says so).
 */

/** After a call ends the pill and outline stay this long, so quick calls do not flicker. */
const LINGER_MS = 1200;

/**
 * @typedef {Object} AgentBarOptions
 * @property {HTMLElement} driver         the pill (hidden while nobody drives)
 * @property {HTMLElement} driverName     its text
 * @property {HTMLElement} stage          gets the class `agent-driving` while an agent acts
 * @property {HTMLElement} controlText    who holds control
 * @property {HTMLInputElement} follow    the "Follow agents" checkbox
 * @property {HTMLButtonElement} takeover Take over / Release
 * @property {HTMLButtonElement} stop     Stop agents
 * @property {(msg: object) => boolean} send
 * @property {(agents: Set<string>, tabs: Set<string>) => void} onActing  for the tab strip
 * @property {() => void} onChange        anything shown changed (test hooks)
 */

/**
 * @typedef {Object} Call
 * @property {string} agent_id
 * @property {string} name
 * @property {string} tool
 * @property {string | null} target_id
 */

export class AgentBar {
  /** @param {AgentBarOptions} opts */
  constructor(opts) {
    this.opts = opts;
    /** Calls in flight, per agent (one agent may run several at once). @type {Map<string, Call[]>} */
    this.calls = new Map();
    /** Agents whose last call ended less than LINGER_MS ago. @type {Map<string, {call: Call, timer: ReturnType<typeof setTimeout>}>} */
    this.lingering = new Map();
    /** @type {'human' | 'agents'} */
    this.holder = 'agents';
    /** @type {number | null} Unix ms when control goes back to the agents by itself */
    this.until = null;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.untilTimer = undefined;

    opts.follow.checked = true;
    opts.follow.addEventListener('change', () => {
      opts.send({ type: 'follow_agents', on: opts.follow.checked });
      opts.onChange();
    });
    opts.takeover.addEventListener('click', () => {
      opts.send({ type: this.holder === 'human' ? 'release' : 'takeover' });
    });
    opts.stop.addEventListener('click', () => opts.send({ type: 'stop_agents' }));
    this.render();
  }

  /** Follow agents is on (the daemon's default). */
  get following() {
    return this.opts.follow.checked;
  }

  /** The pane (re)started: tell the daemon if the person turned following off. */
  started() {
    if (!this.following) this.opts.send({ type: 'follow_agents', on: false });
  }

  /** @param {{agent_id: string, name: string, tool: string, target_id?: string | null, phase: string, ok?: boolean}} msg */
  activity(msg) {
    const id = String(msg.agent_id ?? '');
    /** @type {Call} */
    const call = {
      agent_id: id,
      name: String(msg.name || id),
      tool: String(msg.tool ?? ''),
      target_id: msg.target_id ?? null,
    };
    const list = this.calls.get(id) || [];
    if (msg.phase === 'start') {
      list.push(call);
      this.calls.set(id, list);
      const linger = this.lingering.get(id);
      if (linger) {
        clearTimeout(linger.timer);
        this.lingering.delete(id);
      }
    } else {
      const i = list.findIndex((c) => c.tool === call.tool);
      list.splice(i >= 0 ? i : 0, 1);
      if (list.length) {
        this.calls.set(id, list);
      } else {
        this.calls.delete(id);
        const old = this.lingering.get(id);
        if (old) clearTimeout(old.timer);
        const timer = setTimeout(() => {
          this.lingering.delete(id);
          this.render();
        }, LINGER_MS);
        this.lingering.set(id, { call, timer });
      }
    }
    this.render();
  }

  /** @param {{holder: string, until?: number}} msg */
  control(msg) {
    this.holder = msg.holder === 'human' ? 'human' : 'agents';
    this.until = this.holder === 'human' && typeof msg.until === 'number' ? msg.until : null;
    clearInterval(this.untilTimer);
    this.untilTimer = undefined;
    if (this.until) this.untilTimer = setInterval(() => this.renderControl(), 1000);
    this.render();
  }

  /** Forget everything (new session or connection). */
  reset() {
    for (const { timer } of this.lingering.values()) clearTimeout(timer);
    this.lingering.clear();
    this.calls.clear();
    this.holder = 'agents';
    this.until = null;
    clearInterval(this.untilTimer);
    this.untilTimer = undefined;
    this.render();
  }

  /**
   * The agents shown as driving now: acting, or finished moments ago.
   * @returns {Call[]}
   */
  drivers() {
    /** @type {Map<string, Call>} */
    const out = new Map();
    for (const [id, list] of this.calls) if (list.length) out.set(id, list[list.length - 1]);
    for (const [id, { call }] of this.lingering) if (!out.has(id)) out.set(id, call);
    return [...out.values()];
  }

  /** Names of the agents driving, for test hooks. */
  snapshot() {
    return {
      driving: this.drivers().map((c) => c.name),
      acting: [...this.calls.keys()],
      holder: this.holder,
      until: this.until,
      follow: this.following,
    };
  }

  /** @private */
  render() {
    const drivers = this.drivers();
    const { driver, driverName, stage } = this.opts;
    driver.hidden = drivers.length === 0;
    driverName.textContent = drivers.length === 0 ? ''
      : drivers.length === 1 ? `${drivers[0].name} is driving`
        : `${drivers.map((d) => d.name).join(', ')} are driving`;
    driver.title = drivers.map((d) => `${d.name}: ${d.tool}`).join('\n');
    stage.classList.toggle('agent-driving', drivers.length > 0);

    const agents = new Set(drivers.map((d) => d.agent_id));
    const tabs = new Set(drivers.map((d) => d.target_id).filter((t) => !!t));
    this.opts.onActing(agents, /** @type {Set<string>} */ (tabs));
    this.renderControl();
    this.opts.onChange();
  }

  /** @private */
  renderControl() {
    const { takeover, controlText } = this.opts;
    const human = this.holder === 'human';
    takeover.textContent = human ? 'Release' : 'Take over';
    takeover.title = human ? 'Give control back to the agents' : 'Agents may only read until you release';
    takeover.classList.toggle('active', human);
    let text = human ? 'You have control' : '';
    if (human && this.until) {
      const secs = Math.max(0, Math.ceil((this.until - Date.now()) / 1000));
      text = `You have control · agents back in ${secs}s`;
    }
    controlText.textContent = text;
    controlText.hidden = !text;
  }
}
