//! Errors of the CDP layer: what can go wrong between a caller and Chrome.

use std::time::Duration;

/// A failed CDP call or connection.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CdpError {
    /// The WebSocket to Chrome is gone (Chrome exited, crashed or closed the socket).
    #[error("the connection to the browser was lost ({reason})")]
    Lost { reason: String },
    /// Chrome did not answer `method` within its deadline.
    #[error("the browser did not answer {method} within {deadline:?}")]
    Timeout { method: String, deadline: Duration },
    /// Chrome answered `method` with a protocol error.
    #[error("{method} failed: {message}")]
    Protocol {
        method: String,
        code: i64,
        message: String,
    },
    /// The WebSocket to Chrome could not be opened.
    #[error("could not connect to the browser at {url}: {reason}")]
    Connect { url: String, reason: String },
    /// Chrome's answer to `method` was over the cap and was not read; only this call failed.
    #[error(
        "the browser's answer to {method} was {} MB, over the cap of {} MB (the setting {}); \
         only this call failed, the browser and its tabs are fine: ask for less at a time",
        crate::bounds::mib(*bytes),
        crate::bounds::mib(*cap),
        crate::bounds::CDP_MESSAGE_KEY
    )]
    TooLarge {
        method: String,
        bytes: usize,
        cap: usize,
    },
    /// Chrome's answer did not have the shape we read.
    #[error("unexpected answer to {method}: {detail}")]
    Shape { method: String, detail: String },
}

impl CdpError {
    /// True when the connection itself is gone and the session must be rebuilt.
    pub fn is_lost(&self) -> bool {
        matches!(self, CdpError::Lost { .. })
    }
}
