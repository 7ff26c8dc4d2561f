//! One command from a client, start to answer: parsed once, checked against the allow table
//! ([`super::allow`]), then answered by the door (the `Target` domain, the no-effect methods,
//! `Browser.close`, the confined cookie, download and file-input methods) or checked for the
//! person's control and the agent's sites ([`super::control`]) and the vault's rule
//! ([`super::script_reads`]), and sent to Chrome on the client's own flat session. Each command
//! waits for its turn among the agent's `agents.max_calls_in_flight` (shared by all its door
//! connections).
//!
//! A malformed message gets Chrome's parse error and the connection stays up.

use std::sync::Arc;
use std::time::Instant;

use serde::Deserialize;
use serde_json::{json, Value};

use super::allow::{self, Confined, Rule};
use super::door::Door;
use super::targets;
use super::{activity, acts, control, cookie_mask, cookies, files, script_reads, wire};
use wire::{Failure, FORWARD_DEADLINE, PARSE_ERROR, SERVER_ERROR};

/// A command as the client sent it.
#[derive(Deserialize)]
pub(super) struct Command {
    id: Value,
    method: String,
    #[serde(default)]
    params: Value,
    #[serde(rename = "sessionId")]
    session: Option<String>,
}

/// What the client is sent for one command (or for a popup of its page), in order: events
/// first, then the answer; and whether the connection ends after it (`Browser.close`).
pub(super) struct Answer {
    pub(super) before: Vec<String>,
    pub(super) reply: Option<String>,
    pub(super) then_close: bool,
    /// When Chrome's reply was read (a forwarded command), so the client gets it in Chrome's
    /// order among Chrome's events; `None`: the door's own answer.
    pub(super) at: Option<Instant>,
}

impl Answer {
    fn reply(reply: String) -> Self {
        Self {
            before: Vec::new(),
            reply: Some(reply),
            then_close: false,
            at: None,
        }
    }

    /// Events only (a popup announced).
    pub(super) fn events(before: Vec<String>) -> Self {
        Self {
            before,
            reply: None,
            then_close: false,
            at: None,
        }
    }
}

/// Parses a client's message; `Err` is the answer to a message that is not a command.
pub(super) fn parse(text: &str) -> Result<Command, String> {
    serde_json::from_str::<Command>(text).map_err(|_| {
        let id = serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|v| v.get("id").cloned())
            .unwrap_or(json!(0));
        wire::error(
            &id,
            PARSE_ERROR,
            "Message must be a valid JSON object with an id and a method",
            None,
        )
    })
}

/// Runs `command` for the client of `door`.
pub(super) async fn run(door: Arc<Door>, command: Command) -> Answer {
    door.command_came();
    let page = door.page_session();
    // The session the command goes to, and the one its answer names (a page socket's own
    // session is implied).
    let (session, named) = match (&command.session, &page) {
        (Some(s), _) => (Some(s.clone()), Some(s.clone())),
        (None, Some(p)) => (Some(p.clone()), None),
        (None, None) => (None, None),
    };
    let id = command.id.clone();
    let answer = |result: Result<Value, Failure>| match result {
        Ok(value) => wire::reply(&id, value, named.as_deref()),
        Err((code, message)) => wire::error(&id, code, &message, named.as_deref()),
    };
    let _turn = door.entry.command_turn().await;
    // A browser-level session of the client's: its commands are browser-level, its answers
    // and the events they bring name it.
    let (session, before_to) = match &session {
        Some(s) if door.is_browser_session(s) => (None, Some(s.clone())),
        _ => (session, None),
    };
    let tab = match &session {
        Some(s) => match door.tab_of(s) {
            Some(tab) => Some(tab),
            None => {
                return Answer::reply(answer(Err((
                    wire::INVALID_PARAMS,
                    wire::NO_SESSION.to_string(),
                ))))
            }
        },
        None => None,
    };
    let method = command.method.as_str();
    let act = acts::act_of(method, &command.params).map(|summary| (summary, Instant::now()));
    if act.is_some() {
        activity::act_began(&door, method, tab.as_deref());
    }
    let answer = run_rule(
        &door,
        &command,
        session.as_deref(),
        tab.as_deref(),
        &answer,
        &before_to,
    )
    .await;
    if let Some((summary, began)) = act {
        let ok = answer
            .reply
            .as_deref()
            .and_then(|reply| serde_json::from_str::<Value>(reply).ok())
            .is_some_and(|reply| reply.get("error").is_none());
        activity::act_ended(&door, method, tab.as_deref(), ok, began, summary);
    }
    answer
}

