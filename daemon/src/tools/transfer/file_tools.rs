//! `upload_file`, `list_downloads` and `get_download` on the engine.
//!
//! An upload arrives with its files inline (porthole-mcp reads them where the agent runs;
//! mcp-host-browser reads them itself before calling): they are built in the page from their
//! bytes and set on the input through a `DataTransfer`, then read back from the input — in
//! every mode, by the tools' helper in Porthole's isolated world (DESIGN.md §13, §16), the
//! file-chooser path included. Nothing is written to disk, so no temporary file outlives the
//! call (a file-backed `File` would have to stay on disk for as long as the page may read
//! it). An agent's uploaded files are kept by name in memory for the session
//! (`SessionFiles::agent_uploads`), where its CDP door client may name them. Downloads are what the session
//! recorded, each agent seeing those from its own tabs; a finished one is returned as an
//! embedded resource (base64) with its path.

use std::sync::Arc;

use base64::Engine as _;
use porthole_mcp::vocabulary::{GetDownloadArgs, InlineFile, UploadFileArgs, MAX_UPLOAD_BYTES};
use porthole_mcp::{BlobResource, Content, ToolOutput};
use serde_json::{json, Value};

use crate::browser::{Actor, BrowserSession};
use crate::browser::{Download, DownloadState, DownloadTracking, ReadBack};
use crate::cdp::CdpError;
use crate::tools::error::ToolError;
use crate::tools::tab::driver::{helper_on, Tab};
use crate::tools::tab::element_refs as refs;

/// The largest download `get_download` returns inline; a larger one is named by path only.
/// page.js's `setFilesOf` on a file input (`Runtime.callFunctionOn`).
const SET_FILES_OF: &str = include_str!("js/set-files-of.js");
/// page.js's `filesOf` on a file input (`Runtime.callFunctionOn`).
const FILES_OF: &str = include_str!("js/files-of.js");
const MAX_INLINE_DOWNLOAD: u64 = 10 * 1024 * 1024;
/// How long `get_download` waits for Chrome to say a download whose every byte is in completed.
const LAST_WORD: std::time::Duration = std::time::Duration::from_secs(2);

/// `upload_file`.
pub async fn upload_file(tab: &Tab, args: &UploadFileArgs) -> Result<ToolOutput, ToolError> {
    let Some(files) = &args.files else {
        return Err(ToolError::msg(
            "upload_file reached the daemon without its files: call it through porthole-mcp \
             (which reads the paths where the agent runs and sends the files).",
        ));
    };
    let decoded = decode(files, &args.paths)?;
    let uploaded = match args.element_ref.as_deref().map(str::trim) {
        Some(r) => {
            // Setting files by ref answers any chooser the page had opened, too.
            tab.browser.files().take_chooser(&tab.session_id);
            upload_to_ref(tab, r, files, &decoded).await
        }
        None => upload_to_chooser(tab, files, &decoded).await,
    }?;
    // The agent's upload area: its CDP door client may name these files (cdp_door/files.rs).
    if let Actor::Agent { id, .. } = &tab.actor {
        tab.browser.files().agent_uploads().keep(id, files);
    }
    Ok(uploaded)
}

