//! `upload_file`, `list_downloads` and `get_download` on the engine.
//!
//! An upload arrives with its files inline (porthole-mcp reads them where the agent runs;
//! mcp-host-browser reads them itself before calling): they are written to a fresh directory
//! of the session's ([`crate::browser::files`]) and set on the input with
//! `DOM.setFileInputFiles` — or, in docker mode, where the browser cannot see the daemon's
//! disk, built in the page from their bytes and set through a `DataTransfer` — then read back
//! from the input. Downloads are what the session
//! recorded; a finished one is returned as an embedded resource (base64) with its path.

use std::sync::Arc;

use base64::Engine as _;
use porthole_mcp::vocabulary::{GetDownloadArgs, UploadFileArgs, MAX_UPLOAD_BYTES};
use porthole_mcp::{BlobResource, Content, ToolOutput};
use serde_json::{json, Value};

use super::driver::{helper_object_on, helper_on, Tab};
use super::error::ToolError;
use super::refs;
use crate::browser::files::{DownloadState, DownloadTracking};
use crate::browser::BrowserSession;
use crate::mode::Mode;

/// The largest download `get_download` returns inline; a larger one is named by path only.
const MAX_INLINE_DOWNLOAD: u64 = 10 * 1024 * 1024;

/// `upload_file`.
pub async fn upload_file(tab: &Tab, args: &UploadFileArgs) -> Result<ToolOutput, ToolError> {
    let Some(files) = &args.files else {
        return Err(ToolError::msg(
            "upload_file reached the daemon without its files: call it through porthole-mcp \
             (which reads the paths where the agent runs and sends the files).",
        ));
    };
    let r = args.element_ref.trim();
    let (session, iframe) = refs::locate(tab, r)?;
    let input = helper_on(tab.cdp(), &session, "fileInput", &[Value::from(r)])
        .await
        .map_err(|e| refs::frame_gone(r, &iframe, e))?;
    if let Some(error) = refs::ref_error(tab, r, &input) {
        return Err(error);
    }
    if files.len() > 1 && input["multiple"] != true {
        return Err(ToolError::msg(format!(
            "{} takes one file (it has no `multiple` attribute); got {}.",
            input["what"].as_str().unwrap_or("the input"),
            files.len()
        )));
    }
    let mut decoded = Vec::with_capacity(files.len());
    let mut total = 0u64;
    for (file, path) in files.iter().zip(&args.paths) {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&file.data)
            .map_err(|e| ToolError::msg(format!("upload_file: {path} arrived garbled ({e})")))?;
        total += bytes.len() as u64;
        if total > MAX_UPLOAD_BYTES {
            return Err(ToolError::msg(format!(
                "upload_file: the files come to more than the cap of {MAX_UPLOAD_BYTES} bytes \
                 (10 MiB) at {path}; upload fewer or smaller files"
            )));
        }
        decoded.push((file.name.as_str(), bytes));
    }
    if tab.browser.mode() == Mode::Docker {
        // The browser runs in a container that cannot see the daemon's files: build them in
        // the page from their bytes instead.
        let inline: Vec<Value> = files
            .iter()
            .map(|f| json!({"name": f.name, "data": f.data, "type": mime_type(&f.name)}))
            .collect();
        let answer = helper_on(
            tab.cdp(),
            &session,
            "setFiles",
            &[Value::from(r), Value::from(inline)],
        )
        .await
        .map_err(|e| refs::frame_gone(r, &iframe, e))?;
        if let Some(error) = refs::ref_error(tab, r, &answer) {
            return Err(error);
        }
    } else {
        set_from_disk(tab, &session, r, &iframe, &decoded).await?;
    }
    // Read back what the input now holds.
    let after = helper_on(tab.cdp(), &session, "fileInput", &[Value::from(r)]).await?;
    let held: Vec<String> = after["files"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            format!(
                "{} ({} bytes)",
                f["name"].as_str().unwrap_or_default(),
                f["size"].as_u64().unwrap_or(0)
            )
        })
        .collect();
    if held.len() != decoded.len() {
        return Err(ToolError::msg(format!(
            "upload_file set {} file(s) but {} holds {}: {}",
            decoded.len(),
            after["what"].as_str().unwrap_or("the input"),
            held.len(),
            held.join(", ")
        )));
    }
    Ok(ToolOutput::text(format!(
        "{} now holds {}.",
        after["what"].as_str().unwrap_or("The input"),
        held.join(", ")
    )))
}

