//! A pane's `print` (DESIGN.md §15): `Page.printToPDF` of the tab the pane watches, stored as
//! a download of the person's (`<title>.pdf`, on the daemon's side in every mode), announced
//! with `download` messages and read through the downloads endpoint like any other.

use std::time::Duration;

use base64::Engine as _;
use serde_json::json;

use super::download::Download;
use super::transfers::SessionFiles;
use crate::browser::floor::{SessionCore, SessionError};

/// Rendering a long page to PDF takes a while.
const PRINT_DEADLINE: Duration = Duration::from_secs(60);

/// Prints tab `target_id` (flat session `tab`) of `core`'s session to PDF and stores it as a
/// download among `files`.
pub(in crate::browser) async fn print_to_pdf(
    core: &SessionCore,
    files: &SessionFiles,
    target_id: &str,
    tab: &str,
) -> Result<Download, SessionError> {
    let title = core
        .tabs()
        .infos()
        .0
        .into_iter()
        .find(|t| t.target_id == target_id)
        .map(|t| t.title)
        .unwrap_or_default();
    let reply = core
        .cdp()
        .call_with(
            "Page.printToPDF",
            json!({"printBackground": true}),
            Some(tab),
            PRINT_DEADLINE,
        )
        .await?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(reply["data"].as_str().unwrap_or_default())
        .map_err(|e| SessionError::Download(format!("the browser sent a garbled PDF ({e})")))?;
    let name = format!("{}.pdf", file_stem(&title));
    let download = files
        .add_file(&name, target_id, &bytes)
        .map_err(|why| SessionError::Download(format!("print to PDF not kept: {why}")))?;
    tracing::info!(event = "printed", channel_id = %core.channel(), id = %download.id, bytes = bytes.len());
    Ok(download)
}

/// A file name from a page title: no path separators or control characters, at most 100
/// characters, `page` when nothing is left.
fn file_stem(title: &str) -> String {
    let cleaned: String = title
        .chars()
        .map(|c| match c {
            '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|' => '_',
            c if c.is_control() => ' ',
            c => c,
        })
        .take(100)
        .collect();
    let cleaned = cleaned.trim().trim_matches('.').trim();
    if cleaned.is_empty() {
        "page".to_string()
    } else {
        cleaned.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::file_stem;

    #[test]
    fn titles_become_safe_names() {
        assert_eq!(file_stem("Invoice 42"), "Invoice 42");
        assert_eq!(file_stem("a/b\\c: d?"), "a_b_c_ d_");
        assert_eq!(file_stem("  "), "page");
        assert_eq!(file_stem(".."), "page");
        assert_eq!(file_stem("日本語"), "日本語");
    }
}
