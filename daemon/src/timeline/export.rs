//! A span of a timeline as one self-contained HTML file that plays it back: the frames inline
//! as `data:` URLs, the events listed beside them, play/pause and a scrubber. No script or
//! style comes from anywhere else, so the file opens offline and can be mailed around.

use std::collections::BTreeMap;

use base64::Engine as _;

use super::event::TimelineEvent;

/// The HTML of `events` of `channel`, with `frames` (frame id → JPEG) inline.
pub fn html(channel: &str, events: &[TimelineEvent], frames: &BTreeMap<String, Vec<u8>>) -> String {
    let frames: BTreeMap<&str, String> = frames
        .iter()
        .map(|(id, jpeg)| {
            (
                id.as_str(),
                format!(
                    "data:image/jpeg;base64,{}",
                    base64::engine::general_purpose::STANDARD.encode(jpeg)
                ),
            )
        })
        .collect();
    let data = serde_json::json!({ "channel": channel, "events": events, "frames": frames });
    // Inside <script>: no `</script>` or `<!--` can end or bend it.
    let data = data.to_string().replace('<', "\\u003c");
    let title = escape(&format!("Porthole timeline of {channel}"));
    TEMPLATE
        .replace("{{TITLE}}", &title)
        .replace("{{DATA}}", &data)
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const TEMPLATE: &str = include_str!("export-page.html");

#[cfg(test)]
mod tests {
    use super::super::event::{Draft, EventActor, EventKind};
    use super::*;

    #[test]
    fn the_page_cannot_be_broken_out_of() {
        let event = Draft::new(EventKind::Navigation, EventActor::Page)
            .tab(
                None,
                Some("http://x/</script><script>alert(1)</script>".into()),
            )
            .finish(1, 0, None);
        let page = html("c<b>", &[event], &BTreeMap::new());
        assert_eq!(page.matches("</script>").count(), 1);
        assert!(page.contains("c&lt;b&gt;"));
    }
}
