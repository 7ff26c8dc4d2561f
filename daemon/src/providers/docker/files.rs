//! Files a sidecar's browser saved (its downloads), read back through the engine's archive
//! API (`GET /containers/{id}/archive`, what `docker cp` uses): the same call for a local
//! engine and for one on another machine, with nothing of the daemon's disk mounted in.

use async_trait::async_trait;
use bollard::query_parameters::DownloadFromContainerOptions;
use bollard::Docker;
use futures_util::StreamExt;

use super::engine::{is_not_found, DockerError};
use crate::providers::{BrowserFiles, ProviderError};

/// Room for the tar headers around one file.
const TAR_OVERHEAD: u64 = 64 * 1024;

/// The files of one sidecar container.
pub struct ContainerFiles {
    pub docker: Docker,
    /// The container's name.
    pub container: String,
}

#[async_trait]
impl BrowserFiles for ContainerFiles {
    async fn read(&self, path: &str, limit: u64) -> Result<Vec<u8>, ProviderError> {
        let options = DownloadFromContainerOptions {
            path: path.to_string(),
        };
        let mut stream = self
            .docker
            .download_from_container(&self.container, Some(options));
        let mut tar = Vec::new();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|error| {
                if is_not_found(&error) {
                    ProviderError::refused(format!(
                        "the file is no longer in the browser's container ({path}); its browser may have been reset"
                    ))
                } else {
                    DockerError::engine("read a downloaded file from the browser's container", error)
                        .into()
                }
            })?;
            tar.extend_from_slice(&chunk);
            if tar.len() as u64 > limit + TAR_OVERHEAD {
                return Err(too_big(limit));
            }
        }
        only_file(&tar, limit)
    }
}

/// The bytes of the single regular file in `tar`.
fn only_file(tar: &[u8], limit: u64) -> Result<Vec<u8>, ProviderError> {
    let unreadable = |cause: std::io::Error| {
        ProviderError::failed("the engine sent the file in a form that could not be read")
            .caused_by(cause)
    };
    let mut archive = tar::Archive::new(tar);
    for entry in archive.entries().map_err(unreadable)? {
        let mut entry = entry.map_err(unreadable)?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        if entry.size() > limit {
            return Err(too_big(limit));
        }
        let mut bytes = Vec::with_capacity(entry.size() as usize);
        std::io::Read::read_to_end(&mut entry, &mut bytes).map_err(unreadable)?;
        return Ok(bytes);
    }
    Err(ProviderError::refused(
        "that path in the browser's container is not a file",
    ))
}

fn too_big(limit: u64) -> ProviderError {
    ProviderError::refused(format!("the file is larger than {limit} bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tar_of(name: &str, bytes: &[u8]) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append_data(&mut header, name, bytes).unwrap();
        builder.into_inner().unwrap()
    }

    #[test]
    fn the_one_file_is_read_and_the_limit_holds() {
        let tar = tar_of("d1", b"invoice bytes");
        assert_eq!(only_file(&tar, 100).unwrap(), b"invoice bytes");
        let error = only_file(&tar, 5).unwrap_err();
        assert!(error.message().contains("larger than 5"), "{error}");
        let error = only_file(b"not a tar at all, just words", 100).unwrap_err();
        assert!(!error.message().contains("os error"), "{error}");
    }
}
