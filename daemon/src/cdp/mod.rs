//! Raw Chrome DevTools Protocol over tokio-tungstenite or Chrome's debugging pipe: the
//! connection actor and its errors.
//!
//! Why not chromiumoxide: see DESIGN.md §2 (dropped events, slow bad-URL failures, build cost).
//! This layer owns sockets and message matching only; tabs and screencasts live in `browser`.

mod connection;
mod error;
mod evaluate;
mod tally;
mod transport;
mod trim;

pub use connection::{CdpConnection, CdpEvent, DEFAULT_DEADLINE};
pub use error::CdpError;
pub(crate) use evaluate::thrown;
pub use tally::{carried, tallied, CdpStats};
pub(crate) use trim::cut_text;
