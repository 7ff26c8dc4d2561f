//! CDP inside the Docker API connection (DESIGN.md §14): `docker exec <container>
//! porthole-sidecar cdp-pipe` relays NUL-framed CDP between its stdin/stdout and the sidecar's
//! private Unix socket (the sidecar shares Chrome's `--remote-debugging-pipe` among its
//! clients), and bollard's attached exec stream carries it, over the engine's own
//! TLS or SSH connection. Nothing of the container is published and no port is opened on any
//! network; the engine's authentication is the gate.
//!
//! This module only opens such a connection; which containers run is `provider`'s business.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bollard::container::LogOutput;
use bollard::exec::{CreateExecOptions, StartExecOptions, StartExecResults};
use bollard::Docker;
use futures_util::StreamExt;
use serde_json::json;

use super::engine::DockerError;
use crate::cdp::CdpConnection;

/// The sidecar binary in the image (chrome.Dockerfile).
const SIDECAR: &str = "/usr/local/bin/porthole-sidecar";
/// What the relay writes on stderr once Chrome answered its probe (`sidecar/src/pipe.rs`).
const READY_LINE: &str = "[sidecar] cdp_pipe_ready";
/// How much of the relay's stderr is kept for an error message.
const STDERR_KEEP: usize = 2000;
/// How often the engine is asked whether the relay still runs. Needed: the engine here
/// (Docker 20.10) keeps an exec's attach stream open after its process has exited, until the
/// client closes stdin, so the end of the relay alone never reaches the daemon.
const EXEC_POLL: Duration = Duration::from_secs(2);

/// Why the exec stream carrying CDP ended; the connection's lost reason.
#[derive(Debug, thiserror::Error)]
enum ExecStreamError {
    /// The engine connection under the exec broke (the error and its causes).
    #[error("the Docker engine connection carrying CDP failed: {0}")]
    Engine(String),
    /// The stream ended and the relay wrote nothing on stderr.
    #[error("the CDP exec stream ended (the container or the engine connection went away)")]
    Ended,
    /// The stream ended; the relay's last words on stderr.
    #[error("the CDP exec stream ended: {0}")]
    EndedSaying(String),
    /// The engine says the relay process exited.
    #[error("the CDP exec stream ended: the relay in the container exited (code {code})")]
    RelayExited { code: String },
    /// The engine no longer knows the exec's container.
    #[error("the CDP exec stream ended: the container is gone")]
    ContainerGone,
}

impl From<ExecStreamError> for std::io::Error {
    fn from(e: ExecStreamError) -> Self {
        std::io::Error::other(e)
    }
}

