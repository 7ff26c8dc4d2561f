//! A starting sidecar's output, read through the engine's attach stream: the sidecar writes
//! `[sidecar] chrome_ready …` on stderr when Chrome first answers on its pipe, so readiness is
//! an event on a stream opened before the start, not a poll of the gate or of the engine; the
//! stream's end is the container's exit, and what it wrote is the error message.

use std::pin::Pin;
use std::time::Duration;

use bollard::container::LogOutput;
use bollard::query_parameters::AttachContainerOptionsBuilder;
use bollard::Docker;
use futures_util::{Stream, StreamExt};

use super::engine::DockerError;

/// The sidecar's event when its browser is ready (porthole-sidecar's `hub` logs
/// `[sidecar] chrome_ready …`). Looked for as a word anywhere, not as a line: Chrome writes to
/// the same stderr, and the sidecar's line is several writes, so Chrome's output can land in
/// the middle of it (seen under load); the event name itself is one write.
const READY_WORD: &str = "chrome_ready";
/// How much of the output is kept for an error message.
const KEEP: usize = 4000;

type Chunks = Pin<Box<dyn Stream<Item = Result<LogOutput, bollard::errors::Error>> + Send>>;

/// The attach stream of one container (stdout and stderr, from the moment of attaching).
pub(crate) struct Output {
    chunks: Chunks,
    /// Kept open while reading: the engine may end the attach when the client's side closes.
    _input: Pin<Box<dyn tokio::io::AsyncWrite + Send>>,
    text: String,
}

/// Attaches to `id`'s output; call before starting it, so no line is missed.
pub(crate) async fn attach(docker: &Docker, id: &str, name: &str) -> Result<Output, DockerError> {
    let options = AttachContainerOptionsBuilder::new()
        .stream(true)
        .stdout(true)
        .stderr(true)
        .logs(false)
        .build();
    let attached = docker
        .attach_container(id, Some(options))
        .await
        .map_err(|e| DockerError::engine(format!("attach to container {name}"), e))?;
    Ok(Output {
        chunks: attached.output,
        _input: attached.input,
        text: String::new(),
    })
}

impl Output {
    /// Waits for the sidecar's ready line; fails with its last output when the container
    /// exits first or `within` passes.
    pub(crate) async fn ready(mut self, name: &str, within: Duration) -> Result<(), DockerError> {
        let outcome = tokio::time::timeout(within, self.until_ready()).await;
        match outcome {
            Ok(Ok(true)) => Ok(()),
            Ok(Ok(false)) => Err(DockerError::NotReady(format!(
                "the sidecar container {name} stopped before its browser was ready; its last output:\n{}",
                self.tail()
            ))),
            Ok(Err(e)) => Err(DockerError::engine(
                format!("read the output of container {name}"),
                e,
            )),
            Err(_) => Err(DockerError::NotReady(format!(
                "the browser in {name} was not ready within {within:?}; its last output:\n{}",
                self.tail()
            ))),
        }
    }

    /// True at the ready line, false when the stream ends without it.
    async fn until_ready(&mut self) -> Result<bool, bollard::errors::Error> {
        while let Some(chunk) = self.chunks.next().await {
            let bytes = match chunk? {
                LogOutput::StdOut { message }
                | LogOutput::StdErr { message }
                | LogOutput::Console { message } => message,
                LogOutput::StdIn { .. } => continue,
            };
            // The word may straddle two chunks.
            let mut searched_from = self.text.len().saturating_sub(READY_WORD.len());
            while !self.text.is_char_boundary(searched_from) {
                searched_from -= 1;
            }
            self.text.push_str(&String::from_utf8_lossy(&bytes));
            if has_ready_word(&self.text[searched_from..]) {
                return Ok(true);
            }
            if self.text.len() > KEEP {
                let cut = self.text.len() - KEEP;
                let cut = (cut..self.text.len())
                    .find(|&i| self.text.is_char_boundary(i))
                    .unwrap_or(self.text.len());
                self.text.drain(..cut);
            }
        }
        Ok(false)
    }

    fn tail(&self) -> String {
        let lines: Vec<&str> = self.text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }
}

/// Whether `text` holds the ready event as a word (not e.g. `chrome_not_ready`).
fn has_ready_word(text: &str) -> bool {
    text.match_indices(READY_WORD).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + READY_WORD.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !word(before) && !word(after)
    })
}

#[cfg(test)]
mod tests {
    use super::has_ready_word;

    #[test]
    fn the_ready_word_counts_even_with_chromes_output_inside_the_line() {
        assert!(has_ready_word(
            "[sidecar] listening addr=0.0.0.0:9222\n[sidecar] chrome_ready transport=pipe after_ms=310\n"
        ));
        // Seen under load: Chrome's stderr between the pieces of the sidecar's line.
        assert!(has_ready_word(
            "[sidecar] [7:37:ERROR:dbus/bus.cc:405] Failed\nchrome_ready[7:7:ERROR:dbus] x\n transport=pipe\n"
        ));
        assert!(!has_ready_word(
            "[sidecar] request_refused reason=chrome_not_ready\n"
        ));
        assert!(!has_ready_word("[sidecar] chrome_started pid=7\n"));
        assert!(!has_ready_word("chrome_readyish"));
    }
}
