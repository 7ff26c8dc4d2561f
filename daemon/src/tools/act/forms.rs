//! `form_input`: sets a text field, textarea, select (by value or visible text) or checkbox /
//! radio by ref, firing `input` and `change` as a person's edit would.

use porthole_mcp::vocabulary::{FormInputArgs, FormValue};
use porthole_mcp::ToolOutput;
use serde_json::Value;

use crate::tools::act::readback::{self, Expect};
use crate::tools::act::waits;
use crate::tools::error::ToolError;
use crate::tools::tab::driver::{helper_on, Tab};
use crate::tools::tab::element_refs as refs;

/// `form_input`.
pub async fn form_input(tab: &Tab, args: &FormInputArgs) -> Result<ToolOutput, ToolError> {
    let r = args.element_ref.trim();
    let (session, iframe) = refs::locate(tab, r)?;
    let value = match &args.value {
        FormValue::Bool(b) => Value::from(*b),
        FormValue::Number(n) => Value::from(*n),
        FormValue::Text(t) => Value::from(t.as_str()),
        FormValue::Many(list) => Value::from(list.clone()),
    };
    let fill_args = [Value::from(r), value];
    let fill = helper_on(&tab.browser, &session, "fill", &fill_args);
    // With both worlds in place, the state before and the fill go back to back (one round
    // trip; Chrome runs them in order); else one after the other, so the read comes first.
    let worlds = tab.browser.worlds();
    let (before, answer) =
        if worlds.get(&tab.session_id).is_some() && worlds.get(&session).is_some() {
            tokio::join!(waits::before(tab), fill)
        } else {
            let before = waits::before(tab).await;
            (before, fill.await)
        };
    let answer = answer.map_err(|e| refs::frame_gone(r, &iframe, e))?;
    if let Some(error) = refs::ref_error(tab, r, &answer) {
        return Err(error);
    }
    let mut out = ToolOutput::text(format!(
        "{} ({r}).",
        capitalise(answer["ok"].as_str().unwrap_or("done"))
    ));
    // A text field's read-back runs in the settle's last call when the field is in the main
    // frame (no round trip of its own).
    let text = match &args.value {
        FormValue::Text(text) => Some(text),
        _ => None,
    };
    let then = (text.is_some() && session == tab.session_id).then(|| readback::expression(Some(r)));
    let (mut notes, read) = waits::settle(tab, before, then.as_deref()).await;
    if let Some(text) = text {
        let note = match read {
            Some(answer) => readback::judge(&answer, text, Expect::Equals),
            None => readback::mismatch(tab, &session, Some(r), text, Expect::Equals).await,
        };
        if let Some(note) = note {
            notes.push(note);
        }
    }
    if !notes.is_empty() {
        out = out.with_text(notes.join("\n"));
    }
    Ok(out)
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}
