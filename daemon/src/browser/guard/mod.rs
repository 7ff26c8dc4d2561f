//! Which URLs a tab may be sent to or show, per kind of caller (`policy`), and keeping agents'
//! tabs off browser-internal pages after the fact — redirects, page scripts, popups (`redirects`).

pub(crate) mod consent;
pub(crate) mod paused;
pub(crate) mod policy;
pub(crate) mod redirects;
pub(crate) mod sites;
