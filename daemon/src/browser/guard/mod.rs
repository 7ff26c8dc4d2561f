//! What agents may open: keeping agents' tabs off browser-internal pages after the fact —
//! redirects, page scripts, popups (`redirects`; which URLs a tab may be sent to at all is the
//! floor's `url_policy`), the sites each agent may open (`sites`), and the notes left for
//! agents' next results (`notes`). What an agent must ask the person about is
//! `prompts::consent`; the verdict on each request paused at `Fetch`, which weighs both, is the
//! session's `paused`.

pub(crate) mod notes;
pub(crate) mod redirects;
pub(crate) mod sites;
