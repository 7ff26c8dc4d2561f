//! Host mode: the user's own running Chrome. `discovery` finds it; `provider` gives channels a
//! session on it without ever stopping Chrome or touching its profile.

pub mod discovery;
pub(crate) mod provider;

pub use provider::{HostProvider, HostSettings};
