//! Approvals (DESIGN.md §20): the kinds of act an agent may be held to ask the person about
//! (`confirm` on its record and `agents.confirm` for all), what one request for the person's
//! answer shows, how it ended, and the origins the person said "always" to. Plain data: imports
//! only the `sites` leaf (every spelling of a host is one host there). The session asks and waits (`browser::prompts::approvals`);
//! only a pane answers.

mod kinds;
mod remembered;

use serde::{Deserialize, Serialize};

pub use kinds::{ApprovalKind, Confirm, ConfirmError};
pub use remembered::Remembered;

/// Longest detail a pane is shown (a script, a URL, file names), in characters. A script is
/// shown whole: one longer than this is refused rather than asked about with its end cut.
pub const MAX_DETAIL_CHARS: usize = 100_000;

/// Most of a request's body a pane is shown, in bytes (its full size is said beside it).
pub const MAX_BODY_SHOWN: usize = 4096;

/// What an agent asks the person to allow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ask {
    pub agent_id: String,
    pub name: String,
    pub kind: ApprovalKind,
    /// The tab it acts in.
    pub target_id: String,
    /// The URL the act goes to (the request's, or the tab's page).
    pub url: String,
    /// The method, URL and element acted on; the script; the file names; the item title.
    pub detail: String,
    /// What a request sends (a form post's fields, a `fetch` body), when the browser said.
    pub body: Option<SentBody>,
}

/// The body of a request an approval holds: its start as text, and its whole size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentBody {
    /// The first [`MAX_BODY_SHOWN`] bytes, as text (bytes that are not UTF-8 shown as �).
    pub shown: String,
    /// The whole body's size in bytes.
    pub size: u64,
}

impl SentBody {
    /// The body of `bytes`, its start kept for the person.
    pub fn of(bytes: &[u8]) -> Self {
        let kept = &bytes[..bytes.len().min(MAX_BODY_SHOWN)];
        Self {
            shown: String::from_utf8_lossy(kept).into_owned(),
            size: bytes.len() as u64,
        }
    }
}

impl Ask {
    /// The origin an "always" answer covers: the URL's scheme, host (in every spelling) and
    /// port. None for an opaque origin (`about:`, `data:`, `blob:`): no "always" covers one,
    /// since such a document shares its opener's or creator's real origin.
    pub fn origin(&self) -> Option<String> {
        crate::sites::origin_of(&self.url)
    }
}

/// The site of `url` a `new_site` compares: its origin (scheme, host in any spelling, port),
/// or its scheme for an opaque one (`data:`), so a load to another origin is a new site.
pub fn site_of(url: &str) -> String {
    if let Some(origin) = crate::sites::origin_of(url) {
        return origin;
    }
    match url::Url::parse(url) {
        Ok(parsed) => format!("{}:", parsed.scheme()),
        Err(_) => String::new(),
    }
}

/// How far an allow reaches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Remember {
    /// This act only.
    #[default]
    Once,
    /// This kind on this origin (scheme, host, port), for this agent, until the daemon stops.
    /// Never kept for an opaque origin: such an answer allows the act once.
    Site,
}

/// How an approval ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The person allowed it.
    Allowed(Remember),
    /// The person declined it.
    Declined,
    /// Nobody answered within `agents.approval_timeout_secs`.
    TimedOut,
    /// Nobody could be asked: no pane, no event stream, no notifier.
    Unwatched,
    /// Its tab or the session went away first.
    Gone,
    /// Allowed without asking: a remembered "always on this site".
    Remembered,
}

impl Outcome {
    pub fn allowed(self) -> bool {
        matches!(self, Outcome::Allowed(_) | Outcome::Remembered)
    }

    /// The `outcome` of `approval_closed` and the timeline's event.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Allowed(Remember::Once) => "allowed",
            Outcome::Allowed(Remember::Site) => "allowed_on_site",
            Outcome::Declined => "declined",
            Outcome::TimedOut => "timed_out",
            Outcome::Unwatched => "unwatched",
            Outcome::Gone => "gone",
            Outcome::Remembered => "remembered",
        }
    }

    /// What the agent reads when the act did not happen (None when it did).
    pub fn refusal(self, ask: &Ask, timeout_secs: u64) -> Option<String> {
        let what = ask.kind.describe();
        let why = match self {
            Outcome::Allowed(_) | Outcome::Remembered => return None,
            Outcome::Declined => format!("the person declined {what}"),
            Outcome::TimedOut => format!(
                "nobody answered the request to allow {what} within {timeout_secs} s \
                 (agents.approval_timeout_secs), so it was declined"
            ),
            Outcome::Unwatched => format!(
                "{what} needs the person's approval (this agent's confirm list holds {:?}) and \
                 nobody is watching this channel: no pane is open, no event stream listens and \
                 no notify.command is set. Call request_human to ask the person to open the \
                 pane, then try again",
                ask.kind.as_str()
            ),
            Outcome::Gone => format!("the tab went away before the person answered about {what}"),
        };
        Some(format!(
            "Porthole held back {what} in tab {}: {why}. Nothing was sent.",
            ask.target_id
        ))
    }
}

