//! Files a sidecar's browser saved (its downloads), read back through the engine's archive
//! API (`GET /containers/{id}/archive`, what `docker cp` uses): the same call for a local
//! engine and for one on another machine, with nothing of the daemon's disk mounted in. The
//! archive is read as it arrives: its headers are skipped and the one file's bytes handed on,
//! so a large download never sits whole in the daemon's memory.

use async_trait::async_trait;
use bollard::query_parameters::DownloadFromContainerOptions;
use bollard::Docker;
use futures_util::{stream, StreamExt};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::io::StreamReader;

use super::engine::{is_not_found, DockerError};
use crate::providers::{BrowserFiles, FileReader, ProviderError};

/// A tar archive's block: every header and every file's padded data come in these.
const BLOCK: u64 = 512;

/// The files of one sidecar container.
pub struct ContainerFiles {
    pub docker: Docker,
    /// The container's name.
    pub container: String,
}

#[async_trait]
impl BrowserFiles for ContainerFiles {
    async fn read(&self, path: &str, limit: u64) -> Result<Vec<u8>, ProviderError> {
        let (mut reader, size) = self.open(path, limit).await?;
        let mut bytes = Vec::with_capacity(size as usize);
        reader.read_to_end(&mut bytes).await.map_err(unreadable)?;
        Ok(bytes)
    }

    async fn open(&self, path: &str, limit: u64) -> Result<(FileReader, u64), ProviderError> {
        let options = DownloadFromContainerOptions {
            path: path.to_string(),
        };
        let mut archive = self
            .docker
            .download_from_container(&self.container, Some(options))
            .boxed();
        // The engine's refusal (no such file, no such container) comes as the first item;
        // it is told apart here, before the bytes become a plain reader.
        let first = match archive.next().await {
            Some(Ok(chunk)) => chunk,
            Some(Err(error)) if is_not_found(&error) => {
                return Err(ProviderError::refused(format!(
                    "the file is no longer in the browser's container ({path}); its browser may have been reset"
                )))
            }
            Some(Err(error)) => {
                return Err(DockerError::engine(
                    "read a downloaded file from the browser's container",
                    error,
                )
                .into())
            }
            None => bytes::Bytes::new(),
        };
        let chunks = stream::iter([Ok(first)])
            .chain(archive)
            .map(|chunk| chunk.map_err(std::io::Error::other));
        only_file(StreamReader::new(chunks), limit).await
    }
}

/// The single regular file in the tar archive `archive`, as a reader of its bytes and its
/// size: the headers before it (a long name, PAX records) are read past.
async fn only_file<R>(mut archive: R, limit: u64) -> Result<(FileReader, u64), ProviderError>
where
    R: AsyncRead + Send + Unpin + 'static,
{
    loop {
        let mut block = [0u8; BLOCK as usize];
        archive.read_exact(&mut block).await.map_err(unreadable)?;
        if block.iter().all(|b| *b == 0) {
            return Err(not_a_file());
        }
        let header = tar::Header::from_byte_slice(&block);
        checksum_holds(header)?;
        let size = header.entry_size().map_err(unreadable)?;
        if header.entry_type().is_file() {
            if size > limit {
                return Err(too_big(limit));
            }
            return Ok((Box::new(archive.take(size)), size));
        }
        if !header.entry_type().is_pax_global_extensions()
            && !header.entry_type().is_pax_local_extensions()
            && !header.entry_type().is_gnu_longname()
            && !header.entry_type().is_gnu_longlink()
        {
            return Err(not_a_file());
        }
        let padded = size.div_ceil(BLOCK) * BLOCK;
        let skipped = tokio::io::copy(&mut (&mut archive).take(padded), &mut tokio::io::sink())
            .await
            .map_err(unreadable)?;
        if skipped < padded {
            return Err(unreadable(std::io::ErrorKind::UnexpectedEof.into()));
        }
    }
}

/// A header whose checksum is wrong is not a tar header: the engine sent something else.
fn checksum_holds(header: &tar::Header) -> Result<(), ProviderError> {
    let stored = header.cksum().map_err(unreadable)?;
    let bytes = header.as_bytes();
    let computed: u32 = bytes[..148]
        .iter()
        .chain([b' '; 8].iter())
        .chain(bytes[156..].iter())
        .map(|b| u32::from(*b))
        .sum();
    if stored == computed {
        Ok(())
    } else {
        Err(unreadable(std::io::ErrorKind::InvalidData.into()))
    }
}

fn unreadable(cause: std::io::Error) -> ProviderError {
    ProviderError::failed("the engine sent the file in a form that could not be read")
        .caused_by(cause)
}

fn not_a_file() -> ProviderError {
    ProviderError::refused("that path in the browser's container is not a file")
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

    async fn read_back(tar: Vec<u8>, limit: u64) -> Result<Vec<u8>, ProviderError> {
        let (mut reader, size) = only_file(std::io::Cursor::new(tar), limit).await?;
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await.unwrap();
        assert_eq!(bytes.len() as u64, size);
        Ok(bytes)
    }

    #[tokio::test]
    async fn the_one_file_is_read_and_the_limit_holds() {
        let tar = tar_of("d1", b"invoice bytes");
        assert_eq!(read_back(tar.clone(), 100).await.unwrap(), b"invoice bytes");
        let error = read_back(tar, 5).await.unwrap_err();
        assert!(error.message().contains("larger than 5"), "{error}");
        let junk = b"not a tar at all, just words".repeat(40);
        let error = read_back(junk, 100).await.unwrap_err();
        assert!(error.message().contains("could not be read"), "{error}");
        assert!(!error.message().contains("os error"), "{error}");
    }

    #[tokio::test]
    async fn a_long_name_header_before_the_file_is_read_past() {
        // GNU tar writes a name over 100 bytes as a header of its own before the file's.
        let long = format!("{}/résumé final.pdf", "d".repeat(150));
        let body: Vec<u8> = (0..70_000u32).map(|i| (i % 251) as u8).collect();
        let tar = tar_of(&long, &body);
        assert!(
            tar.len() > body.len() + 3 * BLOCK as usize,
            "a long-name header was written"
        );
        assert_eq!(read_back(tar, 1 << 20).await.unwrap(), body);
    }

    #[tokio::test]
    async fn a_directory_is_not_a_file() {
        let mut builder = tar::Builder::new(Vec::new());
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Directory);
        header.set_size(0);
        header.set_cksum();
        builder
            .append_data(&mut header, "downloads/", &[][..])
            .unwrap();
        let error = read_back(builder.into_inner().unwrap(), 100)
            .await
            .unwrap_err();
        assert!(error.message().contains("not a file"), "{error}");
    }
}
