// Generated from the daemon's OpenAPI document (GET /api/openapi.json, components
// PaneMessage and ClientMessage) by tests/src/typescript.rs. Do not edit by hand:
// PORTHOLE_UPDATE_TYPES=1 cargo test -p porthole-tests --test it -- pane_types
//
// The pane WebSocket (`GET /api/ws/browser`): JSON text messages both ways, and binary
// messages from the daemon, each one JPEG frame.

/** A JSON message to a pane. */
export type PaneMessage =
  | PaneStarted
  | PaneStopped
  | PaneTabs
  | PaneTabSwitched
  | PaneTabCreated
  | PaneTabClosed
  | PanePageInfo
  | PaneViewport
  | PaneClipboard
  | PaneProgress
  | PaneError
  | PaneAgentActivity
  | PaneControl
  | PaneVaultLocked
  | PaneVaultResult
  | PaneHandoff
  | PaneHandoffEnded
  | PaneDialog
  | PaneDialogClosed
  | PaneSelectPopup
  | PaneSelectPopupClosed
  | PaneCursor
  | PaneFindResult
  | PaneFileChooser
  | PaneFileChooserClosed
  | PaneAuthPrompt
  | PaneAuthPromptClosed
  | PaneApproval
  | PaneApprovalClosed
  | PaneDownload
  | PaneContextMenu
  | PaneImageCopy
  | PaneTimelineEvent;
/** The `PaneMessage` whose `type` is `T`. */
export type PaneMessageOf<T extends PaneMessage["type"]> = Extract<PaneMessage, { type: T }>;

/** The channel's browser is ready. */
export interface PaneStarted {
  type: "started";
  channel_id: string;
  mode: Mode;
}

/** The channel's browser stopped (pane asked, idle stop, crash, daemon shutdown). */
export interface PaneStopped {
  type: "stopped";
  channel_id: string;
  reason: string;
}

/** The whole tab list, in order. */
export interface PaneTabs {
  type: "tabs";
  active_target_id?: string | null;
  tabs: TabInfo[];
}

export interface PaneTabSwitched {
  type: "tab_switched";
  target_id: string;
}

export interface PaneTabCreated {
  type: "tab_created";
  /** The tab whose page opened it (a link with `target=_blank`, `window.open`). */
  opener_id?: string | null;
  target_id: string;
  title: string;
  url: string;
}

export interface PaneTabClosed {
  type: "tab_closed";
  target_id: string;
}

/** URL and title of the tab the pane watches. */
export interface PanePageInfo {
  type: "page_info";
  /** The tab they belong to. */
  target_id?: string | null;
  title: string;
  url: string;
}

/** The page viewport in CSS pixels (the size of the frames). */
export interface PaneViewport {
  type: "viewport";
  height: number;
  width: number;
}

/** Text the pane should put on the user's clipboard (reply to `copy` / `cut`). */
export interface PaneClipboard {
  type: "clipboard";
  text: string;
}

/** A step of slow work (browser start, image build). */
export interface PaneProgress {
  type: "progress";
  message: string;
  stage: string;
}

/** Something failed; the connection stays up. */
export interface PaneError {
  type: "error";
  code: string;
  message: string;
}

/** An agent's tool call began (`phase: "start"`) or ended (`"end"`, with `ok`). */
export interface PaneAgentActivity {
  type: "agent_activity";
  agent_id: string;
  name: string;
  ok?: boolean | null;
  phase: ActivityPhase;
  /** The tab the agent acts in (null before its first tab exists). */
  target_id?: string | null;
  tool: string;
}

/** Who may act now: `human` (taken over, stopped, or a handoff open) or `agents`. */
export interface PaneControl {
  type: "control";
  holder: Holder;
  /** When control goes back to the agents by itself (Unix ms), if it does. */
  until?: number | null;
}

/** A vault fill met a locked source (DESIGN.md §19): the person can unlock it here. */
export interface PaneVaultLocked {
  type: "vault_locked";
  source: string;
}

/**
 * The answer to this pane's `vault_fill`: what was filled and where, or why nothing was
 * (never a value).
 */
export interface PaneVaultResult {
  type: "vault_result";
  item: string;
  message: string;
  ok: boolean;
}

/** An agent asks the person for help (MCP `request_human`); answered by `handoff_done`. */
export interface PaneHandoff {
  type: "handoff";
  agent_id: string;
  id: string;
  name: string;
  reason: string;
  target_id?: string | null;
}

/** A handoff is over (`done`, `timeout`, `cancelled`): panes close its prompt. */
export interface PaneHandoffEnded {
  type: "handoff_ended";
  id: string;
  outcome: string;
}

