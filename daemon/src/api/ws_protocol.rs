//! Messages from a pane to the daemon (DESIGN.md §6, "Client → daemon", JSON text).

use serde::Deserialize;

use crate::browser::input::InputEvent;
use crate::mode::Mode;

/// One JSON message from a pane.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// Attach to a channel's browser, starting it if needed; answered by `started` + `tabs`.
    Start {
        channel_id: String,
        #[serde(default)]
        mode: Option<Mode>,
        #[serde(default)]
        width: Option<u32>,
        #[serde(default)]
        height: Option<u32>,
    },
    /// Start receiving frames (binary messages), sized to the pane.
    Screencast {
        #[serde(default)]
        width: Option<u32>,
        #[serde(default)]
        height: Option<u32>,
        #[serde(default)]
        quality: Option<u8>,
    },
    /// Stop the channel's browser (host mode: forget the session); answered by `stopped`.
    Stop {
        channel_id: String,
    },
    /// Mouse, wheel, keyboard and clipboard input.
    Input(InputEvent),
    Navigate {
        url: String,
    },
    Back {},
    Forward {},
    Reload {},
    NewTab {
        #[serde(default)]
        url: Option<String>,
    },
    SwitchTab {
        target_id: String,
    },
    CloseTab {
        target_id: String,
    },
    /// Hand one of the person's tabs to an agent of this channel (the agent goes on there).
    GiveTab {
        target_id: String,
        agent_id: String,
    },
    /// The person takes control: agents' changing tools are refused until `release`.
    Takeover {},
    /// Gives control back to the agents.
    Release {},
    /// Cancels every agent call in flight and refuses agents for `agents.stop_secs`.
    StopAgents {},
    /// The person is done with a handoff (`request_human`); `note` goes to the agent.
    HandoffDone {
        id: String,
        #[serde(default)]
        note: Option<String>,
    },
    /// Answers the open JavaScript dialog of a tab.
    DialogAnswer {
        target_id: String,
        accept: bool,
        #[serde(default)]
        text: Option<String>,
    },
    /// Whether the pane's view follows the tab an agent acts in (default on).
    FollowAgents {
        on: bool,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_shape_parses() {
        let texts = [
            r#"{"type":"start","channel_id":"a","mode":"local","width":800,"height":600}"#,
            r#"{"type":"screencast","quality":50}"#,
            r#"{"type":"stop","channel_id":"a"}"#,
            r#"{"type":"input","input_type":"scroll","x":1,"y":2,"delta_y":30}"#,
            r#"{"type":"input","input_type":"paste","text":"hi"}"#,
            r#"{"type":"input","input_type":"copy"}"#,
            r#"{"type":"navigate","url":"https://example.com"}"#,
            r#"{"type":"back"}"#,
            r#"{"type":"new_tab"}"#,
            r#"{"type":"switch_tab","target_id":"T"}"#,
            r#"{"type":"give_tab","target_id":"T","agent_id":"ag_1"}"#,
            r#"{"type":"takeover"}"#,
            r#"{"type":"release"}"#,
            r#"{"type":"stop_agents"}"#,
            r#"{"type":"handoff_done","id":"h1","note":"logged in"}"#,
            r#"{"type":"dialog_answer","target_id":"T","accept":false}"#,
            r#"{"type":"follow_agents","on":false}"#,
        ];
        for text in texts {
            serde_json::from_str::<ClientMessage>(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        }
        for bad in [
            r#"{"type":"fly"}"#,
            r#"{"type":"start"}"#,
            "[]",
            r#"{"type":"input","input_type":"click"}"#,
            r#"{"type":"give_tab","target_id":"T"}"#,
            r#"{"type":"dialog_answer","target_id":"T"}"#,
            r#"{"type":"handoff_done"}"#,
        ] {
            assert!(serde_json::from_str::<ClientMessage>(bad).is_err(), "{bad}");
        }
    }
}
