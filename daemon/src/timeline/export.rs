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

const TEMPLATE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>{{TITLE}}</title>
<style>
body { margin: 0; font: 14px system-ui, sans-serif; background: #1b1d21; color: #e6e6e6; display: flex; flex-direction: column; height: 100vh; }
header { padding: 8px 12px; display: flex; gap: 12px; align-items: center; background: #26292f; }
header h1 { font-size: 15px; margin: 0; flex: 1; }
main { flex: 1; display: flex; min-height: 0; }
#view { flex: 1; display: flex; align-items: center; justify-content: center; background: #000; min-width: 0; }
#view img { max-width: 100%; max-height: 100%; }
#view .none { color: #888; }
ol { width: 380px; margin: 0; padding: 0; list-style: none; overflow-y: auto; border-left: 1px solid #333; }
li { padding: 6px 10px; border-bottom: 1px solid #2c2f36; cursor: pointer; }
li.current { background: #2f4a6d; }
li .who { font-weight: 600; }
li .meta { color: #999; font-size: 12px; }
li.failed .who::after { content: " ✗"; color: #e66; }
#scrub { flex: 1; }
</style></head>
<body>
<header><h1>{{TITLE}}</h1>
<button id="play" type="button">Play</button>
<input id="scrub" type="range" min="0" max="0" value="0" aria-label="event">
<span id="pos"></span></header>
<main><div id="view"><span class="none">no frame</span></div><ol id="events"></ol></main>
<script>
const DATA = {{DATA}};
const events = DATA.events;
const list = document.getElementById('events');
const view = document.getElementById('view');
const scrub = document.getElementById('scrub');
const pos = document.getElementById('pos');
const play = document.getElementById('play');
function who(e) {
  if (e.actor.kind === 'agent') return e.actor.name + ' (' + e.actor.agent_id + ')';
  return e.actor.kind === 'human' ? 'person' : 'page';
}
events.forEach((e, i) => {
  const li = document.createElement('li');
  li.dataset.seq = e.seq;
  if (e.ok === false) li.className = 'failed';
  const top = document.createElement('div');
  const name = document.createElement('span');
  name.className = 'who';
  name.textContent = who(e);
  top.append(name, ' ', e.tool || e.action || e.kind.replace('_', ' '));
  const meta = document.createElement('div');
  meta.className = 'meta';
  meta.textContent = e.at.slice(11, 23) + ' · ' + (e.summary || '') + (e.url ? ' · ' + e.url : '') + (e.ms != null ? ' · ' + e.ms + ' ms' : '');
  li.append(top, meta);
  li.addEventListener('click', () => show(i));
  list.append(li);
});
scrub.max = Math.max(0, events.length - 1);
let current = -1;
function frameAt(i) {
  for (let j = i; j >= 0; j--) if (events[j].frame_id && DATA.frames[events[j].frame_id]) return DATA.frames[events[j].frame_id];
  return null;
}
function show(i) {
  if (!events.length) { pos.textContent = 'no events'; return; }
  current = i;
  scrub.value = i;
  pos.textContent = (i + 1) + ' / ' + events.length;
  list.querySelectorAll('li.current').forEach((li) => li.classList.remove('current'));
  const li = list.children[i];
  li.classList.add('current');
  li.scrollIntoView({ block: 'nearest' });
  const src = frameAt(i);
  view.replaceChildren();
  if (src) { const img = document.createElement('img'); img.src = src; img.alt = 'frame of event ' + events[i].seq; view.append(img); }
  else { const none = document.createElement('span'); none.className = 'none'; none.textContent = 'no frame'; view.append(none); }
}
scrub.addEventListener('input', () => show(Number(scrub.value)));
let timer = null;
play.addEventListener('click', () => {
  if (timer) { clearInterval(timer); timer = null; play.textContent = 'Play'; return; }
  if (current >= events.length - 1) show(0);
  play.textContent = 'Pause';
  timer = setInterval(() => {
    if (current >= events.length - 1) { clearInterval(timer); timer = null; play.textContent = 'Play'; return; }
    show(current + 1);
  }, 800);
});
show(0);
</script>
</body></html>
"#;

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
