//! Which URLs a tab may be sent to or show, per kind of caller (`policy`), and keeping agents'
//! tabs off browser-internal pages after the fact — redirects, page scripts, popups (`redirects`).
//! The sites each agent may open (`sites`), its `confirm` kinds (`consent`), the verdict on each
//! request paused at `Fetch` (`paused`), and the notes left for agents' next results (`notes`).

pub(crate) mod consent;
pub(crate) mod notes;
pub(crate) mod paused;
pub(crate) mod policy;
pub(crate) mod redirects;
pub(crate) mod sites;
