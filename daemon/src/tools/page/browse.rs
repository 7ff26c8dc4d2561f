//! The page tools: `navigate`, `go_back`, `go_forward`, `reload`, `page_info`,
//! `get_page_text` (cross-origin frames included), `screenshot` (an image block, with badges
//! when asked) and `resize_window`; `evaluate` lives in `tools::page::evaluate`.

use std::time::Duration;

use porthole_mcp::vocabulary::{
    GetPageTextArgs, HasWait, ImageFormat, NavigateArgs, ResizeWindowArgs, ScreenshotArgs,
};
use porthole_mcp::ToolOutput;
use serde_json::{json, Value};

use crate::browser::UrlPolicy;
use crate::tools::act::waits;
use crate::tools::error::ToolError;
use crate::tools::read::snapshot::cap;
use crate::tools::tab::driver::Tab;

/// `navigate`: returns once the page loaded (or its load deadline passed), with its URL and
/// title; then waits for wait_for_* if asked.
pub async fn navigate(tab: &Tab, args: &NavigateArgs) -> Result<ToolOutput, ToolError> {
    let before = waits::before_navigation(tab);
    let started = std::time::Instant::now();
    tab.browser
        .navigation()
        .navigate_with(&tab.session_id, &args.url, UrlPolicy::Agent, None)
        .await?;
    tracing::debug!(
        event = "navigation_committed",
        commit_ms = started.elapsed().as_millis() as u64
    );
    let location = waits::settle_navigation(tab, before).await;
    finish_load(tab, location, "Loaded", args.wait()).await
}

/// `go_back` (`step` -1) and `go_forward` (1).
pub async fn history(tab: &Tab, step: i64) -> Result<ToolOutput, ToolError> {
    let before = waits::before_navigation(tab);
    if !tab
        .browser
        .navigation()
        .go_history_with(&tab.session_id, step, UrlPolicy::Agent)
        .await?
    {
        let which = if step < 0 { "back" } else { "forward" };
        return Err(ToolError::msg(format!(
            "Cannot go {which}: there is no page {which} in this tab's history."
        )));
    }
    let location = waits::settle_navigation(tab, before).await;
    finish_load(
        tab,
        location,
        if step < 0 {
            "Went back to"
        } else {
            "Went forward to"
        },
        None,
    )
    .await
}

/// `reload`.
pub async fn reload(tab: &Tab) -> Result<ToolOutput, ToolError> {
    let before = waits::before_navigation(tab);
    tab.browser.navigation().reload_on(&tab.session_id).await?;
    let location = waits::settle_navigation(tab, before).await;
    finish_load(tab, location, "Reloaded", None).await
}

async fn finish_load(
    tab: &Tab,
    location: Option<(String, String)>,
    verb: &str,
    wait: Option<porthole_mcp::vocabulary::wait::WaitFor>,
) -> Result<ToolOutput, ToolError> {
    let (url, title) = match location {
        Some(known) => known,
        None => tab.location().await?,
    };
    let mut out = ToolOutput::text(format!("{verb} {url}\nTitle: {title}"));
    if let Some(wait) = wait {
        out = out.with_text(waits::wait_for(tab, &wait).await?);
    }
    Ok(out)
}

/// What `page_info` reads of the document.
const PAGE_INFO: &str = include_str!("js/page-info.js");

/// `page_info`.
pub async fn page_info(tab: &Tab) -> Result<ToolOutput, ToolError> {
    let v = tab.eval(PAGE_INFO, Duration::from_secs(5)).await?;
    let tabs = tab.visible_tabs();
    let index = tabs
        .iter()
        .position(|t| t.target_id == tab.target_id)
        .map(|i| i + 1)
        .unwrap_or(0);
    let (w, h) = tab.browser.viewport();
    Ok(ToolOutput::text(format!(
        "URL: {}\nTitle: {}\nLoading state: {}\nTab: [{index}] of {}\nViewport: {w}x{h}, scrolled to ({}, {}) of page height {}",
        v["url"].as_str().unwrap_or_default(),
        v["title"].as_str().unwrap_or_default(),
        v["state"].as_str().unwrap_or_default(),
        tabs.len(),
        v["scrollX"],
        v["scrollY"],
        v["height"],
    )))
}

