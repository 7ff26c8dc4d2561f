//! `upload_file` done by the calling process: the files an agent names are read where the MCP
//! server runs (the agent's container for `porthole-mcp`, the user's machine for
//! `mcp-host-browser`) and sent inline ([`InlineFile`], base64), within
//! [`MAX_UPLOAD_BYTES`] for all files together. The daemon never reads an agent's paths.

use base64::Engine as _;

use crate::vocabulary::{InlineFile, UploadFileArgs, MAX_UPLOAD_BYTES};

/// A file named to `upload_file` cannot be sent; the message names it and what to do.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    /// The file is missing or unreadable.
    #[error("upload_file: cannot read {path}: {source}")]
    Unreadable {
        path: String,
        source: std::io::Error,
    },
    /// The path names a directory or another non-file.
    #[error("upload_file: {path} is not a file")]
    NotAFile { path: String },
    /// This file takes the upload over [`MAX_UPLOAD_BYTES`].
    #[error(
        "upload_file: {path} ({size} bytes) takes the upload to {total} bytes, over the cap \
         of {MAX_UPLOAD_BYTES} bytes (10 MiB) for all files together; upload fewer or \
         smaller files"
    )]
    OverCap { path: String, size: u64, total: u64 },
    /// The path ends without a file name (`..`, `/`).
    #[error("upload_file: {path} has no file name")]
    NoFileName { path: String },
}

/// Reads `args.paths` into [`InlineFile`]s; `Err` says which file is missing, unreadable, not
/// a file, or pushes the total over the cap.
pub async fn inline_files(args: &UploadFileArgs) -> Result<Vec<InlineFile>, UploadError> {
    let mut total: u64 = 0;
    let mut files = Vec::with_capacity(args.paths.len());
    for path in &args.paths {
        let unreadable = |source| UploadError::Unreadable {
            path: path.clone(),
            source,
        };
        let meta = tokio::fs::metadata(path).await.map_err(unreadable)?;
        if !meta.is_file() {
            return Err(UploadError::NotAFile { path: path.clone() });
        }
        total += meta.len();
        if total > MAX_UPLOAD_BYTES {
            return Err(UploadError::OverCap {
                path: path.clone(),
                size: meta.len(),
                total,
            });
        }
        let bytes = tokio::fs::read(path).await.map_err(unreadable)?;
        let name = std::path::Path::new(path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| UploadError::NoFileName { path: path.clone() })?;
        files.push(InlineFile {
            name,
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
        });
    }
    Ok(files)
}

/// `args` with its files read and attached (for a backend that runs the upload elsewhere).
pub async fn with_inline_files(mut args: UploadFileArgs) -> Result<UploadFileArgs, UploadError> {
    if args.files.is_none() {
        args.files = Some(inline_files(&args).await?);
    }
    Ok(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reads_files_and_names_the_bad_one() {
        let dir = std::env::temp_dir().join(format!("porthole-upload-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = dir.join("a.txt");
        std::fs::write(&a, b"hello").unwrap();
        let args = |paths: Vec<String>| UploadFileArgs {
            element_ref: Some("e1".into()),
            paths,
            files: None,
        };
        let files = inline_files(&args(vec![a.display().to_string()]))
            .await
            .unwrap();
        assert_eq!(files[0].name, "a.txt");
        assert_eq!(files[0].data, "aGVsbG8=");
        let missing = dir.join("missing.txt").display().to_string();
        let e = inline_files(&args(vec![missing.clone()]))
            .await
            .unwrap_err();
        assert!(e.to_string().contains(&missing), "{e}");
        let e = inline_files(&args(vec![dir.display().to_string()]))
            .await
            .unwrap_err();
        assert!(e.to_string().contains("is not a file"), "{e}");
        let big = dir.join("big.bin");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(MAX_UPLOAD_BYTES + 1)
            .unwrap();
        let e = inline_files(&args(vec![big.display().to_string()]))
            .await
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "upload_file: {} ({} bytes) takes the upload to {} bytes, over the cap of {} bytes \
                 (10 MiB) for all files together; upload fewer or smaller files",
                big.display(),
                MAX_UPLOAD_BYTES + 1,
                MAX_UPLOAD_BYTES + 1,
                MAX_UPLOAD_BYTES
            )
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