/**
 * A page opened a JavaScript dialog; nobody answers it but a person (`dialog_answer`)
 * or an agent (`handle_dialog`).
 */
export interface PaneDialog {
  type: "dialog";
  default_prompt?: string | null;
  kind: DialogKind;
  message: string;
  target_id: string;
}

/** The dialog of a tab was answered (by anyone) or went away. */
export interface PaneDialogClosed {
  type: "dialog_closed";
  target_id: string;
}

/**
 * A `<select>` popup opened in a tab (Chrome's frames never show it): the pane draws the
 * options over the view at `rect` (CSS px) and answers `select_answer`.
 */
export interface PaneSelectPopup {
  type: "select_popup";
  id: string;
  /**
   * `select`, or the `<input>` whose popup this is: `datalist` (its suggestions as
   * `options`; sent again under the same id as they change), or a picker (`date`,
   * `time`, `datetime-local`, `month`, `week`, `color`: no options, the pane draws a
   * real input of that kind and answers `select_answer {id, value}`).
   */
  kind: PopupKind;
  max?: string | null;
  /** The input's `min`, `max` and `step` attributes as written, where set. */
  min?: string | null;
  multiple: boolean;
  options: SelectOption[];
  rect: PopupRect;
  /** Indices (into `options`) selected now (a datalist's highlighted suggestion). */
  selected: number[];
  step?: string | null;
  target_id: string;
  /** The input's value now (not for `select`). */
  value?: string | null;
}

/** A select popup closed (answered, or by a key or the page): the pane removes its list. */
export interface PaneSelectPopupClosed {
  type: "select_popup_closed";
  id: string;
  target_id: string;
}

/** The mouse cursor over the page under the person's pointer changed (a CSS cursor name). */
export interface PaneCursor {
  type: "cursor";
  cursor: string;
  target_id: string;
}

/** Answer to `find`: the current match (from 1; 0 when none) of `count` in the tab. */
export interface PaneFindResult {
  type: "find_result";
  count: number;
  index: number;
  query: string;
  target_id: string;
}

/**
 * A page in a tab of the person's opened a file chooser (a file input); answered by
 * `file_chooser_answer` with the files or `cancel`.
 */
export interface PaneFileChooser {
  type: "file_chooser";
  /** The input's `accept` attribute as written (`""` when it has none). */
  accept: string;
  id: string;
  multiple: boolean;
  target_id: string;
}

/** A file chooser was answered (by any pane) or went away with its page: panes close it. */
export interface PaneFileChooserClosed {
  type: "file_chooser_closed";
  id: string;
}

/**
 * A page asks for HTTP authentication (`401`/`407` with a challenge); answered by
 * `auth_answer`. Cancelled after 60 s while no pane is attached.
 */
export interface PaneAuthPrompt {
  type: "auth_prompt";
  id: string;
  origin: string;
  realm: string;
  /** `basic`, `digest`, `ntlm`, `negotiate` … as the server named it. */
  scheme: string;
  target_id: string;
  url: string;
}

/** An authentication prompt was answered, cancelled or went away: panes close it. */
export interface PaneAuthPromptClosed {
  type: "auth_prompt_closed";
  id: string;
}

/**
 * An agent's act waits for the person (DESIGN.md §20): only a pane answers, with
 * `approval_answer`. `kind`: submit, new_site, upload, download, evaluate, login;
 * `detail`: the method, URL and call; the script; the file names; the item.
 */
export interface PaneApproval {
  type: "approval";
  agent_id: string;
  /** What a held request sends (its first 4096 bytes as text), when the browser said. */
  body?: string | null;
  /** The whole body's size in bytes, beside `body`. */
  body_size?: number | null;
  detail: string;
  id: string;
  kind: ApprovalKind;
  name: string;
  target_id: string;
  url: string;
}

/**
 * An approval ended: `outcome` allowed, allowed_on_site, declined, timed_out,
 * unwatched or gone; `by` person, timeout or porthole. Panes close its card.
 */
export interface PaneApprovalClosed {
  type: "approval_closed";
  by: string;
  id: string;
  outcome: string;
}

/**
 * A download from one of the person's tabs (or a `print`): began, moved on (at most 4 a
 * second), or ended. A completed one's bytes: `GET
 * /api/browser/channels/{channel}/downloads/{id}`.
 */
export interface PaneDownload {
  type: "download";
  id: string;
  name: string;
  received_bytes: number;
  state: DownloadPhase;
  target_id: string;
  /** When the server said. */
  total_bytes?: number | null;
}