/// `get_page_text`.
pub async fn page_text(tab: &Tab, args: &GetPageTextArgs) -> Result<ToolOutput, ToolError> {
    let main = tab.helper("text", &[]).await?;
    let mut text = main.as_str().unwrap_or_default().to_string();
    // Cross-origin frames' text follows the page's own.
    let frames = crate::tools::tab::iframes::sessions(tab).await;
    for (_, part) in crate::tools::tab::iframes::helper_in_each(tab, &frames, "text", &[]).await {
        if let Some(part) = part.as_str().filter(|p| !p.trim().is_empty()) {
            text.push('\n');
            text.push_str(part);
        }
    }
    let (url, title) = tab.location().await?;
    let (body, note) = cap(text.trim(), args.max_chars());
    let mut out = ToolOutput::text(format!("Page: {title} — {url}\n{body}"));
    if let Some(note) = note {
        out = out.with_text(note);
    }
    Ok(out)
}

/// `screenshot`: waits first when asked, then captures the viewport.
pub async fn screenshot(tab: &Tab, args: &ScreenshotArgs) -> Result<ToolOutput, ToolError> {
    let note = match args.wait() {
        Some(wait) => Some(waits::wait_for(tab, &wait).await?),
        None => None,
    };
    let out = if args.badges() {
        crate::tools::capture::badge_scan::capture_with_badges(tab, args.format).await?
    } else {
        capture(tab, args.format).await?
    };
    Ok(match note {
        Some(n) => out.with_text(n),
        None => out,
    })
}

/// The active tab's viewport as an image block (JPEG unless PNG is asked for).
pub async fn capture(tab: &Tab, format: Option<ImageFormat>) -> Result<ToolOutput, ToolError> {
    let format = format.unwrap_or(ImageFormat::Jpeg);
    let mut params =
        json!({"format": match format { ImageFormat::Png => "png", ImageFormat::Jpeg => "jpeg" }});
    if format == ImageFormat::Jpeg {
        params["quality"] = json!(80);
    }
    let shot = tab
        .cdp()
        .call_with(
            "Page.captureScreenshot",
            params,
            Some(&tab.session_id),
            Duration::from_secs(15),
        )
        .await?;
    let data = shot["data"]
        .as_str()
        .ok_or_else(|| ToolError::msg("the browser returned no screenshot data; try again"))?;
    let (w, h) = tab.browser.viewport();
    Ok(ToolOutput::image(data, format.mime_type())
        .with_text(format!("Screenshot of the {w}x{h} viewport.")))
}

/// `resize_window`. Chrome answers the new layout before the page's renderer has applied it
/// (seen on a loaded machine: `innerWidth` still the old one right after), so the answer,
/// and with it the agent's next call, waits until the page reports a size other than the
/// one it had (or the one asked), for up to a second.
pub async fn resize_window(tab: &Tab, args: &ResizeWindowArgs) -> Result<ToolOutput, ToolError> {
    const SIZE: &str = "[innerWidth, innerHeight]";
    let size_now = || async {
        tab.eval(SIZE, Duration::from_secs(5))
            .await
            .unwrap_or(Value::Null)
    };
    let before = size_now().await;
    tab.browser.set_viewport(args.width, args.height).await?;
    tab.browser.size_tab(&tab.session_id).await?;
    let asked = json!([args.width, args.height]);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(1);
    let inner = loop {
        let inner = size_now().await;
        let settled = inner == asked || inner != before || before.is_null();
        if settled || tokio::time::Instant::now() >= deadline {
            break inner;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    Ok(ToolOutput::text(format!(
        "Resized the viewport to {}x{} (the page now lays out at {}x{}).",
        args.width, args.height, inner[0], inner[1]
    )))
}