/// Opens a browser-level CDP connection to the sidecar `container` through an exec stream and
/// checks that Chrome answers on it (the relay's `cdp_pipe_ready`, or `Browser.getVersion`),
/// all within `deadline` (the relay itself waits for a starting Chrome).
pub async fn connect(
    docker: &Docker,
    container: &str,
    deadline: Duration,
) -> Result<CdpConnection, DockerError> {
    let work = async {
        let exec = docker
            .create_exec(
                container,
                CreateExecOptions {
                    attach_stdin: Some(true),
                    attach_stdout: Some(true),
                    attach_stderr: Some(true),
                    tty: Some(false),
                    cmd: Some(vec![SIDECAR, "cdp-pipe"]),
                    ..Default::default()
                },
            )
            .await
            .map_err(|e| DockerError::engine(format!("exec into {container}"), e))?;
        let started = docker
            .start_exec(
                &exec.id,
                Some(StartExecOptions {
                    detach: false,
                    tty: false,
                    output_capacity: None,
                }),
            )
            .await
            .map_err(|e| DockerError::engine(format!("start the CDP exec in {container}"), e))?;
        let StartExecResults::Attached { output, input } = started else {
            return Err(DockerError::NotReady(format!(
                "the engine started the CDP exec in {container} detached"
            )));
        };
        let stderr = Arc::new(Mutex::new(String::new()));
        let said_ready = Arc::new(tokio::sync::Notify::new());
        let chunks = output.filter_map({
            let stderr = stderr.clone();
            let said_ready = said_ready.clone();
            let container = container.to_string();
            move |item| {
                let out = match item {
                    Ok(LogOutput::StdOut { message }) => Some(Ok(message)),
                    Ok(LogOutput::StdErr { message }) => {
                        let text = String::from_utf8_lossy(&message);
                        // Short lock, never held across an await.
                        let mut kept = stderr.lock().expect("exec stderr lock");
                        let before = kept.rfind('\n').map_or(0, |i| i + 1);
                        kept.push_str(&text);
                        // Log each line once it is whole (the relay writes a line in pieces).
                        if let Some(end) = kept.rfind('\n') {
                            for line in kept[before..end].lines().filter(|l| !l.trim().is_empty()) {
                                tracing::debug!(event = "cdp_exec_stderr", container = %container, line);
                                if line.trim_end() == READY_LINE {
                                    said_ready.notify_one();
                                }
                            }
                        }
                        if kept.len() > STDERR_KEEP {
                            let cut = kept.len() - STDERR_KEEP;
                            let cut = (cut..kept.len())
                                .find(|&i| kept.is_char_boundary(i))
                                .unwrap_or(kept.len());
                            kept.drain(..cut);
                        }
                        None
                    }
                    Ok(_) => None,
                    Err(e) => Some(Err(ExecStreamError::Engine(super::engine::error_chain(&e)).into())),
                };
                futures_util::future::ready(out)
            }
        });
        // When the exec ends, say why (the relay's last words), not just "closed".
        let ended = futures_util::stream::once({
            let stderr = stderr.clone();
            async move {
                let said = stderr.lock().expect("exec stderr lock").trim().to_string();
                Err(if said.is_empty() {
                    ExecStreamError::Ended
                } else {
                    ExecStreamError::EndedSaying(said)
                }
                .into())
            }
        });
        let exited = relay_exited(docker.clone(), exec.id.clone());
        let name = format!("docker-exec://{container}");
        let chunks = futures_util::stream::select(chunks.chain(ended), exited);
        let cdp = CdpConnection::over_byte_stream(input, Box::pin(chunks), &name);
        // A deadline for the whole check; the relay waits for Chrome itself. The relay says
        // when Chrome answered its own probe (no round trip of ours); a relay from an older
        // image does not, and the daemon's own `Browser.getVersion` answers instead.
        let version = cdp.call_with("Browser.getVersion", json!({}), None, deadline);
        let answered = tokio::select! {
            answered = version => answered.map(|_| "get_version"),
            () = said_ready.notified() => Ok("relay"),
        };
        if let Ok(by) = answered {
            tracing::debug!(
                event = "cdp_exec_ready",
                container,
                by,
                "Chrome answers on the exec stream"
            );
        }
        match answered {
            Ok(_) => Ok(cdp),
            Err(error) => {
                let said = stderr.lock().expect("exec stderr lock").trim().to_string();
                let hint = if said.contains("unexpected argument \"cdp-pipe\"")
                    || said.contains("executable file not found")
                {
                    " (the image predates `porthole-sidecar cdp-pipe`: rebuild it with `porthole docker-build`)"
                } else {
                    ""
                };
                Err(DockerError::NotReady(format!(
                    "the browser in {container} did not answer over the Docker exec stream ({error}){hint}; the relay said: {said}"
                )))
            }
        }
    };
    match tokio::time::timeout(deadline, work).await {
        Ok(result) => result,
        Err(_) => Err(DockerError::Timeout {
            action: format!("open CDP through an exec into {container}"),
            after: deadline,
        }),
    }
}

/// A stream that yields one error once the engine says the exec `id` no longer runs (and
/// nothing before); it ends with the connection that polls it.
fn relay_exited(
    docker: Docker,
    id: String,
) -> impl futures_util::Stream<Item = Result<bytes::Bytes, std::io::Error>> + Send {
    futures_util::stream::unfold(Some((docker, id)), |state| async move {
        let (docker, id) = state?;
        loop {
            tokio::time::sleep(EXEC_POLL).await;
            match docker.inspect_exec(&id).await {
                Ok(info) if info.running == Some(false) => {
                    let code = info
                        .exit_code
                        .map_or_else(|| "unknown".to_string(), |c| c.to_string());
                    return Some((Err(ExecStreamError::RelayExited { code }.into()), None));
                }
                Err(e) if super::engine::is_not_found(&e) => {
                    return Some((Err(ExecStreamError::ContainerGone.into()), None));
                }
                // Running, or the engine did not answer this once: the stream itself reports
                // a connection that is really gone.
                _ => {}
            }
        }
    })
}
