//! The vault's hands in the page (DESIGN.md §19): which fields a fill goes into (the refs the
//! agent gave, or the sign-in form's fields found in the main document), the origin of the
//! frame that holds each one (read in Porthole's isolated world of that frame, which page
//! scripts cannot reach), and the typing itself — a click on the field, a check that the field
//! took the focus, then `Input.insertText` (trusted input: the page's frameworks see real
//! `input` events), and Enter to submit. Values arrive in zeroizing buffers and are never put
//! into an answer, a log line or an error.

use std::time::Duration;

use serde_json::{json, Value};
use zeroize::Zeroizing;

use crate::browser::{dispatch_input, InputEvent, MouseButton, Pointer};
use crate::tools::error::ToolError;
use crate::tools::tab::driver::{eval_on, Tab};
use crate::tools::tab::element_refs as refs;
use crate::tools::tab::world::HELPER;

/// Finds the sign-in form's fields.
const FIND_FIELDS: &str = include_str!("js/login-fields.js");
/// The origin of a field's frame and what kind of field it is.
const FIELD_INFO: &str = include_str!("js/login-field.js");
/// Whether a field took the focus (and selects its text).
const FOCUS_CHECK: &str = include_str!("js/login-focus.js");
/// Where a field's form submits to.
const FORM_DESTINATION: &str = include_str!("js/form-destination.js");
/// Deadline of one of these reads.
const DEADLINE: Duration = Duration::from_secs(10);

/// What goes into a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    Username,
    Password,
    Code,
}

impl FieldKind {
    pub fn name(self) -> &'static str {
        match self {
            FieldKind::Username => "username",
            FieldKind::Password => "password",
            FieldKind::Code => "one-time code",
        }
    }
}

/// A field checked and ready to type into.
#[derive(Debug, Clone)]
pub struct Target {
    pub kind: FieldKind,
    pub r: String,
    /// The frame's address (see `world`), where its helper holds the ref.
    address: String,
    /// The origin of the document that holds the field.
    pub origin: String,
    /// The origins of the documents around it, its parent first, up to the tab's page.
    pub ancestors: Vec<String>,
}

/// Resolves `wanted` (kind, ref the agent gave) to fields: missing refs are looked for in the
/// main document (and its same-origin frames); kinds not found there are left out. Then each
/// field's frame origin and kind are read. Errors name the ref and what to do.
pub async fn targets(
    tab: &Tab,
    wanted: &[(FieldKind, Option<String>)],
) -> Result<Vec<Target>, ToolError> {
    let mut chosen: Vec<(FieldKind, String)> = Vec::new();
    let missing = wanted.iter().any(|(_, r)| r.is_none());
    let found = if missing {
        let want = if wanted.iter().any(|(k, _)| *k == FieldKind::Code) {
            "otp"
        } else {
            "login"
        };
        let base = refs::book(tab).next;
        let expression = format!("({FIND_FIELDS})({HELPER}, {}, {base})", Value::from(want));
        let found = eval_on(&tab.browser, &tab.session_id, &expression, DEADLINE).await?;
        refs::advance(tab, found["next"].as_u64().unwrap_or(base));
        found
    } else {
        Value::Null
    };
    for (kind, given) in wanted {
        let r = match given {
            Some(r) => Some(r.trim().to_string()),
            None => {
                let key = match kind {
                    FieldKind::Username => "username",
                    FieldKind::Password => "password",
                    FieldKind::Code => "otp",
                };
                found[key].as_str().map(str::to_string)
            }
        };
        if let Some(r) = r {
            chosen.push((*kind, r));
        }
    }
    let mut out = Vec::new();
    for (kind, r) in chosen {
        let (address, iframe) = refs::locate(tab, &r)?;
        let expression = format!("({FIELD_INFO})({HELPER}, {})", Value::from(r.as_str()));
        let info = eval_on(&tab.browser, &address, &expression, DEADLINE)
            .await
            .map_err(|e| refs::frame_gone(&r, &iframe, e))?;
        if let Some(error) = refs::ref_error(tab, &r, &info) {
            return Err(error);
        }
        let what = info["what"].as_str().unwrap_or("the element");
        if !info["usable"].as_bool().unwrap_or(false) {
            return Err(ToolError::msg(format!(
                "Ref {r} ({what}) is not a text field that takes typing (or it is disabled or \
                 read-only), so no {} goes there; nothing was typed. Call read_page and pass \
                 the right field's ref.",
                kind.name()
            )));
        }
        if info["written"] != false {
            return Err(ToolError::msg(format!(
                "Refused: ref {r} ({what}) is in a page written by script (a blob:, data:, \
                 srcdoc or about:blank document), not one the site served, and a page script \
                 wrote counts as scripted: script and secrets never share a document. Nothing \
                 was typed. Navigate to the site's own sign-in page and fill there."
            )));
        }
        if kind == FieldKind::Password && !info["password"].as_bool().unwrap_or(false) {
            return Err(ToolError::msg(format!(
                "Ref {r} ({what}) is not a password field, so the password does not go there \
                 (it would show on screen); nothing was typed. Pass the password field's ref."
            )));
        }
        out.push(Target {
            kind,
            r,
            address,
            origin: info["origin"].as_str().unwrap_or("null").to_string(),
            ancestors: info["ancestors"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|o| o.as_str().unwrap_or("null").to_string())
                        .collect()
                })
                .unwrap_or_default(),
        });
    }
    Ok(out)
}

