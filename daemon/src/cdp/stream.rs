//! Reading a connection's event stream: the next event, or the end of the stream or of its
//! reader's session; a reader that falls behind skips what it missed with a debug line.

use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::CdpEvent;

/// The next event of a connection's stream, or `None` once `closed` is cancelled or the stream
/// ends. Events missed by a slow reader are skipped with a debug line naming `reader`.
pub async fn next_event(
    events: &mut broadcast::Receiver<CdpEvent>,
    closed: &CancellationToken,
    reader: &'static str,
) -> Option<CdpEvent> {
    loop {
        tokio::select! {
            _ = closed.cancelled() => return None,
            event = events.recv() => match event {
                Ok(event) => return Some(event),
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::debug!(event = "events_lagged", reader, missed);
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            },
        }
    }
}