/// The files' bytes, within the cap.
fn decode<'a>(
    files: &'a [InlineFile],
    paths: &[String],
) -> Result<Vec<(&'a str, Vec<u8>)>, ToolError> {
    let mut decoded = Vec::with_capacity(files.len());
    let mut total = 0u64;
    for (file, path) in files.iter().zip(paths) {
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
    Ok(decoded)
}

/// The files as the page builds them in docker mode.
fn inline_json(files: &[InlineFile]) -> Value {
    Value::from(
        files
            .iter()
            .map(|f| json!({"name": f.name, "data": f.data, "type": mime_type(&f.name)}))
            .collect::<Vec<_>>(),
    )
}

fn one_file_only(what: &str, count: usize) -> ToolError {
    ToolError::msg(format!(
        "{what} takes one file (it has no `multiple` attribute); got {count}."
    ))
}

/// Sets the files on the input behind ref `r`.
async fn upload_to_ref(
    tab: &Tab,
    r: &str,
    files: &[InlineFile],
    decoded: &[(&str, Vec<u8>)],
) -> Result<ToolOutput, ToolError> {
    let (session, iframe) = refs::locate(tab, r)?;
    let input = helper_on(&tab.browser, &session, "fileInput", &[Value::from(r)])
        .await
        .map_err(|e| refs::frame_gone(r, &iframe, e))?;
    if let Some(error) = refs::ref_error(tab, r, &input) {
        return Err(error);
    }
    if files.len() > 1 && input["multiple"] != true {
        let what = input["what"].as_str().unwrap_or("the input");
        return Err(one_file_only(what, files.len()));
    }
    let answer = helper_on(
        &tab.browser,
        &session,
        "setFiles",
        &[Value::from(r), inline_json(files)],
    )
    .await
    .map_err(|e| refs::frame_gone(r, &iframe, e))?;
    if let Some(error) = refs::ref_error(tab, r, &answer) {
        return Err(error);
    }
    let after = helper_on(&tab.browser, &session, "fileInput", &[Value::from(r)]).await?;
    held(&after, decoded.len())
}

/// Sets the files on the input whose file chooser the page opened last (the chooser was
/// intercepted, so no dialog is waiting on anyone).
async fn upload_to_chooser(
    tab: &Tab,
    files: &[InlineFile],
    decoded: &[(&str, Vec<u8>)],
) -> Result<ToolOutput, ToolError> {
    let Some(chooser) = tab.browser.files().take_chooser(&tab.session_id) else {
        return Err(ToolError::msg(
            "upload_file needs `ref` (the file input's ref from read_page or find) unless the \
             page has just opened a file chooser: click its upload button first, or give the \
             ref.",
        ));
    };
    if files.len() > 1 && !chooser.multiple {
        return Err(one_file_only("The file chooser", files.len()));
    }
    let session = tab.session_id.as_str();
    on_node(
        tab,
        session,
        chooser.backend_node_id,
        SET_FILES_OF,
        inline_json(files),
    )
    .await?;
    let after = on_node(tab, session, chooser.backend_node_id, FILES_OF, Value::Null).await?;
    held(&after, decoded.len())
}

/// Calls `function(node, arg)` on the node `backend_node_id` in the tools' isolated world of
/// `session`'s frame, never the page's own: the node is resolved into that world, and Chrome
/// refuses an argument from another world, so a stale world fails instead of running in the
/// page. A world a navigation destroyed is made again once.
async fn on_node(
    tab: &Tab,
    session: &str,
    backend_node_id: i64,
    function: &str,
    arg: Value,
) -> Result<Value, ToolError> {
    let gone = || {
        ToolError::msg(
            "The file input whose chooser the page opened is gone (the page changed). Click \
             its upload button again, or give upload_file a ref.",
        )
    };
    let mut retried = false;
    loop {
        let world = crate::tools::tab::world::world(&tab.browser, session).await?;
        let attempt = async {
            let resolve =
                json!({"backendNodeId": backend_node_id, "executionContextId": world.context_id});
            let mut resolved = tab
                .cdp()
                .call_on(session, "DOM.resolveNode", resolve.clone())
                .await;
            if matches!(&resolved, Err(e) if !is_world_gone(e)) {
                let _ = tab.cdp().call_on(session, "DOM.enable", json!({})).await;
                resolved = tab.cdp().call_on(session, "DOM.resolveNode", resolve).await;
            }
            let object = resolved?["object"]["objectId"].as_str().map(str::to_string);
            let Some(object) = object else {
                return Ok(None);
            };
            let called = tab
                .cdp()
                .call_on(
                    session,
                    "Runtime.callFunctionOn",
                    json!({
                        "functionDeclaration": function,
                        "uniqueContextId": world.unique_id,
                        "arguments": [{"objectId": object}, {"value": arg}],
                        "returnByValue": true,
                        "awaitPromise": true,
                    }),
                )
                .await;
            release(tab, session, &object).await;
            called.map(Some)
        }
        .await;
        match attempt {
            Ok(Some(reply)) => {
                if let Some(text) = crate::cdp::thrown(&reply) {
                    return Err(ToolError::msg(format!("JavaScript error: {text}")));
                }
                return Ok(reply["result"]["value"].clone());
            }
            Ok(None) => return Err(gone()),
            Err(error) if is_world_gone(&error) && !retried => {
                tab.browser.worlds().forget(session, &world);
                retried = true;
            }
            Err(error) if is_world_gone(&error) => return Err(gone()),
            Err(CdpError::Protocol { .. }) => return Err(gone()),
            Err(error) => return Err(error.into()),
        }
    }
}

/// Chrome's ways of saying a context is gone (navigated away, frame gone).
fn is_world_gone(error: &CdpError) -> bool {
    matches!(error, CdpError::Protocol { message, .. }
        if ["uniqueContextId not found", "Cannot find context", "Execution context was destroyed"]
            .iter()
            .any(|gone| message.contains(gone)))
}

/// What the input holds after setting `expected` files, or an error saying it holds less.
fn held(after: &Value, expected: usize) -> Result<ToolOutput, ToolError> {
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
    let what = after["what"].as_str().unwrap_or("the input");
    if held.len() != expected {
        return Err(ToolError::msg(format!(
            "upload_file set {expected} file(s) but {what} holds {}: {}",
            held.len(),
            held.join(", ")
        )));
    }
    Ok(ToolOutput::text(format!(
        "{what} now holds {}.",
        held.join(", ")
    )))
}

async fn release(tab: &Tab, session: &str, object: &str) {
    let _ = tab
        .cdp()
        .call_on(
            session,
            "Runtime.releaseObject",
            json!({ "objectId": object }),
        )
        .await;
}

/// The downloads `actor` may see, oldest first: an agent sees those from its own tabs (their
/// frames included; settled as each download began), the owner sees all.
fn downloads_of(browser: &Arc<BrowserSession>, actor: &Actor) -> Vec<Download> {
    let downloads = browser.files().downloads();
    match actor {
        Actor::Owner => downloads,
        Actor::Agent { id, .. } => downloads
            .into_iter()
            .filter(|d| d.owner.as_deref() == Some(id.as_str()))
            .collect(),
    }
}

/// `list_downloads`.
pub fn list_downloads(browser: &Arc<BrowserSession>, actor: &Actor) -> ToolOutput {
    let files = browser.files();
    if let DownloadTracking::Off(why) = files.tracking() {
        return ToolOutput::text(format!("Downloads are not listed: {why}."));
    }
    let downloads = downloads_of(browser, actor);
    if downloads.is_empty() {
        return ToolOutput::text("No downloads yet from your tabs in this browser.");
    }
    let lines: Vec<String> = downloads
        .iter()
        .map(|d| {
            let size = if d.state == DownloadState::InProgress && d.total > 0 {
                format!("{} of {} bytes", d.received, d.total)
            } else {
                format!("{} bytes", d.received)
            };
            let mut why = d
                .why
                .as_deref()
                .map(|w| format!(" ({w})"))
                .unwrap_or_default();
            if files.watches() && d.state == DownloadState::Completed {
                why = format!(", {} by the user's Chrome", files.where_saved(d));
            }
            format!(
                "[{}] {} — {size}, {}, {}{why}",
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

/// `get_download`, first half: the finished download `args` names among `actor`'s, or why
/// there is none to return (the call pipeline asks the person, when the agent must, before
/// [`download_answer`] reads its bytes).
pub async fn finished_download(
    browser: &Arc<BrowserSession>,
    actor: &Actor,
    args: &GetDownloadArgs,
) -> Result<Download, ToolError> {
    let files = browser.files();
    if let DownloadTracking::Off(why) = files.tracking() {
        return Err(ToolError::msg(format!("Downloads are not listed: {why}.")));
    }
    let mine = downloads_of(browser, actor);
    let wanted = args.id.trim();
    let Some(d) = mine
        .iter()
        .find(|d| d.id == wanted || d.guid == wanted)
        .cloned()
    else {
        let known: Vec<String> = mine.into_iter().map(|d| d.id).collect();
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
    // Chrome reports the last bytes before it says the download completed: a finished
    // download must not read as running.
    let d = if d.all_bytes_in() {
        files.ended(&d.guid, LAST_WORD).await.unwrap_or(d)
    } else {
        d
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
    Ok(d)
}

/// `get_download`, second half: a finished download's bytes (inline up to
/// [`MAX_INLINE_DOWNLOAD`]) and where it is saved.
pub async fn download_answer(
    browser: &Arc<BrowserSession>,
    d: &Download,
) -> Result<ToolOutput, ToolError> {
    let files = browser.files();
    let mime = mime_type(&d.name);
    let saved = files.where_saved(d);
    let bytes = match files
        .read_download(d, MAX_INLINE_DOWNLOAD)
        .await
        .map_err(|e| ToolError::msg(e.to_string()))?
    {
        ReadBack::Bytes(bytes) => bytes,
        ReadBack::TooBig(size) => {
            return Ok(ToolOutput::text(format!(
                "[{}] {} — {size} bytes, {mime}, {saved}. Over {MAX_INLINE_DOWNLOAD} bytes, so \
                 not returned inline: read it from there.",
                d.id, d.name
            )));
        }
    };
    let about = format!(
        "[{}] {} — {} bytes, {mime}, {saved}",
        d.id,
        d.name,
        bytes.len()
    );
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
pub(crate) fn mime_type(name: &str) -> &'static str {
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
