// @ts-check
/**
 * main.js — the bundled web panel around one `<porthole-pane>` (porthole-pane.js): reads token
 * and channel from the URL fragment (`#token=<t>&channel=<id>`) and sets them on the pane,
 * shows the channel picker when there is no channel, owns the cookie-import dialog, keeps the
 * page title on the watched tab, raises a browser notification when an agent waits for the
 * person on a channel not on screen (person-events.js), and publishes the pane's state as
 * `window.porthole` (test hooks; see PaneState in porthole-pane.js).
 */

import { CookieDialog } from './cookies.js';
import { PersonEvents } from './person-events.js';
import './porthole-pane.js';

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

const pane = /** @type {import('./porthole-pane.js').PortholePane} */ ($('pane'));
/** @type {any} */ (window).porthole = pane.state;

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

/** True while the pane has a session (token and channel set). */
function paneOpen() {
  return !!(pane.getAttribute('token') && pane.getAttribute('channel'));
}

pane.addEventListener('porthole-pick-channel', () => showPicker(true));
pane.addEventListener('porthole-message', () => {
  const st = pane.state;
  const active = st.tabs.find((t) => t.target_id === st.activeTargetId);
  const title = active ? active.title : '';
  document.title = title ? `${title} — Porthole` : 'Porthole';
});

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
    if (!paneOpen()) applyFragment();
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
  pane.focusScreen();
});
picker.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && !pickerCancel.hidden) {
    hidePicker();
    pane.focusScreen();
  }
});
tokenInput.addEventListener('change', () => void loadChannels());

// ---------------------------------------------------------------- boot

/** Make the pane match the fragment. */
function applyFragment() {
  const { token, channel } = readFragment();
  pane.setAttribute('token', token);
  pane.setAttribute('channel', channel);
  if (!token || !channel) {
    showPicker(false);
    return;
  }
  hidePicker();
  pane.focusScreen();
}

// ---------------------------------------------------------------- cookie import

const cookieDialog = new CookieDialog({
  getToken: () => readFragment().token,
  getChannel: () => pane.state.channel,
  notify: (text, kind) => pane.notify(text, /** @type {any} */ (kind)),
});
/** @type {any} */ (pane.state).cookies = cookieDialog;
$('cookies-open').addEventListener('click', () => void cookieDialog.open());

// ---------------------------------------------------------------- agents waiting elsewhere

const personEvents = new PersonEvents({
  token: () => readFragment().token,
  onScreen: () => pane.state.channel,
});
/** @type {any} */ (pane.state).personEvents = personEvents;
let listeningWith = '';
function listenForThePerson() {
  const { token } = readFragment();
  if (token === listeningWith) return;
  listeningWith = token;
  personEvents.start();
}
// The browser lets a page ask to notify only from a gesture: her first click asks.
document.addEventListener('pointerdown', () => personEvents.askPermission(), { once: true });

window.addEventListener('hashchange', applyFragment);
window.addEventListener('hashchange', listenForThePerson);
applyFragment();
listenForThePerson();