/// One step of an approval for the timeline, sent on a channel that never drops one (the
/// panes' notices may lag; the record may not).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalRecord {
    /// The person was asked (approval `id`).
    Asked { id: String, ask: Ask },
    /// Approval `id` ended in `outcome`, decided `by` the person, a timeout or Porthole.
    Closed {
        id: String,
        ask: Ask,
        outcome: Outcome,
        by: &'static str,
    },
    /// Allowed without asking: the person's "always" for `origin` covered it.
    Remembered { ask: Ask, origin: String },
}

/// What became of an act an agent may have had to ask the person about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It may happen: the agent is not held to its kind, or the person allowed it (now, or
    /// with an "always" that covers it).
    Go,
    /// It must not happen: how the approval ended, and what the agent reads.
    Refused { outcome: Outcome, refusal: String },
}

impl Verdict {
    /// The verdict of an approval that ended in `outcome`.
    pub fn of(outcome: Outcome, ask: &Ask, timeout_secs: u64) -> Self {
        match outcome.refusal(ask, timeout_secs) {
            None => Verdict::Go,
            Some(refusal) => Verdict::Refused { outcome, refusal },
        }
    }
}

/// Cuts `text` to [`MAX_DETAIL_CHARS`] characters, saying so.
pub fn bounded_detail(text: &str) -> String {
    let count = text.chars().count();
    if count <= MAX_DETAIL_CHARS {
        return text.to_string();
    }
    let kept: String = text.chars().take(MAX_DETAIL_CHARS).collect();
    format!("{kept}… ({} more characters)", count - MAX_DETAIL_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(url: &str) -> Ask {
        Ask {
            agent_id: "ag_1".into(),
            name: "bot".into(),
            kind: ApprovalKind::Submit,
            target_id: "T1".into(),
            url: url.into(),
            detail: String::new(),
            body: None,
        }
    }

    #[test]
    fn always_is_kept_by_origin_and_never_for_an_opaque_one() {
        assert_eq!(
            ask("https://Shop.Example.:8443/cart").origin().as_deref(),
            Some("https://shop.example:8443")
        );
        assert_ne!(
            ask("http://127.0.0.1:9/x").origin(),
            ask("http://127.0.0.1:10/x").origin()
        );
        assert_ne!(
            ask("http://a.test/").origin(),
            ask("https://a.test/").origin()
        );
        for opaque in [
            "about:blank",
            "data:text/html,hi",
            "blob:http://a.test/1",
            "x",
        ] {
            assert_eq!(ask(opaque).origin(), None, "{opaque}");
        }
    }

    #[test]
    fn a_new_site_is_another_origin_in_any_spelling() {
        assert_eq!(
            site_of("https://Shop.Example.:8443/cart"),
            "https://shop.example:8443"
        );
        assert_eq!(
            site_of("http://127.0.0.1:9/x"),
            site_of("http://localhost.:9/")
        );
        assert_ne!(
            site_of("http://127.0.0.1:9/x"),
            site_of("http://localhost:7/")
        );
        assert_eq!(site_of("data:text/html,hi"), "data:");
        assert_eq!(site_of("not a url"), "");
    }

    #[test]
    fn only_an_allow_lets_the_act_happen_and_every_refusal_says_why() {
        let a = ask("http://127.0.0.1/post");
        for outcome in [Outcome::Allowed(Remember::Once), Outcome::Remembered] {
            assert!(outcome.allowed());
            assert_eq!(outcome.refusal(&a, 120), None);
        }
        let declined = Outcome::Declined.refusal(&a, 120).unwrap();
        assert!(declined.contains("declined"), "{declined}");
        let unwatched = Outcome::Unwatched.refusal(&a, 120).unwrap();
        assert!(unwatched.contains("nobody is watching"), "{unwatched}");
        assert!(unwatched.contains("request_human"), "{unwatched}");
        let late = Outcome::TimedOut.refusal(&a, 7).unwrap();
        assert!(late.contains("7 s"), "{late}");
        assert!(!Outcome::Gone.allowed());
    }

    #[test]
    fn a_body_keeps_its_start_and_says_its_size() {
        let body = SentBody::of(b"item=tea");
        assert_eq!((body.shown.as_str(), body.size), ("item=tea", 8));
        let long = vec![b'a'; MAX_BODY_SHOWN + 10];
        let body = SentBody::of(&long);
        assert_eq!(body.shown.len(), MAX_BODY_SHOWN);
        assert_eq!(body.size, (MAX_BODY_SHOWN + 10) as u64);
    }

    #[test]
    fn details_are_bounded() {
        assert_eq!(bounded_detail("abc"), "abc");
        let long = "x".repeat(MAX_DETAIL_CHARS + 5);
        let cut = bounded_detail(&long);
        assert!(cut.ends_with("(5 more characters)"), "{cut}");
    }
}