/// Writes the files to a fresh folder of the session's and sets them on the input with
/// `DOM.setFileInputFiles` (the browser reads them from there, as after a person's pick).
async fn set_from_disk(
    tab: &Tab,
    session: &str,
    r: &str,
    iframe: &Option<String>,
    decoded: &[(&str, Vec<u8>)],
) -> Result<(), ToolError> {
    let dir = tab
        .browser
        .files()
        .upload_dir()
        .map_err(|e| ToolError::msg(format!("upload_file: no place for the files ({e})")))?;
    let mut paths = Vec::with_capacity(decoded.len());
    for (i, (name, bytes)) in decoded.iter().enumerate() {
        // One folder per file, so two files of the same name from different folders both go.
        let store = async {
            let folder = dir.join(i.to_string());
            tokio::fs::create_dir_all(&folder).await?;
            let path = folder.join(name);
            tokio::fs::write(&path, bytes).await?;
            Ok::<_, std::io::Error>(path)
        };
        let path = store
            .await
            .map_err(|e| ToolError::msg(format!("upload_file: could not store {name} ({e})")))?;
        paths.push(path.display().to_string());
    }
    let Some(object) = helper_object_on(tab.cdp(), session, "element", &[Value::from(r)])
        .await
        .map_err(|e| refs::frame_gone(r, iframe, e))?
    else {
        return Err(ToolError::msg(format!(
            "Ref {r} left the page while the files were being set. Call read_page again."
        )));
    };
    let set = tab
        .cdp()
        .call_on(
            session,
            "DOM.setFileInputFiles",
            json!({"files": paths, "objectId": object}),
        )
        .await;
    let _ = tab
        .cdp()
        .call_on(
            session,
            "Runtime.releaseObject",
            json!({ "objectId": object }),
        )
        .await;
    set?;
    Ok(())
}

/// `list_downloads`.
pub fn list_downloads(browser: &Arc<BrowserSession>) -> ToolOutput {
    let files = browser.files();
    if let DownloadTracking::Off(why) = files.tracking() {
        return ToolOutput::text(format!("Downloads are not listed: {why}."));
    }
    let downloads = files.downloads();
    if downloads.is_empty() {
        return ToolOutput::text("No downloads yet in this browser.");
    }
    let lines: Vec<String> = downloads
        .iter()
        .map(|d| {
            let size = if d.state == DownloadState::InProgress && d.total > 0 {
                format!("{} of {} bytes", d.received, d.total)
            } else {
                format!("{} bytes", d.received)
            };
            format!(
                "[{}] {} — {size}, {}, {}",
                d.id,
                d.name,
                mime_type(&d.name),
                d.state.as_str()
            )
        })
        .collect();
    ToolOutput::text(format!(
        "{}\nget_download {{id}} returns a finished one's bytes.",
        lines.join("\n")
    ))
}

/// `get_download`.
pub async fn get_download(
    browser: &Arc<BrowserSession>,
    args: &GetDownloadArgs,
) -> Result<ToolOutput, ToolError> {
    let files = browser.files();
    if let DownloadTracking::Off(why) = files.tracking() {
        return Err(ToolError::msg(format!("Downloads are not listed: {why}.")));
    }
    let Some(d) = files.download(&args.id) else {
        let known: Vec<String> = files.downloads().into_iter().map(|d| d.id).collect();
        return Err(ToolError::msg(if known.is_empty() {
            format!("No download {}: there are no downloads yet.", args.id)
        } else {
            format!(
                "No download {}; the downloads are {}. See list_downloads.",
                args.id,
                known.join(", ")
            )
        }));
    };
    match d.state {
        DownloadState::InProgress => {
            let of = if d.total > 0 {
                format!(" of {}", d.total)
            } else {
                String::new()
            };
            return Err(ToolError::msg(format!(
                "Download {} ({}) is still running ({} bytes{of} so far); call get_download \
                 again in a moment.",
                d.id, d.name, d.received
            )));
        }
        DownloadState::Canceled => {
            return Err(ToolError::msg(format!(
                "Download {} ({}) was canceled; there are no bytes to return.",
                d.id, d.name
            )));
        }
        DownloadState::Completed => {}
    }
    let mime = mime_type(&d.name);
    let size = tokio::fs::metadata(&d.path)
        .await
        .map_err(|e| ToolError::msg(format!("Download {} ({}) is gone: {e}", d.id, d.name)))?
        .len();
    let about = format!(
        "[{}] {} — {size} bytes, {mime}, saved at {}",
        d.id,
        d.name,
        d.path.display()
    );
    if size > MAX_INLINE_DOWNLOAD {
        return Ok(ToolOutput::text(format!(
            "{about}. Over {MAX_INLINE_DOWNLOAD} bytes, so not returned inline: read it from \
             that path."
        )));
    }
    let bytes = tokio::fs::read(&d.path)
        .await
        .map_err(|e| ToolError::msg(format!("Download {} ({}) is gone: {e}", d.id, d.name)))?;
    let mut out = ToolOutput::text(format!("{about}. The bytes follow as a resource."));
    out.content.push(Content::Resource {
        resource: BlobResource {
            uri: format!("file://{}", d.path.display()),
            mime_type: mime.to_string(),
            blob: base64::engine::general_purpose::STANDARD.encode(bytes),
        },
    });
    Ok(out)
}

/// A MIME type from a file name's extension (Chrome's download events carry none).
fn mime_type(name: &str) -> &'static str {
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "txt" | "log" => "text/plain",
        "csv" => "text/csv",
        "html" | "htm" => "text/html",
        "json" => "application/json",
        "xml" => "application/xml",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" => "application/gzip",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "webp" => "image/webp",
        "doc" => "application/msword",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::mime_type;

    #[test]
    fn mime_types_from_names() {
        assert_eq!(mime_type("Report.PDF"), "application/pdf");
        assert_eq!(mime_type("notes.txt"), "text/plain");
        assert_eq!(mime_type("blob"), "application/octet-stream");
    }
}
