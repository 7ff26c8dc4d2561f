//! Messages from the daemon to panes (DESIGN.md §6, "Daemon → client", JSON text).
//!
//! A `BrowserSession` broadcasts them to every pane of its channel; the WebSocket layer adds
//! its own replies (`started`, `clipboard`, `error`) of the same type. Binary frames are not
//! here: they travel through the screencast hub.

use serde::{Deserialize, Serialize};

use crate::mode::Mode;

/// One tab as panes see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct TabInfo {
    pub target_id: String,
    pub url: String,
    pub title: String,
    /// `"human"` or the owning agent's id (`owner` for the owner token).
    pub owner: String,
    /// `"human"` or the owning agent's name.
    pub owner_name: String,
}

/// A JSON message to a pane.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PaneMessage {
    /// The channel's browser is ready.
    Started {
        channel_id: String,
        mode: Mode,
    },
    /// The channel's browser stopped (pane asked, idle stop, crash, daemon shutdown).
    Stopped {
        channel_id: String,
        reason: String,
    },
    /// The whole tab list, in order.
    Tabs {
        tabs: Vec<TabInfo>,
        active_target_id: Option<String>,
    },
    TabSwitched {
        target_id: String,
    },
    TabCreated {
        target_id: String,
        url: String,
        title: String,
        /// The tab whose page opened it (a link with `target=_blank`, `window.open`).
        #[serde(skip_serializing_if = "Option::is_none")]
        opener_id: Option<String>,
    },
    TabClosed {
        target_id: String,
    },
    /// URL and title of the tab the pane watches.
    PageInfo {
        /// The tab they belong to.
        #[serde(skip_serializing_if = "Option::is_none")]
        target_id: Option<String>,
        url: String,
        title: String,
    },
    /// The page viewport in CSS pixels (the size of the frames).
    Viewport {
        width: u32,
        height: u32,
    },
    /// Text the pane should put on the user's clipboard (reply to `copy` / `cut`).
    Clipboard {
        text: String,
    },
    /// A step of slow work (browser start, image build).
    Progress {
        stage: String,
        message: String,
    },
    /// Something failed; the connection stays up.
    Error {
        code: String,
        message: String,
    },
    /// An agent's tool call began (`phase: "start"`) or ended (`"end"`, with `ok`).
    AgentActivity {
        agent_id: String,
        name: String,
        tool: String,
        /// The tab the agent acts in (null before its first tab exists).
        target_id: Option<String>,
        phase: ActivityPhase,
        #[serde(skip_serializing_if = "Option::is_none")]
        ok: Option<bool>,
    },
    /// Who may act now: `human` (taken over, stopped, or a handoff open) or `agents`.
    Control {
        holder: Holder,
        /// When control goes back to the agents by itself (Unix ms), if it does.
        #[serde(skip_serializing_if = "Option::is_none")]
        until: Option<u64>,
    },
    /// A vault fill met a locked source (DESIGN.md §19): the person can unlock it here.
    VaultLocked {
        source: String,
    },
    /// The answer to this pane's `vault_fill`: what was filled and where, or why nothing was
    /// (never a value).
    VaultResult {
        item: String,
        ok: bool,
        message: String,
    },
    /// An agent asks the person for help (MCP `request_human`); answered by `handoff_done`.
    Handoff {
        id: String,
        agent_id: String,
        name: String,
        reason: String,
        target_id: Option<String>,
    },
    /// A handoff is over (`done`, `timeout`, `cancelled`): panes close its prompt.
    HandoffEnded {
        id: String,
        outcome: String,
    },
    /// A page opened a JavaScript dialog; nobody answers it but a person (`dialog_answer`)
    /// or an agent (`handle_dialog`).
    Dialog {
        target_id: String,
        kind: DialogKind,
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        default_prompt: Option<String>,
    },
    /// The dialog of a tab was answered (by anyone) or went away.
    DialogClosed {
        target_id: String,
    },
    /// A `<select>` popup opened in a tab (Chrome's frames never show it): the pane draws the
    /// options over the view at `rect` (CSS px) and answers `select_answer`.
    // Boxed strings on purpose (see `min`); clippy asks for that only of a crate-private type.
    #[allow(clippy::box_collection)]
    SelectPopup {
        id: String,
        target_id: String,
        rect: PopupRect,
        options: Vec<SelectOption>,
        /// Indices (into `options`) selected now (a datalist's highlighted suggestion).
        selected: Vec<u32>,
        multiple: bool,
        /// `select`, or the `<input>` whose popup this is: `datalist` (its suggestions as
        /// `options`; sent again under the same id as they change), or a picker (`date`,
        /// `time`, `datetime-local`, `month`, `week`, `color`: no options, the pane draws a
        /// real input of that kind and answers `select_answer {id, value}`).
        kind: PopupKind,
        /// The input's value now (not for `select`).
        #[serde(skip_serializing_if = "Option::is_none")]
        value: Option<String>,
        // Boxed: rare, and every notice is as large as its largest kind.
        /// The input's `min`, `max` and `step` attributes as written, where set.
        #[serde(skip_serializing_if = "Option::is_none")]
        min: Option<Box<String>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        max: Option<Box<String>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        step: Option<Box<String>>,
    },
    /// A select popup closed (answered, or by a key or the page): the pane removes its list.
    SelectPopupClosed {
        id: String,
        target_id: String,
    },
    /// The mouse cursor over the page under the person's pointer changed (a CSS cursor name).
    Cursor {
        target_id: String,
        cursor: String,
    },
    /// Answer to `find`: the current match (from 1; 0 when none) of `count` in the tab.
    FindResult {
        target_id: String,
        query: String,
        index: u32,
        count: u32,
    },
    /// A page in a tab of the person's opened a file chooser (a file input); answered by
    /// `file_chooser_answer` with the files or `cancel`.
    FileChooser {
        id: String,
        target_id: String,
        multiple: bool,
        /// The input's `accept` attribute as written (`""` when it has none).
        accept: String,
    },
    /// A file chooser was answered (by any pane) or went away with its page: panes close it.
    FileChooserClosed {
        id: String,
    },
    /// A page asks for HTTP authentication (`401`/`407` with a challenge); answered by
    /// `auth_answer`. Cancelled after 60 s while no pane is attached.
    AuthPrompt {
        id: String,
        target_id: String,
        url: String,
        origin: String,
        realm: String,
        /// `basic`, `digest`, `ntlm`, `negotiate` … as the server named it.
        scheme: String,
    },
    /// An authentication prompt was answered, cancelled or went away: panes close it.
    AuthPromptClosed {
        id: String,
    },
    /// An agent's act waits for the person (DESIGN.md §20): only a pane answers, with
    /// `approval_answer`. `kind`: submit, new_site, upload, download, evaluate, login;
    /// `detail`: the method, URL and call; the script; the file names; the item.
    Approval {
        id: String,
        agent_id: String,
        name: String,
        kind: crate::approvals::ApprovalKind,
        target_id: String,
        url: String,
        detail: String,
        /// What a held request sends (its first 4096 bytes as text), when the browser said.
        #[serde(skip_serializing_if = "Option::is_none")]
        body: Option<String>,
        /// The whole body's size in bytes, beside `body`.
        #[serde(skip_serializing_if = "Option::is_none")]
        body_size: Option<u64>,
    },
    /// An approval ended: `outcome` allowed, allowed_on_site, declined, timed_out,
    /// unwatched or gone; `by` person, timeout or porthole. Panes close its card.
    ApprovalClosed {
        id: String,
        outcome: String,
        by: String,
    },
    /// A download from one of the person's tabs (or a `print`): began, moved on (at most 4 a
    /// second), or ended. A completed one's bytes: `GET
    /// /api/browser/channels/{channel}/downloads/{id}`.
    Download {
        id: String,
        target_id: String,
        name: String,
        state: DownloadPhase,
        received_bytes: u64,
        /// When the server said.
        #[serde(skip_serializing_if = "Option::is_none")]
        total_bytes: Option<u64>,
    },
    /// The person right-clicked in a tab and the page left the menu to the browser: the pane
    /// offers what fits at (`x`, `y`) (CSS px of the tab's viewport): open `link` in a new tab
    /// (`new_tab {url}`), copy `link` / `selection` / `image` (its address, or its pixels with
    /// `copy_image {id}`).
    ContextMenu {
        id: String,
        target_id: String,
        x: f64,
        y: f64,
        /// The address of the link under the point.
        #[serde(skip_serializing_if = "Option::is_none")]
        link: Option<String>,
        /// The link's text (at most 200 characters).
        #[serde(skip_serializing_if = "Option::is_none")]
        link_text: Option<String>,
        /// The address of the image under the point (left out past 8 KiB, a long `data:` URL).
        #[serde(skip_serializing_if = "Option::is_none")]
        image: Option<String>,
        /// The selected text (at most 10 000 characters shown; `copy` copies it all).
        #[serde(skip_serializing_if = "Option::is_none")]
        selection: Option<String>,
    },
    /// Answer to `copy_image`: the context menu's image as PNG, for the person's clipboard.
    ImageCopy {
        id: String,
        /// PNG bytes, base64 (at most 16 MiB before encoding).
        png: String,
        width: u32,
        height: u32,
    },
    /// An event was added to the channel's timeline (DESIGN.md §17); its fields are the
    /// event's own.
    TimelineEvent(Box<crate::timeline_event::TimelineEvent>),
    /// Several `timeline_event` messages written to the timeline together, handed to the
    /// panes as one notice (a busy agent's held calls: one wake of each pane's writer, not one
    /// per event); each pane is sent them one by one. Never serialized itself.
    #[serde(skip)]
    #[schema(ignore)]
    TimelineEvents(std::sync::Arc<[PaneMessage]>),
}