/// Runs `command` by the allow table's rule for it.
async fn run_rule(
    door: &Arc<Door>,
    command: &Command,
    session: Option<&str>,
    tab: Option<&str>,
    answer: &impl Fn(Result<Value, Failure>) -> String,
    before_to: &Option<String>,
) -> Answer {
    let method = command.method.as_str();
    match allow::rule(method, session.is_some()) {
        Rule::Refused(why) => {
            tracing::info!(event = "cdp_door_refused", channel_id = %door.entry.channel, agent_id = door.entry.actor.id(), method = %logged(method));
            Answer::reply(answer(Err((SERVER_ERROR, wire::refused(method, why)))))
        }
        Rule::NoEffect => Answer::reply(answer(Ok(json!({})))),
        Rule::Confined(Confined::Cookies(call)) => {
            let result = cookies::run(door, call, method, &command.params, session).await;
            Answer::reply(answer(result))
        }
        Rule::Confined(Confined::FileInput) => {
            let result = match (session, tab) {
                (Some(session), Some(tab)) => {
                    files::set_file_input_files(door, &command.params, session, tab).await
                }
                _ => Err((SERVER_ERROR, wire::refused(method, allow::NOT_ON_TABLE))),
            };
            Answer::reply(answer(result))
        }
        Rule::Confined(Confined::Downloads) => {
            // Never applied: the browser keeps saving to the channel's directory, where
            // `list_downloads` finds the file; the client hears of its tabs' downloads.
            if command.params["eventsEnabled"] == true {
                door.want_download_events();
            }
            Answer::reply(answer(Ok(json!({}))))
        }
        Rule::CloseConnection => {
            for target in door.opened_tabs() {
                if let Err((_, error)) = targets::close(door, &target).await {
                    tracing::debug!(event = "cdp_door_close_tab_failed", target_id = %target, %error);
                }
            }
            Answer {
                before: Vec::new(),
                reply: Some(answer(Ok(json!({})))),
                then_close: true,
                at: None,
            }
        }
        Rule::Target => {
            let name = method.trim_start_matches("Target.");
            match targets::handle(door, name, &command.params).await {
                Ok(answered) => Answer {
                    before: answered
                        .before
                        .into_iter()
                        .map(|event| wire::addressed(event, before_to.as_deref()))
                        .collect(),
                    reply: Some(answer(Ok(answered.result))),
                    then_close: false,
                    at: None,
                },
                Err(failure) => Answer::reply(answer(Err(failure))),
            }
        }
        Rule::Forward => {
            if let Some(tab) = tab {
                if let Err(refusal) = control::check(door, method, &command.params, tab).await {
                    return Answer::reply(answer(Err((SERVER_ERROR, refusal))));
                }
            }
            let send = door.entry.session.cdp().call_received(
                method,
                command.params.clone(),
                session,
                FORWARD_DEADLINE,
            );
            let replied = match (tab, session) {
                (Some(tab), Some(session)) if script_reads::runs_or_reads_script(method) => {
                    door.entry.run_script(tab, session, send).await
                }
                _ => Ok(send.await),
            };
            let (mut sent, at) = match replied {
                Ok(replied) => replied,
                Err(why) => {
                    let refusal = wire::refused(method, &why);
                    return Answer::reply(answer(Err((SERVER_ERROR, refusal))));
                }
            };
            if cookie_mask::answer_carries_cookies(method) {
                if let Ok(result) = &mut sent {
                    cookie_mask::mask(door.entry.actor.id(), result);
                }
            }
            Answer {
                at: Some(at),
                ..Answer::reply(answer(sent.map_err(wire::failure)))
            }
        }
    }
}

/// A method name as the log keeps it (a client may send a megabyte as a method).
fn logged(method: &str) -> String {
    method.chars().take(80).collect()
}
