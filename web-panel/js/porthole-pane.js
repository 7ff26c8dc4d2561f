// @ts-check
/**
 * porthole-pane.js — the browser pane as a custom element, for the bundled web panel and for
 * any desktop app (Electron or another web view) that embeds it:
 *
 *   <script type="module" src="http://127.0.0.1:7878/panel/js/porthole-pane.js"></script>
 *   <porthole-pane channel="work" api="http://127.0.0.1:7878" token="…"></porthole-pane>
 *
 * Attributes: `channel` (channel id), `token` (owner token), `api` (the daemon's base URL;
 * default: the page's own origin). Changing any of them opens a new session. A page on another
 * origin must be listed in the daemon's `server.allowed_origins`.
 *
 * Owns one session (a Connection per token+channel+api): it starts the channel, shows the
 * screencast, drives input and clipboard, the tab strip, the URL bar, the mode pill and the
 * status line, shows and steers agents (agents.js, prompts.js), and the person's vault
 * (vault.js). Everything lives in an
 * open shadow root (markup: pane-template.js); styles come from ../pane.css.
 *
 * Events (bubbling, composed): `porthole-message` (detail: every JSON message from the daemon),
 * `porthole-connection` (detail: {state, detail}), `porthole-pick-channel` (the channel name in
 * the status line was clicked). The `state` property is plain data that tests read.
 * Types: ./porthole-pane.d.ts and ./protocol.d.ts.
 */

import { AgentBar } from './agents.js';
import { ContextMenu } from './context-menu.js';
import { Connection, paneSocketUrl } from './connection.js';
import { DownloadList } from './downloads.js';
import { Keyboard } from './keyboard.js';
import { paneTemplate } from './pane-template.js';
import { ModePill } from './mode.js';
import { Prompts } from './prompts.js';
import { PersonFiles } from './person-files.js';
import { LoginPrompts } from './login.js';
import { Approvals } from './approvals.js';
import { VaultPanel } from './vault.js';
import { SelectPopups } from './popups.js';
import { Screen } from './screen.js';
import { TabStrip } from './tabs.js';
import { TimelineStrip } from './timeline.js';
import { StatusLine, Toolbar } from './toolbar.js';

const SCREENCAST_QUALITY = 70;
const STYLESHEET = new URL('../pane.css', import.meta.url).href;

/** The display's pixel density, as the daemon takes it (`screencast {scale}`: 1–3). */
function displayScale() {
  const ratio = Math.round((window.devicePixelRatio || 1) * 100) / 100;
  return Math.min(3, Math.max(1, ratio));
}


/**
 * Plain data that tests (and embedders) read. Updated in place; never replaced.
 * @typedef {Object} PaneState
 * @property {number} framesShown       frames drawn on the canvas
 * @property {number} framesReceived    binary messages received
 * @property {{width: number, height: number} | null} lastViewport
 * @property {boolean} connected        the WebSocket is open
 * @property {boolean} started          the daemon said `started` (and not since `stopped`)
 * @property {string | null} channel
 * @property {string | null} mode
 * @property {import('./tabs.js').Tab[]} tabs
 * @property {string | null} activeTargetId
 * @property {{url: string, title: string} | null} pageInfo
 * @property {{code: string, message: string} | null} lastError
 * @property {string | null} lastClipboard   text last written to the local clipboard
 * @property {ReturnType<AgentBar['snapshot']>} agents
 * @property {ReturnType<Prompts['snapshot']>} prompts
 * @property {ReturnType<PersonFiles['snapshot']>} fileChoosers   choosers waiting for files
 * @property {ReturnType<LoginPrompts['snapshot']>} authPrompts   logins waiting for the person
 * @property {ReturnType<Approvals['snapshot']>} approvals   agents' acts waiting for the person's answer
 * @property {ReturnType<VaultPanel['snapshot']>} vault   the vault panel: sources, items, shares, last fill
 * @property {ReturnType<SelectPopups['snapshot']>} selectPopup  the select popup drawn now
 * @property {string} cursor           the CSS cursor the page asked for under the pointer
 * @property {ReturnType<ContextMenu['snapshot']>} contextMenu  the context menu drawn now
 * @property {{width: number, height: number, bytes: number} | null} lastClipboardImage  image last written to the local clipboard
 * @property {(msg: object) => boolean} send  send any JSON message on the socket
 */

