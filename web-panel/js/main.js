// @ts-check
/**
 * main.js — wiring of the web panel: reads token and channel from the URL fragment
 * (`#token=<t>&channel=<id>`), shows the channel picker when there is no channel, owns the
 * session (one Connection per token+channel), dispatches the daemon's JSON messages to the
 * screen, tab strip, toolbar and status line, and publishes `window.porthole` test hooks.
 */

import { Connection, paneSocketUrl } from './connection.js';
import { CookieDialog } from './cookies.js';
import { Keyboard } from './keyboard.js';
import { ModePill } from './mode.js';
import { Screen } from './screen.js';
import { TabStrip } from './tabs.js';
import { StatusLine, Toolbar } from './toolbar.js';

const SCREENCAST_QUALITY = 70;

/**
 * @template {HTMLElement} T
 * @param {string} id
 * @returns {T}
 */
function $(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`web panel: #${id} is missing from index.html`);
  return /** @type {T} */ (el);
}

// ---------------------------------------------------------------- test hooks

/**
 * State that automated tests read from a real browser. Plain data, updated in place.
 * @typedef {Object} PortholeHooks
 * @property {number} framesShown       frames drawn on the canvas
 * @property {number} framesReceived    binary messages received
 * @property {{width: number, height: number} | null} lastViewport
 * @property {boolean} connected        the WebSocket is open
 * @property {boolean} started          the daemon said `started` (and not since `stopped`)
 * @property {string | null} channel
 * @property {string | null} mode
 * @property {{target_id: string, url: string, title: string}[]} tabs
 * @property {string | null} activeTargetId
 * @property {{url: string, title: string} | null} pageInfo
 * @property {{code: string, message: string} | null} lastError
 * @property {string | null} lastClipboard   text last written to the local clipboard
 * @property {(msg: object) => boolean} send  send any JSON message on the socket
 */

/** @type {PortholeHooks} */
const hooks = {
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
  send: (msg) => (session ? session.conn.send(msg) : false),
};
/** @type {any} */ (window).porthole = hooks;

// ---------------------------------------------------------------- fragment

