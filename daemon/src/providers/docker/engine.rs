//! The connection to the Docker engine and the errors of talking to it.

use std::time::Duration;

use bollard::Docker;

use crate::providers::{Detail, ProviderError};

/// A failed Docker step, with what was being done.
#[derive(Debug, thiserror::Error)]
pub enum DockerError {
    /// The engine could not be reached at all (`detail`, the connection error, is for the log).
    #[error(
        "the Docker engine does not answer; start it (scripts/setup/docker.sh) or use local mode"
    )]
    Unreachable { detail: String },
    /// The engine answered with an error; its answer is the source, for the log only.
    #[error("Docker could not {action}; the daemon's log has the engine's answer")]
    Engine {
        action: String,
        #[source]
        source: bollard::errors::Error,
    },
    /// The sidecar image is not there (the engine's answer is the source).
    #[error("the sidecar image {image} is not there; build it with `porthole docker-build` (or POST /api/browser/image/build)")]
    ImageMissing {
        image: String,
        #[source]
        source: bollard::errors::Error,
    },
    /// An image build failed; `output` (the engine's message and the last build lines) is for
    /// the log only.
    #[error("building the sidecar image {image} failed; the daemon's log has the build output")]
    BuildFailed { image: String, output: String },
    /// A step did not finish in time.
    #[error("Docker did not {action} within {after:?}")]
    Timeout { action: String, after: Duration },
    /// Something the user configured or the engine holds is not usable; says what to do.
    #[error("{0}")]
    Invalid(String),
    /// The sidecar started but never became ready.
    #[error("{0}")]
    NotReady(String),
}

impl DockerError {
    /// The engine's own words (its answer, the connection error, the build output), for the
    /// log only.
    pub fn detail(&self) -> Option<String> {
        match self {
            DockerError::Unreachable { detail } => Some(detail.clone()),
            DockerError::BuildFailed { output, .. } => Some(output.clone()),
            DockerError::Engine { source, .. } | DockerError::ImageMissing { source, .. } => {
                Some(source.to_string())
            }
            DockerError::Timeout { .. } | DockerError::Invalid(_) | DockerError::NotReady(_) => {
                None
            }
        }
    }

    pub fn engine(action: impl Into<String>, source: bollard::errors::Error) -> Self {
        let action = action.into();
        if is_connection_error(&source) {
            return DockerError::Unreachable {
                detail: format!("{action}: {source}"),
            };
        }
        DockerError::Engine { action, source }
    }
}

/// True for an engine answer "404 no such …".
pub fn is_not_found(error: &bollard::errors::Error) -> bool {
    matches!(
        error,
        bollard::errors::Error::DockerResponseServerError {
            status_code: 404,
            ..
        }
    )
}

/// True for an engine answer "409 conflict" (name taken, removal already in progress …).
pub fn is_conflict(error: &bollard::errors::Error) -> bool {
    matches!(
        error,
        bollard::errors::Error::DockerResponseServerError {
            status_code: 409,
            ..
        }
    )
}

fn is_connection_error(error: &bollard::errors::Error) -> bool {
    use bollard::errors::Error as E;
    matches!(
        error,
        E::HyperResponseError { .. }
            | E::HyperLegacyError { .. }
            | E::IOError { .. }
            | E::SocketNotFoundError(_)
    ) || matches!(error, E::RequestTimeoutError)
}

impl From<DockerError> for ProviderError {
    fn from(error: DockerError) -> Self {
        let message = error.to_string();
        match error {
            DockerError::Unreachable { detail } => {
                ProviderError::unavailable(message).caused_by(Detail(detail))
            }
            DockerError::BuildFailed { output, .. } => {
                ProviderError::failed(message).caused_by(Detail(output))
            }
            error => ProviderError::failed(message).caused_by(error),
        }
    }
}

/// Connects to the local engine (`DOCKER_HOST` or the default socket), negotiates the API
/// version (the engine here speaks 1.41) and pings it, all within `deadline`.
pub async fn connect(deadline: Duration) -> Result<Docker, DockerError> {
    let docker = Docker::connect_with_local_defaults().map_err(|e| DockerError::Unreachable {
        detail: e.to_string(),
    })?;
    let ready = async {
        let docker = docker
            .negotiate_version()
            .await
            .map_err(|e| DockerError::Unreachable {
                detail: e.to_string(),
            })?;
        docker.ping().await.map_err(|e| DockerError::Unreachable {
            detail: e.to_string(),
        })?;
        Ok::<_, DockerError>(docker)
    };
    match tokio::time::timeout(deadline, ready).await {
        Ok(result) => result,
        Err(_) => Err(DockerError::Unreachable {
            detail: format!("no answer within {deadline:?}"),
        }),
    }
}