/**
 * @typedef {Object} Session
 * @property {string} api
 * @property {string} token
 * @property {string} channel
 * @property {Connection} conn
 * @property {boolean} everShown  a frame was drawn in this session (the canvas is not blank)
 */

export class PortholePane extends HTMLElement {
  static get observedAttributes() {
    return ['channel', 'token', 'api'];
  }

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = paneTemplate(STYLESHEET);
    /** @type {Session | null} */
    this.session = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.applyTimer = undefined;

    /** @type {PaneState} */
    this.state = {
      framesShown: 0,
      framesReceived: 0,
      lastViewport: null,
      connected: false,
      started: false,
      channel: null,
      mode: null,
      tabs: [],
      activeTargetId: null,
      pageInfo: null,
      lastError: null,
      lastClipboard: null,
      agents: { driving: [], acting: [], holder: 'agents', until: null, follow: true },
      prompts: { handoffs: [], dialogs: [] },
      fileChoosers: [],
      authPrompts: [],
      approvals: [],
      vault: { open: false, sources: [], items: [], shares: [], agents: [], note: null, lastResult: null },
      selectPopup: null,
      cursor: 'default',
      contextMenu: null,
      lastClipboardImage: null,
      send: (msg) => this.send(msg),
    };
    this.build(root);
  }

  // ------------------------------------------------------------------ public API

  /**
   * Send one JSON message to the daemon; false when the socket is not open.
   * @param {object} msg
   */
  send(msg) {
    return this.session ? this.session.conn.send(msg) : false;
  }

  /** Ask for the browser (again), in `mode` if given. @param {string} [mode] */
  start(mode) {
    this.sendStart(mode);
  }

  /** Skip the reconnect backoff. */
  reconnect() {
    if (this.session) this.session.conn.retryNow();
  }

  /** Print the watched tab to PDF; it arrives as a download to save. */
  printPage() {
    return this.send({ type: 'print' });
  }

  /** Put keyboard focus on the remote screen. */
  focusScreen() {
    this.keyboard.focus();
  }

  /** Show a notice in the pane's status line. @param {string} text @param {'info' | 'progress' | 'error'} kind */
  notify(text, kind) {
    this.status.show(text, kind);
  }

  connectedCallback() {
    this.scheduleApply();
  }

  disconnectedCallback() {
    clearTimeout(this.applyTimer);
    this.closeSession();
  }

  attributeChangedCallback() {
    if (this.isConnected) this.scheduleApply();
  }

  // ------------------------------------------------------------------ wiring

  /**
   * @private
   * @param {ShadowRoot} root
   */
  build(root) {
    /**
     * @template {HTMLElement} T
     * @param {string} id
     * @returns {T}
     */
    const $ = (id) => {
      const el = root.getElementById(id);
      if (!el) throw new Error(`porthole-pane: #${id} is missing from the template`);
      return /** @type {T} */ (el);
    };
    this.$ = $;
    const canvas = /** @type {HTMLCanvasElement} */ ($('screen'));
    this.canvas = canvas;
    this.overlayEl = $('overlay');
    this.overlayText = $('overlay-text');
    this.overlayAction = /** @type {HTMLButtonElement} */ ($('overlay-action'));
    this.stage = $('stage');
    const send = (/** @type {object} */ msg) => this.send(msg);
    const sendInput = (/** @type {string} */ type, /** @type {object} */ fields, /** @type {number} */ modifiers) => {
      this.send({ type: 'input', input_type: type, ...fields, modifiers });
    };

    this.status = new StatusLine({
      conn: /** @type {HTMLButtonElement} */ ($('status-conn')),
      channel: /** @type {HTMLButtonElement} */ ($('status-channel')),
      mode: $('status-mode'),
      message: $('status-message'),
      onRetry: () => this.reconnect(),
      onPickChannel: () => this.emit('porthole-pick-channel', { channel: this.state.channel }),
    });

    this.pill = new ModePill({
      button: /** @type {HTMLButtonElement} */ ($('mode-pill')),
      session: () => (this.session ? { token: this.session.token, channel: this.session.channel } : null),
      api: () => this.apiBase(),
      restart: (mode) => this.sendStart(mode),
      notify: (text, kind) => this.status.show(text, kind),
    });

    this.screen = new Screen({
      canvas,
      getViewport: () => this.state.lastViewport,
      sendInput,
      onResize: (size) => {
        if (this.session && this.session.conn.isOpen) {
          this.send({ type: 'screencast', width: size.width, height: size.height, quality: SCREENCAST_QUALITY, scale: displayScale() });
        }
      },
      onFrameShown: () => {
        this.state.framesShown = this.screen.framesShown;
        if (this.session) this.session.everShown = true;
        if (this.state.started) this.hideOverlay();
      },
    });

    this.keyboard = new Keyboard({
      root: this.stage,
      screen: canvas,
      sink: /** @type {HTMLTextAreaElement} */ ($('paste-sink')),
      sendInput: (type, fields, modifiers) => {
        this.screen.flush(); // pending moves/wheel go before the key, as the user made them
        sendInput(type, fields, modifiers);
      },
      notify: (text, kind) => this.status.show(text, kind),
      onClipboardWritten: (text) => { this.state.lastClipboard = text; },
    });

    this.toolbar = new Toolbar({
      url: /** @type {HTMLInputElement} */ ($('url')),
      back: /** @type {HTMLButtonElement} */ ($('back')),
      forward: /** @type {HTMLButtonElement} */ ($('forward')),
      reload: /** @type {HTMLButtonElement} */ ($('reload')),
      send,
      onDone: () => this.focusScreen(),
    });

    this.tabStrip = new TabStrip({
      container: $('tabs'),
      newTab: /** @type {HTMLButtonElement} */ ($('new-tab')),
      send,
      onChange: () => {
        this.state.tabs = this.tabStrip.tabs.map((t) => ({ ...t }));
        this.state.activeTargetId = this.tabStrip.activeId;
        // Set later in the constructor; a card names its tab by the strip's titles.
        if (this.approvals) this.approvals.tabsChanged();
        const active = this.tabStrip.active();
        if (active) this.toolbar.setUrl(active.url);
      },
    });

    this.agents = new AgentBar({
      driver: $('driver'),
      driverName: $('driver-name'),
      stage: this.stage,
      controlText: $('control-text'),
      follow: /** @type {HTMLInputElement} */ ($('follow')),
      takeover: /** @type {HTMLButtonElement} */ ($('takeover')),
      stop: /** @type {HTMLButtonElement} */ ($('stop-agents')),
      send,
      onActing: (agents, tabs) => this.tabStrip.setActing(agents, tabs),
      onChange: () => { if (this.agents) this.state.agents = this.agents.snapshot(); },
    });

    this.prompts = new Prompts({
      handoff: $('handoff'),
      handoffTitle: $('handoff-title'),
      handoffReason: $('handoff-reason'),
      handoffNote: /** @type {HTMLInputElement} */ ($('handoff-note')),
      handoffDone: /** @type {HTMLButtonElement} */ ($('handoff-done')),
      dialog: $('dialog'),
      dialogTitle: $('dialog-title'),
      dialogMessage: $('dialog-message'),
      dialogText: /** @type {HTMLInputElement} */ ($('dialog-text')),
      dialogOk: /** @type {HTMLButtonElement} */ ($('dialog-ok')),
      dialogCancel: /** @type {HTMLButtonElement} */ ($('dialog-cancel')),
      send,
      tabLabel: (id) => {
        const t = this.tabStrip.tabs.find((x) => x.target_id === id);
        return t ? (t.title || t.url || 'a tab') : 'another tab';
      },
      watched: () => this.tabStrip.activeId,
      onChange: () => { if (this.prompts) this.state.prompts = this.prompts.snapshot(); },
    });
    // The person's downloads (and prints), each offered to save.
    this.downloads = new DownloadList(this.stage, () => this.session);
    // Who did what in this channel, with the frames kept (DESIGN.md §17).
    this.timeline = new TimelineStrip(
      $('timeline'),
      /** @type {HTMLButtonElement} */ ($('timeline-toggle')),
      () => this.session,
    );

    this.personFiles = new PersonFiles({
      stage: this.stage,
      send,
      toPage: (e) => /** @type {any} */ (this.screen).toPage(e),
      onError: (text) => this.status.show(text, 'error'),
    });
    this.login = new LoginPrompts({ stage: this.stage, send });
    this.approvals = new Approvals({
      stage: this.stage,
      send,
      tabLabel: (id) => {
        const t = this.tabStrip.tabs.find((x) => x.target_id === id);
        return t ? (t.title || t.url || 'untitled') : 'a closed tab';
      },
    });
    this.vault = new VaultPanel({
      button: /** @type {HTMLButtonElement} */ ($('vault-toggle')),
      stage: this.stage,
      session: () => (this.session ? { api: this.session.api, token: this.session.token, channel: this.session.channel } : null),
      watched: () => this.tabStrip.activeId,
      send,
      notify: (text, kind) => this.status.show(text, kind),
      onChange: () => { if (this.vault) this.state.vault = this.vault.snapshot(); },
    });

    this.selectPopups = new SelectPopups({
      stage: this.stage,
      screen: canvas,
      getViewport: () => this.state.lastViewport,
      watched: () => this.tabStrip.activeId,
      send: (msg) => { this.send(msg); this.state.selectPopup = null; },
    });
    this.contextMenu = new ContextMenu({
      stage: this.stage,
      screen: canvas,
      getViewport: () => this.state.lastViewport,
      watched: () => this.tabStrip.activeId,
      send,
      writeText: (text) => this.keyboard.writeClipboard(text),
      notify: (text, kind) => this.status.show(text, kind),
      onImageWritten: (image) => { this.state.lastClipboardImage = image; },
    });
    this.watchDisplayScale();

    this.overlayAction.addEventListener('click', () => {
      if (this.session && this.session.conn.isOpen) this.sendStart();
      else this.reconnect();
    });
    this.setControlsEnabled(false);
  }

  /**
   * A window moved to a display of another density: frames follow it.
   * @private
   */
  watchDisplayScale() {
    const query = window.matchMedia(`(resolution: ${window.devicePixelRatio || 1}dppx)`);
    query.addEventListener('change', () => {
      if (this.session && this.session.conn.isOpen) {
        this.send({ type: 'screencast', quality: SCREENCAST_QUALITY, scale: displayScale() });
      }
      this.watchDisplayScale();
    }, { once: true });
  }

  /**
   * The page's cursor over the screen.
   * @private
   * @param {string} cursor
   */
  setCursor(cursor) {
    this.state.cursor = cursor;
    this.canvas.style.cursor = cursor;
  }

  /**
   * The daemon's base URL without a trailing slash (`''`: the page's own origin).
   * @private
   */
  apiBase() {
    return (this.getAttribute('api') || '').trim().replace(/\/+$/, '');
  }

  /**
   * Attributes often change together (a desktop app sets channel and token in turn): apply
   * them once, after the current task.
   * @private
   */
  scheduleApply() {
    clearTimeout(this.applyTimer);
    this.applyTimer = setTimeout(() => this.applyAttributes(), 0);
  }

  /** Make the session match the attributes. @private */
  applyAttributes() {
    const api = this.apiBase();
    const token = (this.getAttribute('token') || '').trim();
    const channel = (this.getAttribute('channel') || '').trim();
    const s = this.session;
    if (s && s.api === api && s.token === token && s.channel === channel) return;
    this.closeSession();
    if (!token || !channel) {
      this.status.setConnection('idle', token ? 'not connected' : 'no token');
      this.showOverlay(token ? 'No channel chosen.' : 'No token: set the token attribute.');
      return;
    }
    this.openSession(api, token, channel);
  }

  /**
   * @private
   * @param {string} name
   * @param {object} detail
   */
  emit(name, detail) {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }

  /**
   * Navigation, tab and new-tab controls only do something while the socket is open.
   * @private
   * @param {boolean} enabled
   */
  setControlsEnabled(enabled) {
    this.toolbar.setEnabled(enabled);
    /** @type {HTMLButtonElement} */ (this.$('new-tab')).disabled = !enabled;
    for (const id of ['takeover', 'stop-agents', 'follow']) {
      /** @type {HTMLButtonElement} */ (this.$(id)).disabled = !enabled;
    }
  }

  /**
   * A message over the screen (connecting, starting, stopped, failed).
   * @private
   * @param {string} text
   * @param {{error?: boolean, action?: string}} [opt]  action: label of the "start again" button
   */
  showOverlay(text, opt = {}) {
    this.overlayText.textContent = text;
    this.overlayEl.classList.toggle('error', !!opt.error);
    this.overlayEl.classList.toggle('dim', !!(this.session && this.session.everShown));
    this.overlayAction.hidden = !opt.action;
    this.overlayAction.textContent = opt.action || '';
    this.overlayEl.hidden = false;
  }

  /** @private */
  hideOverlay() {
    this.overlayEl.hidden = true;
  }

  // ------------------------------------------------------------------ session

  /**
   * Ask the daemon for the browser and the screencast at the canvas's size, in `mode` (else the
   * mode this pane was last started in, so a reconnect keeps it; else the channel's own).
   * @private
   * @param {string} [mode]
   */
  sendStart(mode) {
    const s = this.session;
    if (!s) return;
    const { width, height } = this.screen.size();
    /** @type {Record<string, unknown>} */
    const start = { type: 'start', channel_id: s.channel };
    const wanted = mode || this.pill.mode;
    if (wanted) start.mode = wanted;
    /** @type {Record<string, unknown>} */
    const cast = { type: 'screencast', quality: SCREENCAST_QUALITY, scale: displayScale() };
    if (width > 0 && height > 0) {
      start.width = width;
      start.height = height;
      cast.width = width;
      cast.height = height;
    }
    s.conn.send(start);
    s.conn.send(cast);
    this.showOverlay('Starting browser…');
  }

  /**
   * @private
   * @param {string} api
   * @param {string} token
   * @param {string} channel
   */
  openSession(api, token, channel) {
    /** @type {Session} */
    const s = {
      api,
      token,
      channel,
      everShown: false,
      conn: new Connection({
        url: paneSocketUrl(api),
        protocols: ['porthole.v1', `porthole.token.${token}`],
        onOpen: () => {
          this.state.connected = true;
          this.setControlsEnabled(true);
          // The daemon tells a fresh pane what is open (handoffs, dialogs, control).
          this.agents.reset();
          this.prompts.reset();
          this.personFiles.reset();
          this.login.reset();
          this.approvals.reset();
          void this.timeline.reload();
          this.sendStart();
        },
        onMessage: (msg) => this.onMessage(msg),
        onFrame: (data) => {
          this.state.framesReceived += 1;
          this.screen.pushFrame(data);
        },
        onState: (state, detail) => {
          this.status.setConnection(state, detail);
          this.emit('porthole-connection', { state, detail });
          if (state !== 'open') {
            this.state.connected = false;
            this.state.started = false;
            this.setControlsEnabled(false);
          }
          if (state === 'connecting') this.showOverlay('Connecting…');
          if (state === 'waiting') this.showOverlay(capitalise(detail), { action: 'Reconnect now' });
        },
      }),
    };
    this.session = s;
    this.state.channel = channel;
    this.status.setChannel(channel);
    s.conn.start();
  }

  /** @private */
  closeSession() {
    if (!this.session) return;
    const s = this.session;
    this.session = null;
    s.conn.stop();
    Object.assign(this.state, {
      connected: false, started: false, channel: null, mode: null, lastViewport: null,
      pageInfo: null, lastError: null,
    });
    this.tabStrip.reset();
    this.agents.reset();
    this.prompts.reset();
    this.downloads.clear();
    this.timeline.clear();
    this.personFiles.reset();
    this.login.reset();
    this.approvals.reset();
    this.vault.reset();
    this.selectPopups.reset();
    this.state.selectPopup = null;
    this.contextMenu.reset();
    this.setCursor('default');
    this.toolbar.setUrl('');
    this.setControlsEnabled(false);
    this.screen.clear();
    this.status.setChannel(null);
    this.status.setMode(null);
    this.pill.reset();
    this.status.clear();
  }

  /**
   * @private
   * @param {{type: string, [k: string]: any}} msg
   */
  onMessage(msg) {
    const st = this.state;
    switch (msg.type) {
      case 'started':
        st.started = true;
        // Cards of an earlier session are stale; the daemon sends the open ones after this.
        this.approvals.reset();
        st.mode = msg.mode ?? null;
        this.status.setMode(st.mode);
        this.pill.started(st.mode);
        this.status.clear('progress');
        this.agents.started();
        if (this.session) this.session.conn.resetBackoff();
        if (this.session && this.session.everShown) this.hideOverlay();
        else this.showOverlay('Waiting for the first frame…');
        break;
      case 'stopped':
        st.started = false;
        // The session's acts are gone with it: its cards must not answer the next one's.
        this.approvals.reset();
        this.showOverlay('The browser of this channel was stopped.', { action: 'Start browser' });
        break;
      case 'tabs':
        this.tabStrip.setAll(msg.tabs, msg.active_target_id);
        break;
      case 'tab_switched':
        this.tabStrip.switched(msg.target_id);
        this.selectPopups.reset();
        this.state.selectPopup = null;
        this.contextMenu.reset();
        this.setCursor('default');
        break;
      case 'context_menu':
        this.contextMenu.show(/** @type {any} */ (msg));
        break;
      case 'image_copy':
        this.contextMenu.imageArrived(/** @type {any} */ (msg));
        break;
      case 'select_popup':
        this.selectPopups.show(/** @type {any} */ (msg));
        this.state.selectPopup = this.selectPopups.snapshot();
        break;
      case 'select_popup_closed':
        this.selectPopups.closed(String(msg.id));
        this.state.selectPopup = this.selectPopups.snapshot();
        break;
      case 'cursor':
        if (msg.target_id === this.tabStrip.activeId) this.setCursor(String(msg.cursor || 'default'));
        break;
      case 'tab_created':
        this.tabStrip.created({ target_id: msg.target_id, url: msg.url, title: msg.title });
        break;
      case 'tab_closed':
        this.tabStrip.closed(msg.target_id);
        this.prompts.tabClosed(msg.target_id);
        break;
      case 'page_info':
        st.pageInfo = { url: msg.url ?? '', title: msg.title ?? '' };
        this.tabStrip.pageInfo(st.pageInfo.url, st.pageInfo.title);
        this.toolbar.setUrl(st.pageInfo.url);
        break;
      case 'viewport':
        if (msg.width > 0 && msg.height > 0) st.lastViewport = { width: msg.width, height: msg.height };
        break;
      case 'clipboard':
        this.keyboard.writeClipboard(String(msg.text ?? ''));
        break;
      case 'progress': {
        const text = msg.message || msg.stage || 'working…';
        this.status.show(text, 'progress');
        if (!st.started) this.showOverlay(text);
        break;
      }
      case 'agent_activity':
        this.agents.activity(/** @type {any} */ (msg));
        break;
      case 'control':
        this.agents.control(/** @type {any} */ (msg));
        break;
      case 'handoff':
        this.prompts.handoff(/** @type {any} */ (msg));
        break;
      case 'handoff_ended':
        this.prompts.handoffEnded(String(msg.id));
        break;
      case 'dialog':
        this.prompts.dialog(/** @type {any} */ (msg));
        break;
      case 'download':
        this.downloads.update(/** @type {any} */ (msg));
        break;
      case 'timeline_event':
        this.timeline.add(/** @type {any} */ (msg));
        break;
      case 'dialog_closed':
        this.prompts.dialogClosed(String(msg.target_id));
        break;
      case 'file_chooser':
        this.personFiles.chooser(/** @type {any} */ (msg));
        break;
      case 'file_chooser_closed':
        this.personFiles.closed(String(msg.id));
        break;
      case 'auth_prompt':
        this.login.prompt(/** @type {any} */ (msg));
        break;
      case 'auth_prompt_closed':
        this.login.closed(String(msg.id));
        break;
      case 'approval':
        this.approvals.asked(/** @type {any} */ (msg));
        break;
      case 'approval_closed':
        this.approvals.closed(String(msg.id));
        break;
      case 'vault_locked':
        this.vault.locked(/** @type {any} */ (msg));
        break;
      case 'vault_result':
        this.vault.result(/** @type {any} */ (msg));
        break;
      case 'error': {
        st.lastError = { code: String(msg.code ?? 'error'), message: String(msg.message ?? '') };
        this.contextMenu.failed(st.lastError);
        if (this.pill.failed(st.lastError)) {
          // A mode switch failed; the daemon kept this pane in its previous mode.
          if (st.started) this.hideOverlay();
          break;
        }
        const text = st.lastError.message || st.lastError.code;
        this.status.show(`${text} (${st.lastError.code})`, 'error');
        if (!st.started) this.showOverlay(text, { error: true, action: 'Try again' });
        break;
      }
      default:
        // Unknown messages are ignored: newer daemons may say more than this pane understands.
        break;
    }
    st.fileChoosers = this.personFiles.snapshot();
    st.authPrompts = this.login.snapshot();
    st.approvals = this.approvals.snapshot();
    st.contextMenu = this.contextMenu.snapshot();
    this.emit('porthole-message', msg);
  }
}

/** @param {string} s */
function capitalise(s) {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

if (!customElements.get('porthole-pane')) customElements.define('porthole-pane', PortholePane);