/// Types `value` into `target`: a click on it, a check that it has the focus (so the text
/// cannot land elsewhere), then trusted text input.
pub async fn type_into(
    tab: &Tab,
    target: &Target,
    value: &Zeroizing<String>,
) -> Result<(), ToolError> {
    let (x, y, _) = crate::tools::tab::iframes::point_of(tab, &target.r).await?;
    let scale = tab.browser.zoom().pixel_scale(&tab.session_id);
    let at = Pointer::at(x, y, 0);
    for event in [
        InputEvent::Mousemove {
            at,
            button: MouseButton::None,
        },
        InputEvent::Mousedown {
            at,
            button: MouseButton::Left,
            click_count: 1,
        },
        InputEvent::Mouseup {
            at,
            button: MouseButton::Left,
            click_count: 1,
        },
    ] {
        dispatch_input(tab.cdp(), &tab.session_id, &event, scale).await?;
    }
    let secret = target.kind != FieldKind::Username;
    let expression = format!(
        "({FOCUS_CHECK})({HELPER}, {}, {secret})",
        Value::from(target.r.as_str())
    );
    let focus = eval_on(&tab.browser, &target.address, &expression, DEADLINE).await?;
    if !focus["focused"].as_bool().unwrap_or(false) {
        return Err(ToolError::msg(format!(
            "The {} field {} did not take the focus when clicked (something else holds it), so \
             nothing was typed into it.",
            target.kind.name(),
            target.r
        )));
    }
    // Straight to CDP: the value goes into no event record, log line or error text.
    tab.cdp()
        .call_on(
            &tab.session_id,
            "Input.insertText",
            json!({ "text": value.as_str() }),
        )
        .await?;
    Ok(())
}

/// Where Enter in `target` would send its form: `(url, origin)`, or `None` when the field is in
/// no form.
pub async fn form_destination(
    tab: &Tab,
    target: &Target,
) -> Result<Option<(String, String)>, ToolError> {
    let expression = format!(
        "({FORM_DESTINATION})({HELPER}, {})",
        Value::from(target.r.as_str())
    );
    let answer = eval_on(&tab.browser, &target.address, &expression, DEADLINE).await?;
    if answer.is_null() {
        return Ok(None);
    }
    let url = answer["url"].as_str().unwrap_or_default().to_string();
    let origin = answer["origin"].as_str().unwrap_or("null").to_string();
    Ok(Some((url, origin)))
}

/// Presses Enter (in the field that has the focus: the last one typed into).
pub async fn press_enter(tab: &Tab) -> Result<(), ToolError> {
    let scale = tab.browser.zoom().pixel_scale(&tab.session_id);
    let enter = InputEvent::Keypress {
        key: "Enter".into(),
        code: "Enter".into(),
        modifiers: 0,
    };
    dispatch_input(tab.cdp(), &tab.session_id, &enter, scale).await?;
    Ok(())
}