/**
 * The person right-clicked in a tab and the page left the menu to the browser: the pane
 * offers what fits at (`x`, `y`) (CSS px of the tab's viewport): open `link` in a new tab
 * (`new_tab {url}`), copy `link` / `selection` / `image` (its address, or its pixels with
 * `copy_image {id}`).
 */
export interface PaneContextMenu {
  type: "context_menu";
  id: string;
  /** The address of the image under the point (left out past 8 KiB, a long `data:` URL). */
  image?: string | null;
  /** The address of the link under the point. */
  link?: string | null;
  /** The link's text (at most 200 characters). */
  link_text?: string | null;
  /** The selected text (at most 10 000 characters shown; `copy` copies it all). */
  selection?: string | null;
  target_id: string;
  x: number;
  y: number;
}

/** Answer to `copy_image`: the context menu's image as PNG, for the person's clipboard. */
export interface PaneImageCopy {
  type: "image_copy";
  height: number;
  id: string;
  /** PNG bytes, base64 (at most 16 MiB before encoding). */
  png: string;
  width: number;
}

/**
 * An event was added to the channel's timeline (DESIGN.md §17); its fields are the
 * event's own.
 */
export type PaneTimelineEvent = TimelineEvent & {
  type: "timeline_event";
};

/** One JSON message from a pane. */
export type ClientMessage =
  | ClientStart
  | ClientScreencast
  | ClientStop
  | ClientInput
  | ClientNavigate
  | ClientBack
  | ClientForward
  | ClientReload
  | ClientNewTab
  | ClientSwitchTab
  | ClientCloseTab
  | ClientGiveTab
  | ClientTakeover
  | ClientRelease
  | ClientStopAgents
  | ClientHandoffDone
  | ClientDialogAnswer
  | ClientFollowAgents
  | ClientFind
  | ClientSelectAnswer
  | ClientPrint
  | ClientFileChooserAnswer
  | ClientDropFiles
  | ClientAuthAnswer
  | ClientApprovalAnswer
  | ClientZoom
  | ClientCopyImage
  | ClientVaultFill;
/** The `ClientMessage` whose `type` is `T`. */
export type ClientMessageOf<T extends ClientMessage["type"]> = Extract<ClientMessage, { type: T }>;

/** Attach to a channel's browser, starting it if needed; answered by `started` + `tabs`. */
export interface ClientStart {
  type: "start";
  channel_id: string;
  height?: number | null;
  mode?: null | Mode;
  width?: number | null;
}

/** Start receiving frames (binary messages), sized to the pane. */
export interface ClientScreencast {
  type: "screencast";
  height?: number | null;
  quality?: number | null;
  /**
   * Device pixels per CSS pixel (1–3, default 1): the page's `devicePixelRatio`; frames
   * carry `width·scale`×`height·scale` pixels while coordinates stay CSS px.
   */
  scale?: number | null;
  width?: number | null;
}

/** Stop the channel's browser (host mode: forget the session); answered by `stopped`. */
export interface ClientStop {
  type: "stop";
  channel_id: string;
}

/** Mouse, wheel, keyboard and clipboard input. */
export type ClientInput = InputEvent & {
  type: "input";
};

export interface ClientNavigate {
  type: "navigate";
  url: string;
}

export interface ClientBack {
  type: "back";
}

export interface ClientForward {
  type: "forward";
}

export interface ClientReload {
  type: "reload";
}

export interface ClientNewTab {
  type: "new_tab";
  url?: string | null;
}

export interface ClientSwitchTab {
  type: "switch_tab";
  target_id: string;
}

export interface ClientCloseTab {
  type: "close_tab";
  target_id: string;
}

/** Hand one of the person's tabs to an agent of this channel (the agent goes on there). */
export interface ClientGiveTab {
  type: "give_tab";
  agent_id: string;
  target_id: string;
}

/** The person takes control: agents' changing tools are refused until `release`. */
export interface ClientTakeover {
  type: "takeover";
}

/** Gives control back to the agents. */
export interface ClientRelease {
  type: "release";
}

/** Cancels every agent call in flight and refuses agents for `agents.stop_secs`. */
export interface ClientStopAgents {
  type: "stop_agents";
}

/** The person is done with a handoff (`request_human`); `note` goes to the agent. */
export interface ClientHandoffDone {
  type: "handoff_done";
  id: string;
  note?: string | null;
}

/** Answers the open JavaScript dialog of a tab. */
export interface ClientDialogAnswer {
  type: "dialog_answer";
  accept: boolean;
  target_id: string;
  text?: string | null;
}

