//! What the timeline keeps of an act (DESIGN.md §17): one `tool` event per call (the tool, its
//! tab, ok or not, how long, a summary made from the arguments before the call ran, never a
//! typed value), and one `vault` event per fill or refused fill (the item's title, the origin,
//! the fields; never a value).

use std::sync::Arc;
use std::time::Instant;

use porthole_mcp::ToolOutput;
use serde_json::Value;

use crate::browser::{Actor, BrowserSession};
use crate::timeline::{summary, Timeline, ToolRecord};
use crate::vault::FillRecord;

/// The timeline the calls of one entry point are recorded in.
#[derive(Clone)]
pub(crate) struct Record {
    timeline: Arc<Timeline>,
}

/// One act of the CDP door, for [`Record::door_act`].
pub(crate) struct DoorAct {
    /// `cdp:<Method>`.
    pub(crate) tool: String,
    pub(crate) target_id: Option<String>,
    pub(crate) ok: bool,
    /// How long it took.
    pub(crate) ms: u64,
    /// Made by the door from the command's params; never a typed value.
    pub(crate) summary: String,
    /// Whether a frame of its tab is taken with it (the last act of a client's burst).
    pub(crate) frame: bool,
}

/// A call being recorded: its summary, made before it ran, and when it began.
pub(crate) struct Started {
    summary: String,
    began: Instant,
}

impl Record {
    pub(crate) fn new(timeline: Arc<Timeline>) -> Self {
        Self { timeline }
    }

    /// Starts recording a call of `tool` with `args` (summarised now: the call may consume
    /// them).
    pub(crate) fn start(tool: &str, args: &Value) -> Started {
        Started {
            summary: summary::of_call(tool, args),
            began: Instant::now(),
        }
    }

    /// Records the call's `tool` event.
    pub(crate) fn tool_call(
        &self,
        session: &Arc<BrowserSession>,
        actor: &Actor,
        tool: &str,
        started: Started,
        output: &ToolOutput,
    ) {
        self.timeline.tool_call(
            session,
            actor,
            ToolRecord {
                tool: tool.to_string(),
                target_id: session.agent_tabs().current(actor),
                ok: !output.is_error,
                ms: started.began.elapsed().as_millis() as u64,
                summary: started.summary,
                frame: true,
            },
        );
    }

    /// Records an act of the CDP door as a `tool` event named `tool` (`cdp:<Method>`) in tab
    /// `target_id`, with its own `summary` (never a typed value).
    pub(crate) fn door_act(&self, session: &Arc<BrowserSession>, actor: &Actor, act: DoorAct) {
        self.timeline.tool_call(
            session,
            actor,
            ToolRecord {
                tool: act.tool,
                target_id: act.target_id,
                ok: act.ok,
                ms: act.ms,
                summary: act.summary,
                frame: act.frame,
            },
        );
    }

    /// Records a fill (or a refused one).
    pub(crate) fn fill(&self, session: &Arc<BrowserSession>, actor: &Actor, fill: FillRecord) {
        self.timeline.vault_fill(session, actor, fill);
    }
}