/** @returns {{token: string, channel: string}} */
function readFragment() {
  const out = { token: '', channel: '' };
  for (const part of location.hash.replace(/^#/, '').split('&')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = decode(part.slice(0, eq));
    const value = decode(part.slice(eq + 1));
    if (key === 'token') out.token = value;
    else if (key === 'channel') out.channel = value;
  }
  return out;
}

/**
 * Replace token and channel in the fragment, keeping any other parameters.
 * @param {string} token
 * @param {string} channel
 */
function writeFragment(token, channel) {
  const rest = location.hash.replace(/^#/, '').split('&')
    .filter((p) => p && !/^(token|channel)=/.test(p));
  const parts = [`token=${encodeURIComponent(token)}`, `channel=${encodeURIComponent(channel)}`, ...rest];
  location.hash = parts.join('&');
}

/** @param {string} s */
function decode(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

// ---------------------------------------------------------------- components

const canvas = /** @type {HTMLCanvasElement} */ ($('screen'));
const overlayEl = $('overlay');
const overlayText = $('overlay-text');
const overlayAction = /** @type {HTMLButtonElement} */ ($('overlay-action'));
const modePill = /** @type {HTMLButtonElement} */ ($('mode-pill'));

/**
 * @typedef {Object} Session
 * @property {string} token
 * @property {string} channel
 * @property {Connection} conn
 * @property {boolean} everShown  a frame was drawn in this session (the canvas is not blank)
 */

/** @type {Session | null} */
let session = null;

/**
 * @param {string} type
 * @param {object} fields
 * @param {number} modifiers
 */
function sendInput(type, fields, modifiers) {
  if (!session) return;
  session.conn.send({ type: 'input', input_type: type, ...fields, modifiers });
}

const pill = new ModePill({
  button: modePill,
  session: () => (session ? { token: session.token, channel: session.channel } : null),
  restart: (mode) => sendStart(mode),
  notify: (text, kind) => status.show(text, kind),
});

/** @param {object} msg */
function send(msg) {
  if (session) session.conn.send(msg);
}

const status = new StatusLine({
  conn: /** @type {HTMLButtonElement} */ ($('status-conn')),
  channel: /** @type {HTMLButtonElement} */ ($('status-channel')),
  mode: $('status-mode'),
  message: $('status-message'),
  onRetry: () => { if (session) session.conn.retryNow(); },
  onPickChannel: () => showPicker(true),
});

const screen = new Screen({
  canvas,
  getViewport: () => hooks.lastViewport,
  sendInput,
  onResize: (size) => {
    if (session && session.conn.isOpen) {
      session.conn.send({ type: 'screencast', width: size.width, height: size.height, quality: SCREENCAST_QUALITY });
    }
  },
  onFrameShown: () => {
    hooks.framesShown = screen.framesShown;
    if (session) session.everShown = true;
    if (hooks.started) hideOverlay();
  },
});

const keyboard = new Keyboard({
  root: $('stage'),
  screen: canvas,
  sink: /** @type {HTMLTextAreaElement} */ ($('paste-sink')),
  sendInput: (type, fields, modifiers) => {
    screen.flush(); // pending moves/wheel go before the key, as the user made them
    sendInput(type, fields, modifiers);
  },
  notify: (text, kind) => status.show(text, kind),
  onClipboardWritten: (text) => { hooks.lastClipboard = text; },
});

const toolbar = new Toolbar({
  url: /** @type {HTMLInputElement} */ ($('url')),
  back: /** @type {HTMLButtonElement} */ ($('back')),
  forward: /** @type {HTMLButtonElement} */ ($('forward')),
  reload: /** @type {HTMLButtonElement} */ ($('reload')),
  send,
  onDone: () => canvas.focus({ preventScroll: true }),
});
setControlsEnabled(false);

const tabStrip = new TabStrip({
  container: $('tabs'),
  newTab: /** @type {HTMLButtonElement} */ ($('new-tab')),
  send,
  onChange: () => {
    hooks.tabs = tabStrip.tabs.map((t) => ({ ...t }));
    hooks.activeTargetId = tabStrip.activeId;
    const active = tabStrip.active();
    if (active) {
      toolbar.setUrl(active.url);
      document.title = active.title ? `${active.title} — Porthole` : 'Porthole';
    }
  },
});

/**
 * Navigation, tab and new-tab controls only do something while the socket is open.
 * @param {boolean} enabled
 */
function setControlsEnabled(enabled) {
  toolbar.setEnabled(enabled);
  /** @type {HTMLButtonElement} */ ($('new-tab')).disabled = !enabled;
}

// ---------------------------------------------------------------- overlay

/**
 * A message over the screen (connecting, starting, stopped, failed).
 * @param {string} text
 * @param {{error?: boolean, action?: string}} [opt]  action: label of the "start again" button
 */
function showOverlay(text, opt = {}) {
  overlayText.textContent = text;
  overlayEl.classList.toggle('error', !!opt.error);
  overlayEl.classList.toggle('dim', !!(session && session.everShown));
  overlayAction.hidden = !opt.action;
  overlayAction.textContent = opt.action || '';
  overlayEl.hidden = false;
}

function hideOverlay() {
  overlayEl.hidden = true;
}

overlayAction.addEventListener('click', () => {
  if (session && session.conn.isOpen) sendStart();
  else if (session) session.conn.retryNow();
});

// ---------------------------------------------------------------- session

/**
 * Ask the daemon for the browser and the screencast at the canvas's size, in `mode` (else the
 * mode this pane was last started in, so a reconnect keeps it; else the channel's own).
 * @param {string} [mode]
 */
function sendStart(mode) {
  if (!session) return;
  const { width, height } = screen.size();
  /** @type {Record<string, unknown>} */
  const start = { type: 'start', channel_id: session.channel };
  const wanted = mode || pill.mode;
  if (wanted) start.mode = wanted;
  /** @type {Record<string, unknown>} */
  const cast = { type: 'screencast', quality: SCREENCAST_QUALITY };
  if (width > 0 && height > 0) {
    start.width = width;
    start.height = height;
    cast.width = width;
    cast.height = height;
  }
  session.conn.send(start);
  session.conn.send(cast);
  showOverlay('Starting browser…');
}

/**
 * @param {string} token
 * @param {string} channel
 */
function openSession(token, channel) {
  /** @type {Session} */
  const s = {
    token,
    channel,
    everShown: false,
    conn: new Connection({
      url: paneSocketUrl(),
      protocols: ['porthole.v1', `porthole.token.${token}`],
      onOpen: () => {
        hooks.connected = true;
        setControlsEnabled(true);
        sendStart();
      },
      onMessage: (msg) => onMessage(msg),
      onFrame: (data) => {
        hooks.framesReceived += 1;
        screen.pushFrame(data);
      },
      onState: (state, detail) => {
        status.setConnection(state, detail);
        if (state !== 'open') {
          hooks.connected = false;
          hooks.started = false;
          setControlsEnabled(false);
        }
        if (state === 'connecting') showOverlay('Connecting…');
        if (state === 'waiting') showOverlay(capitalise(detail), { action: 'Reconnect now' });
      },
    }),
  };
  session = s;
  hooks.channel = channel;
  status.setChannel(channel);
  s.conn.start();
}

function closeSession() {
  if (!session) return;
  const s = session;
  session = null;
  s.conn.stop();
  Object.assign(hooks, {
    connected: false, started: false, channel: null, mode: null, lastViewport: null,
    pageInfo: null, lastError: null,
  });
  tabStrip.reset();
  toolbar.setUrl('');
  setControlsEnabled(false);
  screen.clear();
  status.setChannel(null);
  status.setMode(null);
  pill.reset();
  status.clear();
  document.title = 'Porthole';
}

/** @param {{type: string, [k: string]: any}} msg */
function onMessage(msg) {
  switch (msg.type) {
    case 'started':
      hooks.started = true;
      hooks.mode = msg.mode ?? null;
      status.setMode(hooks.mode);
      pill.started(hooks.mode);
      status.clear('progress');
      if (session) session.conn.resetBackoff();
      if (session && session.everShown) hideOverlay();
      else showOverlay('Waiting for the first frame…');
      break;
    case 'stopped':
      hooks.started = false;
      showOverlay('The browser of this channel was stopped.', { action: 'Start browser' });
      break;
    case 'tabs':
      tabStrip.setAll(msg.tabs, msg.active_target_id);
      break;
    case 'tab_switched':
      tabStrip.switched(msg.target_id);
      break;
    case 'tab_created':
      tabStrip.created({ target_id: msg.target_id, url: msg.url, title: msg.title });
      break;
    case 'tab_closed':
      tabStrip.closed(msg.target_id);
      break;
    case 'page_info':
      hooks.pageInfo = { url: msg.url ?? '', title: msg.title ?? '' };
      tabStrip.pageInfo(hooks.pageInfo.url, hooks.pageInfo.title);
      toolbar.setUrl(hooks.pageInfo.url);
      break;
    case 'viewport':
      if (msg.width > 0 && msg.height > 0) hooks.lastViewport = { width: msg.width, height: msg.height };
      break;
    case 'clipboard':
      keyboard.writeClipboard(String(msg.text ?? ''));
      break;
    case 'progress': {
      const text = msg.message || msg.stage || 'working…';
      status.show(text, 'progress');
      if (!hooks.started) showOverlay(text);
      break;
    }
    case 'error': {
      hooks.lastError = { code: String(msg.code ?? 'error'), message: String(msg.message ?? '') };
      if (pill.failed(hooks.lastError)) {
        // A mode switch failed; the daemon kept this pane in its previous mode.
        if (hooks.started) hideOverlay();
        break;
      }
      const text = hooks.lastError.message || hooks.lastError.code;
      status.show(`${text} (${hooks.lastError.code})`, 'error');
      if (!hooks.started) showOverlay(text, { error: true, action: 'Try again' });
      break;
    }
    default:
      // Unknown messages are ignored: newer daemons may say more than this panel understands.
      break;
  }
}

/** @param {string} s */
function capitalise(s) {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

// ---------------------------------------------------------------- channel picker

const picker = $('picker');
const pickerForm = /** @type {HTMLFormElement} */ ($('picker-form'));
const channelInput = /** @type {HTMLInputElement} */ ($('channel-input'));
const tokenRow = $('token-row');
const tokenInput = /** @type {HTMLInputElement} */ ($('token-input'));
const pickerMessage = $('picker-message');
const channelList = $('channel-list');
const pickerCancel = /** @type {HTMLButtonElement} */ ($('picker-cancel'));

/** The token to use in the picker: the fragment's, else what was typed. */
function pickerToken() {
  return readFragment().token || tokenInput.value.trim();
}

/**
 * @param {string} text
 * @param {boolean} [error]
 */
function pickerSay(text, error = false) {
  pickerMessage.textContent = text;
  pickerMessage.classList.toggle('error', error);
}

/** @param {boolean} cancellable  a session stays open behind the picker */
function showPicker(cancellable) {
  const { token, channel } = readFragment();
  tokenRow.hidden = !!token;
  pickerCancel.hidden = !cancellable;
  channelInput.value = channel;
  picker.hidden = false;
  (token ? channelInput : tokenInput).focus();
  void loadChannels();
}

function hidePicker() {
  picker.hidden = true;
}

async function loadChannels() {
  const token = pickerToken();
  channelList.replaceChildren();
  if (!token) {
    pickerSay('Enter the daemon token (from <data_dir>/token) to list channels.');
    return;
  }
  pickerSay('Loading channels…');
  try {
    const res = await fetch('/api/browser/channels', {
      headers: { Authorization: `Bearer ${token}` },
      cache: 'no-store',
    });
    const body = await res.json().catch(() => null);
    if (!res.ok) {
      const why = (body && body.error && body.error.message) || `HTTP ${res.status}`;
      pickerSay(`Could not list channels: ${why}`, true);
      return;
    }
    /** @type {{channel_id: string, mode?: string, running?: boolean, panes?: number, tabs?: number}[]} */
    const channels = (body && Array.isArray(body.channels)) ? body.channels : [];
    pickerSay(channels.length ? 'Pick a channel, or type a new id:' : 'No channels yet: type an id to create one.');
    for (const ch of channels) {
      const li = document.createElement('li');
      const btn = document.createElement('button');
      btn.type = 'button';
      const name = document.createElement('span');
      name.className = 'name';
      name.textContent = ch.channel_id;
      const meta = document.createElement('span');
      meta.className = 'meta';
      meta.textContent = [
        ch.mode,
        ch.running ? 'running' : 'stopped',
        typeof ch.panes === 'number' ? `${ch.panes} pane${ch.panes === 1 ? '' : 's'}` : '',
        typeof ch.tabs === 'number' ? `${ch.tabs} tab${ch.tabs === 1 ? '' : 's'}` : '',
      ].filter(Boolean).join(' · ');
      btn.append(name, meta);
      btn.addEventListener('click', () => chooseChannel(ch.channel_id));
      li.append(btn);
      channelList.append(li);
    }
  } catch (err) {
    pickerSay(`Could not list channels: ${err instanceof Error ? err.message : String(err)}`, true);
  }
}

/** @param {string} channel */
function chooseChannel(channel) {
  const id = channel.trim();
  const token = pickerToken();
  if (!token) {
    pickerSay('Enter the token first.', true);
    tokenInput.focus();
    return;
  }
  if (!id) {
    pickerSay('Enter a channel id.', true);
    channelInput.focus();
    return;
  }
  const now = readFragment();
  if (now.token === token && now.channel === id) {
    hidePicker();
    if (!session) applyFragment();
    return;
  }
  writeFragment(token, id); // → hashchange → applyFragment
}

pickerForm.addEventListener('submit', (e) => {
  e.preventDefault();
  chooseChannel(channelInput.value);
});
$('picker-refresh').addEventListener('click', () => void loadChannels());
pickerCancel.addEventListener('click', () => {
  hidePicker();
  canvas.focus({ preventScroll: true });
});
picker.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && !pickerCancel.hidden) {
    hidePicker();
    canvas.focus({ preventScroll: true });
  }
});
tokenInput.addEventListener('change', () => void loadChannels());

// ---------------------------------------------------------------- boot

/** Make the session match the fragment. */
function applyFragment() {
  const { token, channel } = readFragment();
  if (session && session.token === token && session.channel === channel) {
    hidePicker();
    return;
  }
  closeSession();
  if (!token || !channel) {
    status.setConnection('idle', token ? 'not connected' : 'no token');
    showOverlay(token ? 'Pick a channel.' : 'Open this panel with #token=…&channel=…');
    showPicker(false);
    return;
  }
  hidePicker();
  openSession(token, channel);
  canvas.focus({ preventScroll: true });
}

// ---------------------------------------------------------------- cookie import

const cookieDialog = new CookieDialog({
  getToken: () => readFragment().token,
  getChannel: () => (session ? session.channel : null),
  notify: (text, kind) => status.show(text, /** @type {any} */ (kind)),
});
/** @type {any} */ (hooks).cookies = cookieDialog;
$('cookies-open').addEventListener('click', () => void cookieDialog.open());

window.addEventListener('hashchange', applyFragment);
applyFragment();
