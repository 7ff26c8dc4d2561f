//! What a tool's own filters and waits see in place of a filled secret (DESIGN.md §19a: no
//! reading tool is an oracle). The answer is scrubbed after the tool by the call pipeline;
//! this is for the steps before it that match an agent's text against the page's
//! (`read_console_messages`' pattern, `read_network_requests`' URL pattern, `wait_for_text`):
//! they match against the scrubbed text, so a guess at part of a secret never tells "yes".

use std::borrow::Cow;
use std::sync::Arc;

/// The scrub: a text's scrubbed form, `None` when it holds no secret.
type Scrub = dyn Fn(&str) -> Option<String> + Send + Sync;

/// A text's scrubbed form, or nothing to scrub.
#[derive(Clone)]
pub struct Redact(Option<Arc<Scrub>>);

impl Redact {
    /// Nothing is secret (no vault on this entry point, or the person's own reads).
    pub fn none() -> Self {
        Self(None)
    }

    /// Scrubs with `scrub` (`None`: the text holds no secret).
    pub fn with(scrub: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> Self {
        Self(Some(Arc::new(scrub)))
    }

    /// `text` as a filter may see it.
    pub fn apply<'a>(&self, text: &'a str) -> Cow<'a, str> {
        match self.0.as_ref().and_then(|scrub| scrub(text)) {
            Some(clean) => Cow::Owned(clean),
            None => Cow::Borrowed(text),
        }
    }

    /// Whether anything is scrubbed at all.
    pub fn is_active(&self) -> bool {
        self.0.is_some()
    }
}