/// `download.state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DownloadPhase {
    Started,
    Progress,
    Completed,
    Canceled,
    Failed,
}

/// `agent_activity.phase`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ActivityPhase {
    Start,
    End,
}

/// `control.holder`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Holder {
    Human,
    Agents,
}

/// `dialog.kind`, as Chrome names JavaScript dialogs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DialogKind {
    Alert,
    Confirm,
    Prompt,
    Beforeunload,
}

impl DialogKind {
    /// From `Page.javascriptDialogOpening.type`.
    pub fn from_cdp(kind: &str) -> Self {
        match kind {
            "confirm" => DialogKind::Confirm,
            "prompt" => DialogKind::Prompt,
            "beforeunload" => DialogKind::Beforeunload,
            _ => DialogKind::Alert,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DialogKind::Alert => "alert",
            DialogKind::Confirm => "confirm",
            DialogKind::Prompt => "prompt",
            DialogKind::Beforeunload => "beforeunload",
        }
    }
}

impl PaneMessage {
    pub fn error(code: &str, message: impl Into<String>) -> Self {
        PaneMessage::Error {
            code: code.to_string(),
            message: message.into(),
        }
    }

    /// Whether `/api/events` carries it too (see `reach::KINDS`): what needs the person, and
    /// what closes it.
    pub fn for_the_person(&self) -> bool {
        matches!(
            self,
            PaneMessage::Approval { .. }
                | PaneMessage::ApprovalClosed { .. }
                | PaneMessage::Handoff { .. }
                | PaneMessage::HandoffEnded { .. }
                | PaneMessage::VaultLocked { .. }
                | PaneMessage::AuthPrompt { .. }
                | PaneMessage::AuthPromptClosed { .. }
        )
    }

    /// The JSON text sent on the wire.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("pane messages always serialize")
    }
}

/// Where the select sits, in CSS px of the tab's viewport.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PopupRect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// One option of a select popup, in the select's order (indices count these, from 0).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SelectOption {
    pub label: String,
    pub value: String,
    pub disabled: bool,
    /// The label of the `<optgroup>` it is in, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// What kind of popup a `select_popup` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PopupKind {
    /// A `<select>`: answered by `index`/`indices`.
    Select,
    /// An `<input list>`'s suggestions: answered by `index` (into `options`) or any `value`.
    Datalist,
    Date,
    Time,
    DatetimeLocal,
    Month,
    Week,
    Color,
}
