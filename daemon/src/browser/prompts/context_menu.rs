//! The context menu the pane offers the person (DESIGN.md §15 "Also expected of a browser").
//! Chrome's own menu is browser UI that neither the screencast nor CDP reaches, so the pane draws
//! one. A right press by the person fires the page's `contextmenu`; the pane's world (see the
//! floor's `pane_world`) lets the page's own handlers run first and, unless one of them called
//! `preventDefault` (a page drawing its own menu keeps it), reports what is under the point: the
//! link, the image and the selected text. Panes get
//! `{"type":"context_menu","id","target_id","x","y","link"?,"link_text"?,"image"?,"selection"?}`
//! and offer open link in new tab (`new_tab {url}`), copy link / copy text (their own clipboard)
//! and copy image: `copy_image {id}` is answered by `image_copy {id, png, width, height}` (base64
//! PNG, at most [`MAX_IMAGE_BYTES`]) or an `error`.
//!
//! Only trusted events count (agents have no right click; a page's own synthetic events are
//! not the person). Owns the world script's menu part, recording the latest menu of each tab
//! (kept in `open_popups`), and turning its image into PNG bytes: drawn on a canvas in the world, or, for a cross-origin
//! image that would taint the canvas, its bytes from Chrome's resource cache
//! (`Page.getResourceContent`) decoded by the same page's Chrome.

use serde::Deserialize;
use serde_json::{json, Value};

use super::open_popups::{OpenMenu, OpenPopups};
use crate::browser::floor::{PaneMessage, SessionCore, SessionError};
use crate::cdp::CdpError;

/// Largest image copy image hands over (the PNG, and the bytes it is made from).
pub const MAX_IMAGE_BYTES: usize = 16 * 1024 * 1024;
/// Largest image in pixels (width × height) copy image draws.
pub const MAX_IMAGE_PIXELS: u64 = 40_000_000;
/// Longest image address passed on (a longer `data:` URL is left out of the menu).
const MAX_ADDRESS: usize = 8192;
/// Longest selected text passed on (characters); "Copy" copies the whole selection anyway.
const MAX_SELECTION: usize = 10_000;

/// Part of the pane world's script (`report` and `frameOffset` are in scope).
pub(in crate::browser) const SCRIPT: &str = include_str!("js/context-menu.js");

/// The script with its limits filled in.
pub(in crate::browser) fn script() -> String {
    SCRIPT
        .replace("MENU_MAX_ADDRESS", &MAX_ADDRESS.to_string())
        .replace("MENU_MAX_SELECTION", &MAX_SELECTION.to_string())
        .replace("MENU_MAX_PIXELS", &MAX_IMAGE_PIXELS.to_string())
}

/// What the world reports on a right click.
#[derive(Debug, Deserialize)]
struct Reported {
    x: f64,
    y: f64,
    #[serde(default)]
    link: Option<String>,
    #[serde(default)]
    link_text: Option<String>,
    #[serde(default)]
    image: Option<String>,
    #[serde(default)]
    image_id: Option<String>,
    #[serde(default)]
    selection: Option<String>,
}

/// Why copy image failed; the message is for the person.
#[derive(Debug, Clone, thiserror::Error)]
pub enum MenuError {
    #[error("no context menu {0} is open (a newer right click replaced it, or its tab closed)")]
    NotOpen(String),
    #[error("the context menu {0} was not opened over an image")]
    NoImage(String),
    #[error("copy image: {0}")]
    Unavailable(String),
    #[error("copy image: the image is {size} bytes; at most {MAX_IMAGE_BYTES} bytes are copied (open it in a new tab and save it instead)")]
    TooLarge { size: usize },
    #[error(transparent)]
    Session(#[from] SessionError),
}

impl MenuError {
    pub fn code(&self) -> &'static str {
        match self {
            MenuError::NotOpen(_) => "no_context_menu",
            MenuError::NoImage(_) => "bad_request",
            MenuError::Unavailable(_) => "image_unavailable",
            MenuError::TooLarge { .. } => "image_too_large",
            MenuError::Session(error) => error.code(),
        }
    }
}

/// The context menus of one session's tabs (borrowed from the session:
/// `session.context_menus()`).
pub(crate) struct ContextMenus<'s> {
    core: &'s SessionCore,
    /// Where each tab's latest menu is kept (beside its popups).
    popups: &'s OpenPopups,
}

impl<'s> ContextMenus<'s> {
    pub(in crate::browser) fn new(core: &'s SessionCore, popups: &'s OpenPopups) -> Self {
        Self { core, popups }
    }

    /// The world saw the person's right click that the page left to the browser.
    pub(in crate::browser) fn opened(
        &self,
        target_id: &str,
        session: &str,
        context: i64,
        report: &Value,
    ) {
        let Ok(menu) = serde_json::from_value::<Reported>(report.clone()) else {
            tracing::debug!(event = "context_menu_unreadable");
            return;
        };
        let id = self.popups.mint_menu();
        let image = menu.image.clone().zip(menu.image_id).map(|(a, i)| (i, a));
        self.popups.set_menu(
            id.clone(),
            OpenMenu {
                target_id: target_id.to_string(),
                session: session.to_string(),
                context,
                image,
            },
        );
        tracing::debug!(event = "context_menu_opened", %id, target_id);
        let cut = |text: Option<String>, most: usize| {
            text.filter(|t| !t.is_empty())
                .map(|t| t.chars().take(most).collect::<String>())
        };
        self.core.notify(PaneMessage::ContextMenu {
            id,
            target_id: target_id.to_string(),
            x: menu.x,
            y: menu.y,
            link: cut(menu.link, MAX_ADDRESS),
            link_text: cut(menu.link_text, 200),
            image: cut(menu.image, MAX_ADDRESS),
            selection: cut(menu.selection, MAX_SELECTION),
        });
    }

