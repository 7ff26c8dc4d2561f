//! What agents may open: keeping agents' tabs off browser-internal pages after the fact —
//! redirects, page scripts, popups (`redirects`; which URLs a tab may be sent to at all is the
//! floor's `url_policy`). The sites each agent may open (`sites`), its `confirm` kinds (`consent`), the verdict on each
//! request paused at `Fetch` (`paused`), and the notes left for agents' next results (`notes`).

pub(crate) mod consent;
pub(crate) mod notes;
pub(crate) mod paused;
pub(crate) mod redirects;
pub(crate) mod sites;
