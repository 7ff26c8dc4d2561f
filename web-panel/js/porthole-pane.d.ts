// Types of <porthole-pane> (porthole-pane.js), for desktop apps written in TypeScript.
// The WebSocket messages themselves are generated into ./protocol.d.ts from the daemon's
// OpenAPI document; this file is written by hand and only names the element's own surface.

import type { ClientMessage, PaneMessage, TabInfo } from './protocol';

export * from './protocol';

/** Connection state of the pane's WebSocket. */
export type ConnectionState = 'idle' | 'connecting' | 'open' | 'waiting';

/** Plain data the pane keeps current (what the bundled panel publishes as `window.porthole`). */
export interface PaneState {
  framesShown: number;
  framesReceived: number;
  lastViewport: { width: number; height: number } | null;
  connected: boolean;
  started: boolean;
  channel: string | null;
  mode: string | null;
  tabs: TabInfo[];
  activeTargetId: string | null;
  pageInfo: { url: string; title: string } | null;
  lastError: { code: string; message: string } | null;
  lastClipboard: string | null;
  agents: {
    /** Names of the agents shown as driving (acting, or finished a moment ago). */
    driving: string[];
    /** Ids of the agents with a tool call in flight. */
    acting: string[];
    holder: 'human' | 'agents';
    until: number | null;
    follow: boolean;
  };
  prompts: {
    handoffs: { id: string; agent_id: string; name: string; reason: string; target_id: string | null }[];
    dialogs: { target_id: string; kind: string; message: string; default_prompt?: string }[];
  };
  /** File choosers waiting for the person's files (`file_chooser`), oldest first. */
  fileChoosers: { id: string; target_id: string; multiple: boolean; accept: string }[];
  /** Logins waiting for the person (`auth_prompt`), oldest first. */
  authPrompts: { id: string; target_id: string; url: string; origin: string; realm: string; scheme: string }[];
  /** Agents' acts waiting for the person's approval (`approval`), oldest first. */
  approvals: { id: string; agent_id: string; name: string; kind: string; target_id: string; url: string; detail: string }[];
  /** The vault panel (vault.js): its sources, the items of unlocked ones, the shares, the
   * channel's agents, the last note shown and the last `vault_result` (never a secret). */
  vault: {
    open: boolean;
    sources: { name: string; kind: string; state: string; reason?: string }[];
    items: string[];
    shares: { item: string; agents: string[]; origins?: string[] }[];
    agents: string[];
    note: { text: string; error: boolean } | null;
    lastResult: { item: string; ok: boolean; message: string } | null;
  };
  /** The `<select>` (or `<input>` suggestions or picker) popup drawn over the view now, if any. */
  selectPopup: { id: string; target_id: string; kind: string; labels: string[]; value: string | null } | null;
  /** The CSS cursor the page shows under the person's pointer. */
  cursor: string;
  /** The context menu drawn over the view now, if any (its items' labels). */
  contextMenu: { id: string; target_id: string; link: string | null; image: string | null; items: string[] } | null;
  /** The image "Copy image" last put on the local clipboard (PNG). */
  lastClipboardImage: { width: number; height: number; bytes: number } | null;
  send(msg: ClientMessage): boolean;
}

/**
 * `<porthole-pane channel="…" api="http://127.0.0.1:7878" token="…">`: one channel's browser,
 * live. Attributes: `channel`, `token` (owner token), `api` (daemon base URL; default the
 * page's origin, which must then be the daemon, or be listed in `server.allowed_origins`).
 */
export declare class PortholePane extends HTMLElement {
  static readonly observedAttributes: string[];
  readonly state: PaneState;
  /** Sends one message on the pane's WebSocket; false when it is not open. */
  send(msg: ClientMessage): boolean;
  /** Asks for the channel's browser again (in `mode` if given). */
  start(mode?: 'docker' | 'host' | 'local'): void;
  /** Skips the reconnect backoff. */
  reconnect(): void;
  /** Prints the watched tab to PDF; it arrives as a download to save. */
  printPage(): boolean;
  /** Puts keyboard focus on the remote screen. */
  focusScreen(): void;
  /** Shows a notice in the pane's status line. */
  notify(text: string, kind: 'info' | 'progress' | 'error'): void;
  addEventListener<K extends keyof PortholePaneEventMap>(
    type: K,
    listener: (this: PortholePane, ev: PortholePaneEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void;
}

export interface PortholePaneEventMap extends HTMLElementEventMap {
  /** Every JSON message from the daemon, after the pane has handled it. */
  'porthole-message': CustomEvent<PaneMessage>;
  /** The WebSocket's state changed. */
  'porthole-connection': CustomEvent<{ state: ConnectionState; detail: string }>;
  /** The channel name in the status line was clicked (the panel shows its channel picker). */
  'porthole-pick-channel': CustomEvent<{ channel: string | null }>;
}

declare global {
  interface HTMLElementTagNameMap {
    'porthole-pane': PortholePane;
  }
}