    /// `copy_image {id}`: the image of context menu `id` as PNG, for the pane's clipboard.
    pub(crate) async fn copy_image(&self, id: &str) -> Result<PaneMessage, MenuError> {
        let menu = self
            .popups
            .menu(id)
            .ok_or_else(|| MenuError::NotOpen(id.to_string()))?;
        let Some((local, address)) = menu.image.clone() else {
            return Err(MenuError::NoImage(id.to_string()));
        };
        let local = json!(local);
        let mut drawn = self
            .await_in(&menu, &format!("__portholeMenu.png({local}, null)"))
            .await?;
        if drawn["tainted"] == true {
            let bytes = self.cached_resource(&menu.session, &address).await?;
            drawn = self
                .await_in(&menu, &format!("__portholeMenu.png({local}, {bytes})"))
                .await?;
        }
        if let Some(reason) = drawn["error"].as_str() {
            return Err(MenuError::Unavailable(reason.to_string()));
        }
        let png = drawn["png"].as_str().unwrap_or_default().to_string();
        if png.is_empty() {
            return Err(MenuError::Unavailable("Chrome drew no image".into()));
        }
        if png.len() / 4 * 3 > MAX_IMAGE_BYTES {
            return Err(MenuError::TooLarge {
                size: png.len() / 4 * 3,
            });
        }
        Ok(PaneMessage::ImageCopy {
            id: id.to_string(),
            png,
            width: drawn["width"].as_u64().unwrap_or(0) as u32,
            height: drawn["height"].as_u64().unwrap_or(0) as u32,
        })
    }

    /// The bytes of `url` as Chrome loaded them in one of the tab's frames:
    /// `{"data": base64, "mime"}`.
    async fn cached_resource(&self, session: &str, url: &str) -> Result<Value, MenuError> {
        let tree = self
            .core
            .cdp()
            .call_on(session, "Page.getResourceTree", json!({}))
            .await
            .map_err(SessionError::from)?;
        let Some((frame, mime)) = find_resource(&tree["frameTree"], url) else {
            return Err(MenuError::Unavailable(
                "the image is not among the page's loaded resources".into(),
            ));
        };
        let content = self
            .core
            .cdp()
            .call_on(
                session,
                "Page.getResourceContent",
                json!({"frameId": frame, "url": url}),
            )
            .await
            .map_err(|error| MenuError::Unavailable(format!("Chrome kept no copy ({error})")))?;
        let text = content["content"].as_str().unwrap_or_default();
        let data = if content["base64Encoded"] == true {
            text.to_string()
        } else {
            base64::Engine::encode(&base64::engine::general_purpose::STANDARD, text)
        };
        if data.len() / 4 * 3 > MAX_IMAGE_BYTES {
            return Err(MenuError::TooLarge {
                size: data.len() / 4 * 3,
            });
        }
        Ok(json!({"data": data, "mime": mime}))
    }

    /// Evaluates `expression` (a promise) in the world where the menu's image lives.
    async fn await_in(&self, menu: &OpenMenu, expression: &str) -> Result<Value, MenuError> {
        let reply = self
            .core
            .cdp()
            .call_on(
                &menu.session,
                "Runtime.evaluate",
                json!({"expression": expression, "contextId": menu.context,
                       "returnByValue": true, "awaitPromise": true}),
            )
            .await
            .map_err(SessionError::from)?;
        if let Some(text) = crate::cdp::thrown(&reply) {
            return Err(MenuError::Session(SessionError::Cdp(CdpError::Protocol {
                method: "Runtime.evaluate".into(),
                code: 0,
                message: text,
            })));
        }
        Ok(reply["result"]["value"].clone())
    }
}

/// The frame (and MIME type) holding resource `url` in a `Page.getResourceTree` frame tree.
fn find_resource(tree: &Value, url: &str) -> Option<(String, String)> {
    let found = tree["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["url"] == url);
    if let Some(resource) = found {
        let frame = tree["frame"]["id"].as_str()?.to_string();
        let mime = resource["mimeType"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        return Some((frame, mime));
    }
    tree["childFrames"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|child| find_resource(child, url))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_are_found_in_child_frames() {
        let tree = json!({
            "frame": {"id": "MAIN"},
            "resources": [{"url": "http://a/x.png", "mimeType": "image/png"}],
            "childFrames": [{
                "frame": {"id": "CHILD"},
                "resources": [{"url": "http://b/y.jpg", "mimeType": "image/jpeg"}]
            }]
        });
        assert_eq!(
            find_resource(&tree, "http://b/y.jpg"),
            Some(("CHILD".into(), "image/jpeg".into()))
        );
        assert_eq!(
            find_resource(&tree, "http://a/x.png"),
            Some(("MAIN".into(), "image/png".into()))
        );
        assert_eq!(find_resource(&tree, "http://c/z.gif"), None);
    }

    #[test]
    fn the_script_carries_its_limits() {
        let script = script();
        assert!(!script.contains("MENU_MAX"));
        assert!(script.contains(&MAX_IMAGE_PIXELS.to_string()));
    }
}
