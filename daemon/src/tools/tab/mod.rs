//! The tab as the tools see it: the acting tab ([`driver`]), the in-page helper (`page.js`) in
//! an isolated world the page's scripts cannot reach ([`world`]), cross-origin frames and their
//! sessions ([`iframes`]), element refs bound to their document ([`element_refs`]), and the ref
//! tools on a tab named by id ([`in_tab`]), and what filters see of a secret ([`redact`]).

pub(crate) mod driver;
pub(crate) mod element_refs;
pub(crate) mod iframes;
pub(crate) mod in_tab;
pub(crate) mod redact;
pub(crate) mod world;
