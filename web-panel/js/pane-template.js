// @ts-check
/**
 * pane-template.js — the markup of <porthole-pane>'s shadow root (porthole-pane.js wires it):
 * toolbar (with the vault's key button and a `toolbar` slot for the embedder's buttons), tab strip, agent bar, handoff
 * banner, stage (canvas, paste sink, overlay, page-dialog card) and status line. Ids are
 * scoped to the shadow root, so several panes may share a page.
 */

/**
 * @param {string} stylesheet  URL of pane.css
 * @returns {string}
 */
export function paneTemplate(stylesheet) {
  return `
<link rel="stylesheet" href="${stylesheet}">
<div class="pane" part="pane">
  <header class="toolbar" part="toolbar">
    <button id="back" class="icon-btn" type="button" title="Back" aria-label="Back">
      <svg viewBox="0 0 16 16" aria-hidden="true"><path d="M10 3 5 8l5 5"/></svg>
    </button>
    <button id="forward" class="icon-btn" type="button" title="Forward" aria-label="Forward">
      <svg viewBox="0 0 16 16" aria-hidden="true"><path d="m6 3 5 5-5 5"/></svg>
    </button>
    <button id="reload" class="icon-btn" type="button" title="Reload" aria-label="Reload">
      <svg viewBox="0 0 16 16" aria-hidden="true"><path d="M13 8a5 5 0 1 1-1.5-3.6M13 2.5V5h-2.5"/></svg>
    </button>
    <input id="url" class="url" type="text" inputmode="url" spellcheck="false" autocomplete="off"
           autocapitalize="off" placeholder="Enter an address" aria-label="Address">
    <button id="vault-toggle" class="icon-btn" type="button" title="Vault: sign-ins, sharing, unlock" aria-label="Vault" aria-expanded="false" aria-controls="vault">
      <svg viewBox="0 0 16 16" aria-hidden="true"><circle cx="5" cy="8" r="2.5"/><path d="M7.5 8H14M12 8v2.5M14 8v2"/></svg>
    </button>
    <slot name="toolbar"></slot>
    <button id="mode-pill" class="pill" type="button" hidden></button>
  </header>

  <nav class="tabstrip" aria-label="Tabs">
    <div id="tabs" class="tabs" role="tablist"></div>
    <button id="new-tab" class="icon-btn" type="button" title="New tab" aria-label="New tab">
      <svg viewBox="0 0 16 16" aria-hidden="true"><path d="M8 3v10M3 8h10"/></svg>
    </button>
  </nav>

  <div class="agentbar" part="agentbar">
    <span id="driver" class="driver" role="status" hidden><span class="driver-dot"></span><span id="driver-name"></span></span>
    <span id="control-text" class="control-text" hidden></span>
    <span class="agentbar-gap"></span>
    <label class="follow" title="Move this view to the tab an agent acts in">
      <input id="follow" type="checkbox" checked> Follow agents
    </label>
    <button id="takeover" class="btn small" type="button">Take over</button>
    <button id="stop-agents" class="btn small danger" type="button" title="Cancel what agents are doing and hold them off">Stop agents</button>
  </div>

  <section id="handoff" class="handoff" role="alertdialog" aria-labelledby="handoff-title" hidden>
    <div class="handoff-text">
      <strong id="handoff-title"></strong>
      <span id="handoff-reason"></span>
    </div>
    <input id="handoff-note" class="handoff-note" type="text" placeholder="Note for the agent (optional)" aria-label="Note for the agent">
    <button id="handoff-done" class="btn primary small" type="button">Done</button>
  </section>

  <main id="stage" class="stage">
    <canvas id="screen" tabindex="0" aria-label="Remote browser screen"></canvas>
    <!-- Receives the browser's own paste when the Clipboard API cannot be read (keyboard.js). -->
    <textarea id="paste-sink" class="paste-sink" tabindex="-1" aria-hidden="true"></textarea>

    <div id="overlay" class="overlay">
      <p id="overlay-text">Loading…</p>
      <button id="overlay-action" class="btn" type="button" hidden>Start browser</button>
    </div>

    <section id="dialog" class="page-dialog" role="alertdialog" aria-labelledby="dialog-title" hidden>
      <div class="page-dialog-card">
        <strong id="dialog-title"></strong>
        <p id="dialog-message"></p>
        <input id="dialog-text" type="text" spellcheck="false" aria-label="Answer" hidden>
        <div class="page-dialog-actions">
          <button id="dialog-cancel" class="btn" type="button">Cancel</button>
          <button id="dialog-ok" class="btn primary" type="button">OK</button>
        </div>
      </div>
    </section>
    <!-- The channel's timeline over the bottom of the view (timeline.js); the status line's
         button opens it, so a closed one takes no room from the page. -->
    <section id="timeline" class="timeline" part="timeline" aria-label="Timeline" hidden></section>
  </main>

  <footer id="status" class="status" role="status" part="status">
    <button id="status-conn" class="status-conn" type="button" data-state="idle">idle</button>
    <button id="status-channel" class="status-channel" type="button" title="Switch channel">—</button>
    <span id="status-mode" class="status-mode"></span>
    <span id="status-message" class="status-message" title="Click to dismiss"></span>
    <button id="timeline-toggle" class="status-timeline" type="button" aria-expanded="false" aria-controls="timeline">Timeline</button>
  </footer>
</div>`;
}
