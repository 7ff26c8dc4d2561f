//! Messages from a pane to the daemon (DESIGN.md §6, "Client → daemon", JSON text).

use serde::Deserialize;

use crate::browser::InputEvent;
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
        /// Device pixels per CSS pixel (1–3, default 1): the page's `devicePixelRatio`; frames
        /// carry `width·scale`×`height·scale` pixels while coordinates stay CSS px.
        #[serde(default)]
        scale: Option<f64>,
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
    /// Finds `query` in the page the pane watches (answered by `find_result`); the same query
    /// again goes to the next match (`backwards`: the previous); an empty query clears.
    Find {
        query: String,
        #[serde(default)]
        backwards: bool,
    },
    /// Answers a `select_popup`: one option `index`, several `indices` (a multiple select), a
    /// `value` (a datalist's text; a picker's date, time or colour as its input writes it),
    /// or `cancel: true` (closes it, changing nothing).
    SelectAnswer {
        id: String,
        #[serde(default)]
        index: Option<u32>,
        #[serde(default)]
        indices: Option<Vec<u32>>,
        #[serde(default)]
        value: Option<String>,
        #[serde(default)]
        cancel: bool,
    },
    /// Prints the watched tab to PDF, kept as a download (`download` messages follow).
    Print {},
    /// Answers a `file_chooser`: the files (at most `browser.pane_upload_max_mb` in all), or
    /// `cancel: true`.
    FileChooserAnswer {
        id: String,
        #[serde(default)]
        files: Vec<PaneFile>,
        #[serde(default)]
        cancel: bool,
    },
    /// Files dropped from the person's desktop at (`x`, `y`) (CSS px of the watched tab's
    /// viewport): they reach the page's drop target as a real drag and drop.
    DropFiles {
        x: f64,
        y: f64,
        files: Vec<PaneFile>,
    },
    /// Answers an `auth_prompt` with a user name and password, or `cancel: true`.
    AuthAnswer {
        id: String,
        #[serde(default)]
        username: Option<String>,
        #[serde(default)]
        password: Option<Secret>,
        #[serde(default)]
        cancel: bool,
    },
    /// Answers an `approval` (DESIGN.md §20): `allow`, and with `remember: "site"` that kind
    /// on that site for that agent until the daemon stops (default `once`). Only a pane can.
    ApprovalAnswer {
        id: String,
        allow: bool,
        #[serde(default)]
        remember: crate::approvals::Remember,
    },
    /// Zooms the watched tab's page like Chrome's Ctrl +/-: `factor` 0.25–5 (1 is 100 %); the
    /// page lays out at the pane's size / `factor` CSS px with `devicePixelRatio` × `factor`,
    /// while frames and input coordinates stay in the pane's px.
    Zoom {
        factor: f64,
    },
    /// Asks for the image of `context_menu` `id` as PNG (answered by `image_copy` or `error`).
    CopyImage {
        id: String,
    },
    /// The person fills `item` of her vault (`<source>/<path>`) into the watched tab (or tab
    /// `target_id`), DESIGN.md §19: only into fields whose frame is of the item's origins.
    /// Answered by `vault_result` (after `vault_locked` when its source is locked).
    VaultFill {
        item: String,
        #[serde(default)]
        target_id: Option<String>,
    },
}

/// A password from a pane: kept out of every `Debug` print (and so out of logs).
#[derive(Clone, Deserialize, utoipa::ToSchema)]
#[serde(transparent)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// A file the person hands the page.
#[derive(Clone, Deserialize, utoipa::ToSchema)]
pub struct PaneFile {
    /// The file's name (no directories).
    pub name: String,
    /// Its MIME type (may be empty).
    #[serde(default, rename = "type")]
    pub mime_type: String,
    /// Its bytes, base64.
    pub data: String,
}