/** Whether the pane's view follows the tab an agent acts in (default on). */
export interface ClientFollowAgents {
  type: "follow_agents";
  on: boolean;
}

/**
 * Finds `query` in the page the pane watches (answered by `find_result`); the same query
 * again goes to the next match (`backwards`: the previous); an empty query clears.
 */
export interface ClientFind {
  type: "find";
  backwards?: boolean;
  query: string;
}

/**
 * Answers a `select_popup`: one option `index`, several `indices` (a multiple select), a
 * `value` (a datalist's text; a picker's date, time or colour as its input writes it),
 * or `cancel: true` (closes it, changing nothing).
 */
export interface ClientSelectAnswer {
  type: "select_answer";
  cancel?: boolean;
  id: string;
  index?: number | null;
  indices?: number[] | null;
  value?: string | null;
}

/** Prints the watched tab to PDF, kept as a download (`download` messages follow). */
export interface ClientPrint {
  type: "print";
}

/**
 * Answers a `file_chooser`: the files (at most `browser.pane_upload_max_mb` in all), or
 * `cancel: true`.
 */
export interface ClientFileChooserAnswer {
  type: "file_chooser_answer";
  cancel?: boolean;
  files?: PaneFile[];
  id: string;
}

/**
 * Files dropped from the person's desktop at (`x`, `y`) (CSS px of the watched tab's
 * viewport): they reach the page's drop target as a real drag and drop.
 */
export interface ClientDropFiles {
  type: "drop_files";
  files: PaneFile[];
  x: number;
  y: number;
}

/** Answers an `auth_prompt` with a user name and password, or `cancel: true`. */
export interface ClientAuthAnswer {
  type: "auth_answer";
  cancel?: boolean;
  id: string;
  password?: null | Secret;
  username?: string | null;
}

/**
 * Answers an `approval` (DESIGN.md §20): `allow`, and with `remember: "site"` that kind
 * on that site for that agent until the daemon stops (default `once`). Only a pane can.
 */
export interface ClientApprovalAnswer {
  type: "approval_answer";
  allow: boolean;
  id: string;
  remember?: Remember;
}

/**
 * Zooms the watched tab's page like Chrome's Ctrl +/-: `factor` 0.25–5 (1 is 100 %); the
 * page lays out at the pane's size / `factor` CSS px with `devicePixelRatio` × `factor`,
 * while frames and input coordinates stay in the pane's px.
 */
export interface ClientZoom {
  type: "zoom";
  factor: number;
}

/** Asks for the image of `context_menu` `id` as PNG (answered by `image_copy` or `error`). */
export interface ClientCopyImage {
  type: "copy_image";
  id: string;
}

/**
 * The person fills `item` of her vault (`<source>/<path>`) into the watched tab (or tab
 * `target_id`), DESIGN.md §19: only into fields whose frame is of the item's origins.
 * Answered by `vault_result` (after `vault_locked` when its source is locked).
 */
export interface ClientVaultFill {
  type: "vault_fill";
  item: string;
  target_id?: string | null;
}

/** `agent_activity.phase`. */
export type ActivityPhase = "start" | "end";

/** One kind of act the person may be asked about. */
export type ApprovalKind = "submit" | "new_site" | "upload" | "download" | "evaluate" | "login";

/** `dialog.kind`, as Chrome names JavaScript dialogs. */
export type DialogKind = "alert" | "confirm" | "prompt" | "beforeunload";

/** `download.state`. */
export type DownloadPhase = "started" | "progress" | "completed" | "canceled" | "failed";

/** Who did it. */
export type EventActor =
  | EventActorAgent
  | EventActorHuman
  | EventActorPage;
/** The `EventActor` whose `kind` is `T`. */
export type EventActorOf<T extends EventActor["kind"]> = Extract<EventActor, { kind: T }>;

/** An agent (or the owner token, as agent `owner`) through an MCP tool. */
export interface EventActorAgent {
  kind: "agent";
  agent_id: string;
  name: string;
}

/** The person at a pane. */
export interface EventActorHuman {
  kind: "human";
}

/** The page or the browser on its own. */
export interface EventActorPage {
  kind: "page";
}

/** What happened. */
export type EventKind = "tool" | "human" | "navigation" | "tab_opened" | "tab_closed" | "dialog" | "auth_prompt" | "file_chooser" | "download" | "handoff" | "approval" | "control" | "mode" | "browser_gone" | "vault" | "frame";

/** `control.holder`. */
export type Holder = "human" | "agents";

