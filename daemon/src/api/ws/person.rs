//! A pane's answers for the person: files for a file chooser (`file_chooser_answer`), files
//! dropped from the desktop (`drop_files`), logins (`auth_answer`) and approvals of agents'
//! acts (`approval_answer`: the one way any approval is answered). Decodes and bounds the
//! files (`browser.pane_upload_max_mb`, named in every refusal), then hands them to the
//! session (`browser::person_files`, `browser::auth`). Nothing here logs a password or a
//! file's bytes.

use base64::Engine as _;
use serde::Deserialize;

use super::protocol::{ClientMessage, PaneFile};
use crate::browser::AuthAnswer;
use crate::browser::HandedFile;
use crate::browser::{PaneMessage, PaneView};

/// The setting that bounds what a pane hands a page.
const SETTING: &str = "browser.pane_upload_max_mb";

/// Room for JSON around the base64 of the files in one message.
const ENVELOPE: usize = 64 * 1024;

/// The largest message carrying `cap` bytes of files (base64 is 4 characters per 3 bytes).
pub fn files_message_limit(cap: u64) -> usize {
    let cap = usize::try_from(cap).unwrap_or(usize::MAX / 2);
    cap.saturating_add(2).saturating_div(3).saturating_mul(4) + ENVELOPE
}

/// A refusal for the pane: its `error` code and words.
#[derive(Debug)]
pub struct Refusal {
    code: &'static str,
    message: String,
}

impl Refusal {
    /// The `error` message for the pane.
    pub fn into_message(self) -> PaneMessage {
        PaneMessage::error(self.code, self.message)
    }
}

/// Whether a message over the ordinary size limit is a file message: `Ok(true)` when it may
/// go on (within [`files_message_limit`]), an error for the pane when it is a file message
/// over the cap, `Ok(false)` when it is no file message at all.
pub fn oversize_files_message(text: &str, cap: u64) -> Result<bool, Refusal> {
    #[derive(Deserialize)]
    struct Kind<'a> {
        #[serde(rename = "type", borrow)]
        kind: std::borrow::Cow<'a, str>,
    }
    let Ok(Kind { kind }) = serde_json::from_str::<Kind>(text) else {
        return Ok(false);
    };
    if kind != "file_chooser_answer" && kind != "drop_files" {
        return Ok(false);
    }
    if text.len() > files_message_limit(cap) {
        return Err(too_big(text.len() as u64 / 4 * 3, cap));
    }
    Ok(true)
}

fn too_big(bytes: u64, cap: u64) -> Refusal {
    Refusal {
        code: "upload_too_large",
        message: format!(
            "the files come to about {bytes} bytes, more than {SETTING} allows ({} MiB in \
             all); nothing was set. Hand fewer or smaller files, or raise {SETTING}.",
            cap >> 20
        ),
    }
}

/// The files' bytes, within `cap` in all.
fn decode(files: &[PaneFile], cap: u64) -> Result<Vec<HandedFile>, Refusal> {
    let estimate: u64 = files.iter().map(|f| f.data.len() as u64 / 4 * 3).sum();
    if estimate > cap {
        return Err(too_big(estimate, cap));
    }
    let engine = base64::engine::general_purpose::STANDARD;
    let mut total = 0u64;
    let mut decoded = Vec::with_capacity(files.len());
    for file in files {
        let bytes = engine.decode(file.data.trim()).map_err(|e| Refusal {
            code: "bad_request",
            message: format!(
                "the data of {:?} is not base64 ({e}); nothing was set",
                file.name
            ),
        })?;
        total += bytes.len() as u64;
        if total > cap {
            return Err(too_big(total, cap));
        }
        decoded.push(HandedFile {
            name: crate::browser::safe_name(&file.name),
            mime_type: file.mime_type.clone(),
            bytes,
        });
    }
    Ok(decoded)
}

/// Handles one of the person's answers on the pane's view; the `error` to send, if any.
pub async fn handle(view: &PaneView, message: ClientMessage, cap: u64) -> Option<PaneMessage> {
    let session = view.session();
    match message {
        ClientMessage::FileChooserAnswer { id, files, cancel } => {
            let files = if cancel {
                None
            } else {
                match decode(&files, cap) {
                    Ok(files) => Some(files),
                    Err(refusal) => return Some(refusal.into_message()),
                }
            };
            let answered = session.person_files().answer(&id, files).await;
            answered
                .err()
                .map(|e| PaneMessage::error(e.code(), e.to_string()))
        }
        ClientMessage::DropFiles { x, y, files } => {
            let within = |v: f64| v.is_finite() && (0.0..=100_000.0).contains(&v);
            if !(within(x) && within(y)) {
                return Some(PaneMessage::error(
                    "bad_request",
                    "drop_files needs x and y within the page's viewport (CSS px)",
                ));
            }
            let files = match decode(&files, cap) {
                Ok(files) => files,
                Err(refusal) => return Some(refusal.into_message()),
            };
            let tab = match view.watched_tab() {
                Ok((_, tab)) => tab,
                Err(error) => return Some(PaneMessage::error(error.code(), error.to_string())),
            };
            let dropped = session.person_files().drop_files(&tab, x, y, &files).await;
            dropped
                .err()
                .map(|e| PaneMessage::error(e.code(), e.to_string()))
        }
        ClientMessage::AuthAnswer {
            id,
            username,
            password,
            cancel,
        } => {
            let answer = match (cancel, username, password) {
                (true, _, _) => AuthAnswer::Cancel,
                (false, Some(username), Some(password)) => AuthAnswer::Credentials {
                    username,
                    password: password.0,
                },
                _ => {
                    return Some(PaneMessage::error(
                        "bad_request",
                        "auth_answer needs username and password, or cancel: true",
                    ))
                }
            };
            let answered = session.auth().answer(&id, answer).await;
            answered
                .err()
                .map(|e| PaneMessage::error(e.code(), e.to_string()))
        }
        ClientMessage::ApprovalAnswer {
            id,
            allow,
            remember,
        } => session
            .approvals()
            .answer(&id, allow, remember)
            .err()
            .map(|e| PaneMessage::error(e.code(), e.to_string())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, data: &str) -> PaneFile {
        serde_json::from_value(serde_json::json!({"name": name, "data": data})).unwrap()
    }

    #[test]
    fn files_are_decoded_within_the_cap_and_refusals_name_the_setting() {
        let ok = decode(&[file("../a.txt", "aGVsbG8=")], 10).unwrap();
        assert_eq!(
            (ok[0].name.as_str(), ok[0].bytes.as_slice()),
            ("a.txt", &b"hello"[..])
        );
        let refusal = decode(&[file("a", "aGVsbG8=")], 4).unwrap_err();
        assert_eq!(refusal.code, "upload_too_large");
        assert!(refusal.message.contains(SETTING), "{}", refusal.message);
        let refusal = decode(&[file("a", "!!!")], 10).unwrap_err();
        assert_eq!(refusal.code, "bad_request");
    }

    #[test]
    fn only_file_messages_may_be_large() {
        let big = format!(
            r#"{{"type":"file_chooser_answer","id":"f1","files":[{{"name":"a","data":"{}"}}]}}"#,
            "A".repeat(200_000)
        );
        assert!(matches!(oversize_files_message(&big, 200_000), Ok(true)));
        assert!(oversize_files_message(&big, 100).is_err());
        let other = format!(r#"{{"type":"navigate","url":"{}"}}"#, "a".repeat(4000));
        assert!(matches!(oversize_files_message(&other, 10_000), Ok(false)));
        assert!(matches!(
            oversize_files_message("not json", 10_000),
            Ok(false)
        ));
    }
}