impl std::fmt::Debug for PaneFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PaneFile")
            .field("name", &self.name)
            .field("type", &self.mime_type)
            .field("data_len", &self.data.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_shape_parses() {
        let texts = [
            r#"{"type":"start","channel_id":"a","mode":"local","width":800,"height":600}"#,
            r#"{"type":"screencast","quality":50}"#,
            r#"{"type":"screencast","width":800,"height":600,"scale":2}"#,
            r#"{"type":"stop","channel_id":"a"}"#,
            r#"{"type":"input","input_type":"scroll","x":1,"y":2,"delta_y":30}"#,
            r#"{"type":"input","input_type":"paste","text":"hi"}"#,
            r#"{"type":"input","input_type":"copy"}"#,
            r#"{"type":"vault_fill","item":"kp/Web/Forum"}"#,
            r#"{"type":"vault_fill","item":"kp/Web/Forum","target_id":"T1"}"#,
            r#"{"type":"input","input_type":"composition","text":"日本","selection_start":0}"#,
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
            r#"{"type":"print"}"#,
            r#"{"type":"file_chooser_answer","id":"f1","files":[{"name":"a.txt","type":"text/plain","data":"aGk="}]}"#,
            r#"{"type":"file_chooser_answer","id":"f1","cancel":true}"#,
            r#"{"type":"drop_files","x":10,"y":20,"files":[{"name":"a.txt","data":"aGk="}]}"#,
            r#"{"type":"auth_answer","id":"a1","username":"ann","password":"pw"}"#,
            r#"{"type":"auth_answer","id":"a1","cancel":true}"#,
            r#"{"type":"approval_answer","id":"ap1","allow":true,"remember":"site"}"#,
            r#"{"type":"approval_answer","id":"ap1","allow":false}"#,
            r#"{"type":"select_answer","id":"sel_1","index":5}"#,
            r#"{"type":"select_answer","id":"sel_1","cancel":true}"#,
            r#"{"type":"find","query":"word"}"#,
            r#"{"type":"find","query":"word","backwards":true}"#,
            r#"{"type":"zoom","factor":1.5}"#,
            r#"{"type":"select_answer","id":"sel_1","value":"2026-12-01"}"#,
            r#"{"type":"copy_image","id":"cm_1"}"#,
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
            r#"{"type":"file_chooser_answer"}"#,
            r#"{"type":"drop_files","x":1,"y":2}"#,
            r#"{"type":"auth_answer"}"#,
            r#"{"type":"approval_answer","id":"ap1"}"#,
            r#"{"type":"approval_answer","id":"ap1","allow":true,"remember":"forever"}"#,
            r#"{"type":"select_answer","index":1}"#,
            r#"{"type":"find"}"#,
            r#"{"type":"zoom"}"#,
            r#"{"type":"select_answer","id":"sel_1","value":7}"#,
            r#"{"type":"copy_image"}"#,
            r#"{"type":"vault_fill"}"#,
            r#"{"type":"vault_fill","item":7}"#,
        ] {
            assert!(serde_json::from_str::<ClientMessage>(bad).is_err(), "{bad}");
        }
    }
}

/// Property tests: no bytes a pane can send make the parser (or the checks that follow it for
/// input) panic; what is refused comes back as an error with words in it.
#[cfg(test)]
mod properties {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::ClientMessage;
    use crate::browser::keys;
    use crate::browser::InputEvent;

    const TYPES: &[&str] = &[
        "start",
        "screencast",
        "stop",
        "input",
        "navigate",
        "back",
        "forward",
        "reload",
        "new_tab",
        "switch_tab",
        "close_tab",
        "give_tab",
        "nonsense",
    ];
    const INPUT_TYPES: &[&str] = &[
        "click",
        "mousedown",
        "mouseup",
        "mousemove",
        "scroll",
        "keydown",
        "keyup",
        "keypress",
        "typetext",
        "paste",
        "copy",
        "cut",
        "composition",
        "drag",
    ];
    const FIELDS: &[&str] = &[
        "channel_id",
        "mode",
        "width",
        "height",
        "quality",
        "url",
        "target_id",
        "agent_id",
        "x",
        "y",
        "button",
        "click_count",
        "modifiers",
        "delta_x",
        "delta_y",
        "key",
        "code",
        "text",
        "selection_start",
        "selection_end",
        "scale",
    ];