/** One input event from a pane (`{"type":"input","input_type":…}`). */
export type InputEvent =
  | InputClick
  | InputMousedown
  | InputMouseup
  | InputMousemove
  | InputScroll
  | InputKeydown
  | InputKeyup
  | InputKeypress
  | InputTypetext
  | InputPaste
  | InputCopy
  | InputCut
  | InputComposition;
/** The `InputEvent` whose `input_type` is `T`. */
export type InputEventOf<T extends InputEvent["input_type"]> = Extract<InputEvent, { input_type: T }>;

export interface InputClick {
  input_type: "click";
  button?: MouseButton;
  click_count?: number;
  modifiers?: number;
  x: number;
  y: number;
}

export interface InputMousedown {
  input_type: "mousedown";
  button?: MouseButton;
  click_count?: number;
  modifiers?: number;
  x: number;
  y: number;
}

export interface InputMouseup {
  input_type: "mouseup";
  button?: MouseButton;
  click_count?: number;
  modifiers?: number;
  x: number;
  y: number;
}

export interface InputMousemove {
  input_type: "mousemove";
  /** The button held while moving (`none` when just hovering). */
  button?: MouseButton;
  modifiers?: number;
  x: number;
  y: number;
}

export interface InputScroll {
  input_type: "scroll";
  delta_x?: number;
  delta_y?: number;
  modifiers?: number;
  x: number;
  y: number;
}

export interface InputKeydown {
  input_type: "keydown";
  code?: string;
  key: string;
  modifiers?: number;
}

export interface InputKeyup {
  input_type: "keyup";
  code?: string;
  key: string;
  modifiers?: number;
}

export interface InputKeypress {
  input_type: "keypress";
  code?: string;
  key: string;
  modifiers?: number;
}

export interface InputTypetext {
  input_type: "typetext";
  text: string;
}

export interface InputPaste {
  input_type: "paste";
  text: string;
}

export interface InputCopy {
  input_type: "copy";
}

export interface InputCut {
  input_type: "cut";
  modifiers?: number;
}

/**
 * An IME draft (`Input.imeSetComposition`): shown underlined in the focused field until
 * `typetext` commits it (or an empty `text` cancels it). The selection is in UTF-16 code
 * units of `text`; both default to its end.
 */
export interface InputComposition {
  input_type: "composition";
  selection_end?: number | null;
  selection_start?: number | null;
  text: string;
}

/** Who runs a channel's browser. */
export type Mode = "docker" | "host" | "local";

/** A mouse button. */
export type MouseButton = "left" | "middle" | "right" | "none";

/** A file the person hands the page. */
export interface PaneFile {
  /** Its bytes, base64. */
  data: string;
  /** The file's name (no directories). */
  name: string;
  /** Its MIME type (may be empty). */
  type?: string;
}

/** What kind of popup a `select_popup` is. */
export type PopupKind = "select" | "datalist" | "date" | "time" | "datetime-local" | "month" | "week" | "color";

/** Where the select sits, in CSS px of the tab's viewport. */
export interface PopupRect {
  height: number;
  width: number;
  x: number;
  y: number;
}

/** How far an allow reaches. */
export type Remember = "once" | "site";

/** A password from a pane: kept out of every `Debug` print (and so out of logs). */
export type Secret = string;

/** One option of a select popup, in the select's order (indices count these, from 0). */
export interface SelectOption {
  disabled: boolean;
  /** The label of the `<optgroup>` it is in, if any. */
  group?: string | null;
  label: string;
  value: string;
}

/** One tab as panes see it. */
export interface TabInfo {
  /** `"human"` or the owning agent's id (`owner` for the owner token). */
  owner: string;
  /** `"human"` or the owning agent's name. */
  owner_name: string;
  target_id: string;
  title: string;
  url: string;
}

/** One event of a channel's timeline. */
export interface TimelineEvent {
  /**
   * `human`: `click`, `scroll`, `keys`, `paste`, `copy`; `control`: `takeover`,
   * `release`, `stop_agents`.
   */
  action?: string | null;
  actor: EventActor;
  /** RFC 3339, UTC, milliseconds. */
  at: string;
  /** The JPEG kept with the event (`GET …/timeline/frames/{frame_id}`). */
  frame_id?: string | null;
  kind: EventKind;
  /** `tool`: how long it took. */
  ms?: number | null;
  /** `tool`: whether it succeeded. */
  ok?: boolean | null;
  /** Increases by one per event of the channel. */
  seq: number;
  /** One line saying what happened (never typed text, only its length). */
  summary?: string | null;
  target_id?: string | null;
  /** `tool`: the tool's name. */
  tool?: string | null;
  url?: string | null;
}