    /// Any JSON value, a few levels deep.
    fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(|f| serde_json::Number::from_f64(f)
                .map(Value::Number)
                .unwrap_or(Value::Null)),
            prop_oneof![Just(1e300), Just(-1e300), Just(1e12), Just(-0.0)].prop_map(Value::from),
            any::<String>().prop_map(Value::from),
            prop::sample::select(INPUT_TYPES).prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::btree_map(any::<String>(), inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// A message shaped like a real one: a known (or unknown) `type`, an `input_type`, and
    /// real field names with values of any type.
    fn message_like() -> impl Strategy<Value = Value> {
        (
            prop::sample::select(TYPES),
            prop::option::of(prop::sample::select(INPUT_TYPES)),
            prop::collection::btree_map(prop::sample::select(FIELDS), json(), 0..8),
        )
            .prop_map(|(kind, input_type, fields)| {
                let mut object = serde_json::Map::new();
                object.insert("type".into(), kind.into());
                if let Some(input_type) = input_type {
                    object.insert("input_type".into(), input_type.into());
                }
                for (k, v) in fields {
                    object.insert(k.into(), v);
                }
                Value::Object(object)
            })
    }

    /// Why the socket refuses a message (the text the pane gets).
    #[derive(Debug, thiserror::Error)]
    enum Refusal {
        /// Not a client message.
        #[error("{0}")]
        Parse(#[from] serde_json::Error),
        /// An input event outside the engine's limits (`InputEvent::validate`'s reason).
        #[error("{0}")]
        Input(String),
    }

    /// Parses like the pane socket does, then runs the checks an input gets before dispatch.
    fn parse_and_check(text: &str) -> Result<(), Refusal> {
        match serde_json::from_str::<ClientMessage>(text) {
            Ok(ClientMessage::Input(event)) => {
                let checked = event.validate().map_err(|e| Refusal::Input(e.to_string()));
                if let InputEvent::Keydown {
                    key,
                    code,
                    modifiers,
                }
                | InputEvent::Keyup {
                    key,
                    code,
                    modifiers,
                }
                | InputEvent::Keypress {
                    key,
                    code,
                    modifiers,
                } = &event
                {
                    let code = if code.is_empty() {
                        keys::code_for_key(key)
                    } else {
                        code.clone()
                    };
                    let _ = keys::virtual_key_code(&code, key);
                    let _ = keys::key_text(key, *modifiers);
                }
                checked
            }
            Ok(_) => Ok(()),
            Err(error) => Err(error.into()),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn arbitrary_bytes_never_panic_and_refusals_say_why(
            bytes in prop::collection::vec(any::<u8>(), 0..512)
        ) {
            // The socket hands the parser text; a pane can send any UTF-8.
            let text = String::from_utf8_lossy(&bytes);
            if let Err(why) = parse_and_check(&text) {
                prop_assert!(!why.to_string().trim().is_empty());
            }
        }

        #[test]
        fn arbitrary_json_never_panics(value in json()) {
            if let Err(why) = parse_and_check(&value.to_string()) {
                prop_assert!(!why.to_string().trim().is_empty());
            }
        }

        #[test]
        fn message_shaped_json_never_panics_and_bad_values_are_refused(value in message_like()) {
            match parse_and_check(&value.to_string()) {
                Err(why) => prop_assert!(!why.to_string().trim().is_empty()),
                Ok(()) => {
                    // Whatever passed is within the limits the engine relies on.
                    if let Ok(ClientMessage::Input(event)) =
                        serde_json::from_value::<ClientMessage>(value.clone())
                    {
                        prop_assert!(event.validate().is_ok());
                    }
                }
            }
        }

        #[test]
        fn any_key_name_maps_without_panicking(key in any::<String>(), code in any::<String>(), mods in any::<u8>()) {
            let _ = keys::virtual_key_code(&code, &key);
            let _ = keys::key_text(&key, mods);
            let _ = keys::code_for_key(&key);
        }
    }
}
