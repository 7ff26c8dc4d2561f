//! The pages the MCP tests act on, served on 127.0.0.1:0 by the test.

use axum::http::HeaderMap;
use axum::response::Html;
use axum::routing::get;
use axum::{Json, Router};
use porthole_tests::pages::{COMPLEX_FRAME, COMPLEX_PAGE};

/// Form, button, link, same-origin iframe, open shadow root, a long list, console output, a
/// fetch, a late element, and page-side records of mouse and key events.
pub const FORM_PAGE: &str = r#"<!doctype html>
<html><head><title>Form page</title><style>body{font:16px sans-serif;margin:8px}</style></head><body>
<h1>Ready</h1>
<form id="f" onsubmit="return false">
 <label>Name <input id="name" placeholder="your name"></label>
 <label>Color <select id="color"><option value="r">Red</option><option value="g">Green</option><option value="b">Blue</option></select></label>
 <label><input type="checkbox" id="agree"> Agree</label>
</form>
<button id="change" onclick="document.getElementById('status').textContent='Changed!'">Change</button>
<button id="later" onclick="setTimeout(()=>{const d=document.createElement('div');d.id='late';d.textContent='Late text';document.body.appendChild(d)},600)">Later</button>
<span id="status">Unchanged</span>
<a id="next" href="/second">Second</a>
<div id="host"></div>
<iframe id="frame" src="/frame" title="Inner frame" style="width:300px;height:80px"></iframe>
<!-- user-select:none: a drag over selected text would start a drag-and-drop, which ends without a mouseup -->
<div id="pad" style="width:200px;height:60px;background:#ddd;user-select:none">pad</div>
<ul id="long"></ul>
<script>
 window.mouse = []; window.keys = [];
 const pad = document.getElementById('pad');
 for (const t of ['mousedown','mouseup','dblclick','contextmenu','mouseover']) pad.addEventListener(t, e => mouse.push(t + ':' + e.button + ':' + e.detail));
 let downX = null; pad.addEventListener('mousedown', e => { downX = e.clientX; }); addEventListener('mouseup', e => { if (downX !== null) mouse.push('moved:' + Math.round(e.clientX - downX) + '@' + e.target.id); downX = null; });
 addEventListener('keydown', e => keys.push(e.key + (e.ctrlKey ? '+ctrl' : '')));
 const root = document.getElementById('host').attachShadow({mode: 'open'});
 root.innerHTML = '<button id="sb">Shadow button</button><span id="ss">shadow idle</span>';
 root.getElementById('sb').onclick = () => root.getElementById('ss').textContent = 'shadow clicked';
 const ul = document.getElementById('long');
 for (let i = 0; i < 400; i++) { const li = document.createElement('li'); li.textContent = 'List item number ' + i; ul.appendChild(li); }
 console.log('hello from form');
 console.error('form error for tests');
 fetch('/api/data').then(r => r.json()).then(d => console.info('data ' + d.n));
</script></body></html>"#;

/// The iframe's document.
pub const FRAME_PAGE: &str = r#"<!doctype html><html><head><title>Inner</title></head><body>
<button id="fb" onclick="document.getElementById('fs').textContent='frame clicked'">Frame button</button>
<span id="fs">frame idle</span></body></html>"#;

/// A second page.
pub const SECOND_PAGE: &str = r#"<!doctype html><html><head><title>Second page</title></head>
<body><h1>Second</h1><a href="/form">Back to form</a></body></html>"#;

/// The "user's" own tab in host mode.
pub const USER_PAGE: &str = r#"<!doctype html><html><head><title>User tab</title></head>
<body><p>The user's own work</p></body></html>"#;

/// A page on `127.0.0.1:<port>` whose iframe comes from `localhost:<port>`: another origin
/// and another site, so Chromium runs it out of process. The frame is placed away from the
/// top-left corner, so a click that ignored its offset would miss. `window.frameLoads` records
/// each frame document that loaded (it posts its query string).
pub const XSITE_PAGE: &str = r#"<!doctype html><html><head><title>Cross-site page</title>
<style>body{font:16px sans-serif;margin:8px}#x{margin:30px 0 0 140px;width:320px;height:140px;border:4px solid #888;padding:6px}</style></head><body>
<button id="top" onclick="this.textContent='Top clicked'">Top button</button>
<iframe id="x" title="Cross frame" src="http://localhost:{PORT}/xframe?v=1"></iframe>
<script>
 window.frameLoads = [];
 addEventListener('message', e => { if (String(e.data).startsWith('xframe:')) frameLoads.push(String(e.data).slice(7)); });
</script></body></html>"#;

/// The cross-site frame's document; `?v=` names its version.
pub const XFRAME_PAGE: &str = r#"<!doctype html><html><head><title>Cross frame</title>
<style>body{margin:0;font:16px sans-serif}#xb{margin:20px 0 0 60px}</style></head><body>
<button id="xb" onclick="this.textContent='Clicked inside'">Cross button</button>
<label>Cross name <input id="xname"></label>
<script>
 const v = new URLSearchParams(location.search).get('v') || '';
 if (v !== '1') document.getElementById('xb').textContent = 'Cross button v' + v;
 parent.postMessage('xframe:' + v, '*');
</script></body></html>"#;

/// Actions whose effect comes a little after the input: text set in the next animation frame
/// (as a framework would render it), a navigation started from a `setTimeout(0)` handler, and
/// a button that changes nothing.
pub const SETTLE_PAGE: &str = r#"<!doctype html><html><head><title>Settle page</title></head><body>
<button id="frame" onclick="requestAnimationFrame(()=>requestAnimationFrame(()=>{document.getElementById('out').textContent='Rendered later'}))">Render later</button>
<button id="soon" onclick="setTimeout(()=>{location.href='/second'},0)">Go soon</button>
<button id="noop">Do nothing</button>
<span id="out">Not yet</span>
</body></html>"#;

/// Two file inputs (one takes several files) and a hidden one behind a styled button, whose
/// page reads back what was set: name, size and the sum of the bytes of each file, in
/// `window.uploaded`.
pub const UPLOAD_PAGE: &str = r#"<!doctype html><html><head><title>Upload page</title></head><body>
<label>Attachments <input type="file" id="many" multiple></label>
<label>Avatar <input type="file" id="one"></label>
<button id="pick" onclick="document.getElementById('one').click()">Pick avatar</button>
<input type="file" id="hidden" multiple style="display:none">
<button id="docs" onclick="document.getElementById('hidden').click()">Upload documents</button>
<script>
 window.uploaded = {};
 for (const id of ['many', 'one', 'hidden']) document.getElementById(id).addEventListener('change', async (e) => {
  const out = [];
  for (const f of e.target.files) { const b = new Uint8Array(await f.arrayBuffer()); out.push(f.name + ':' + f.size + ':' + b.reduce((a, x) => a + x, 0)); }
  window.uploaded[id] = out.join(',');
 });
</script></body></html>"#;

/// A download by `Content-Disposition: attachment`, one made from a `blob:` URL (bytes 0..=255
/// four times), and one the server holds open until the test lets it finish.
pub const DOWNLOAD_PAGE: &str = r#"<!doctype html><html><head><title>Download page</title></head><body>
<a id="att" href="/download/report.bin">Get report</a>
<button id="blob" onclick="const b=new Uint8Array(1024);for(let i=0;i<1024;i++)b[i]=i%256;const a=document.createElement('a');a.href=window.URL.createObjectURL(new Blob([b]));a.download='bytes.bin';document.body.appendChild(a);a.click()">Make blob</button>
<a id="slow" href="/download/slow.bin">Get slow file</a>
</body></html>"#;

/// The download page twice in frames: once from this origin, once from `localhost:<port>`
/// (another site, so out of process).
pub const FRAMED_DOWNLOADS_PAGE: &str = r#"<!doctype html><html><head><title>Framed downloads</title></head><body>
<iframe id="same" title="Same-origin downloads" src="/downloads" style="width:400px;height:120px"></iframe>
<iframe id="cross" title="Cross-site downloads" src="http://localhost:{PORT}/downloads" style="width:400px;height:120px"></iframe>
</body></html>"#;

/// Cross-origin frames two deep: this page (`127.0.0.1`) embeds `/xouter` from `localhost`,
/// which embeds `/xinner` from `127.0.0.1` again; each is cross-site with its parent, so each
/// is a frame of its own process. `window.innerLoads` counts the inner frame's loads.
pub const XNEST_PAGE: &str = r#"<!doctype html><html><head><title>Nested frames</title>
<style>body{margin:8px;font:16px sans-serif}iframe{display:block;margin:20px 0 0 40px;width:520px;height:260px;border:2px solid #888}</style></head><body>
<button>Top button</button>
<iframe id="outer" title="Outer frame" src="http://localhost:{PORT}/xouter"></iframe>
<script>window.innerLoads = 0; addEventListener('message', e => { if (e.data === 'xinner') innerLoads++; });</script>
</body></html>"#;

/// The middle frame (served to `localhost`): a button and the inner frame from `127.0.0.1`.
pub const XOUTER_PAGE: &str = r#"<!doctype html><html><head><title>Outer frame</title>
<style>body{margin:0;font:16px sans-serif}iframe{display:block;margin:10px 0 0 30px;width:400px;height:150px;border:3px solid #888}</style></head><body>
<button>Outer button</button>
<iframe id="inner" title="Inner frame" src="http://127.0.0.1:{PORT}/xinner"></iframe>
</body></html>"#;

/// The innermost frame: a button that says when it was clicked, and a field.
pub const XINNER_PAGE: &str = r#"<!doctype html><html><head><title>Inner frame</title>
<style>body{margin:0;font:16px sans-serif}#ib{margin:25px 0 0 50px}</style></head><body>
<button id="ib" onclick="this.textContent='Inner clicked'">Inner button</button>
<label>Inner name <input id="iname"></label>
<script>top.postMessage('xinner', '*');</script>
</body></html>"#;

/// `/xsite` (with its cross-site frame) inside a same-origin frame, moved off the corner.
pub const WRAPPED_XSITE_PAGE: &str = r#"<!doctype html><html><head><title>Wrapped</title>
<style>body{margin:8px}#w{margin:40px 0 0 60px;width:640px;height:320px;border:2px solid #888}</style></head><body>
<iframe id="w" title="Wrapper" src="/xsite"></iframe>
</body></html>"#;

/// The port the request was made to (from its `Host`).
fn port_of(headers: &HeaderMap) -> String {
    headers
        .get("host")
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.rsplit_once(':'))
        .map(|(_, port)| port.to_string())
        .unwrap_or_default()
}

/// The bytes of `/download/report.bin` (not UTF-8, so a text round trip would break them).
pub fn report_bytes() -> Vec<u8> {
    let mut bytes = b"%REPORT\x00".to_vec();
    bytes.extend((0..3000u32).map(|i| (i * 7 % 256) as u8));
    bytes
}

/// Lets `/download/slow.bin` finish.
pub fn release_slow_download() {
    slow_gate().notify_one();
}

fn slow_gate() -> &'static std::sync::Arc<tokio::sync::Notify> {
    static GATE: std::sync::OnceLock<std::sync::Arc<tokio::sync::Notify>> =
        std::sync::OnceLock::new();
    GATE.get_or_init(Default::default)
}

fn attachment(name: &str, body: axum::body::Body) -> axum::response::Response {
    axum::response::Response::builder()
        .header("content-type", "application/octet-stream")
        .header(
            "content-disposition",
            format!("attachment; filename=\"{name}\""),
        )
        .body(body)
        .expect("response")
}

/// Fields whose page rewrites what is typed (upper-cases it, drops digits), a plain one, and a
/// link that opens a new tab.
pub const REWRITE_PAGE: &str = r#"<!doctype html><html><head><title>Rewrite page</title></head><body>
<label>Shout <input id="up" oninput="this.value=this.value.toUpperCase()"></label>
<label>Letters <input id="letters" oninput="this.value=this.value.replace(/[0-9]/g,'')"></label>
<label>Plain <input id="plain"></label>
<a id="out" href="/second" target="_blank">Open second</a>
</body></html>"#;

/// A button at the top, a link far below the fold, and a button that adds a new one.
pub const MARKS_PAGE: &str = r#"<!doctype html><html><head><title>Marks page</title></head><body style="margin:8px">
<button id="add" onclick="const b=document.createElement('button');b.textContent='Fresh button';document.body.insertBefore(b,document.getElementById('gap'))">Add one</button>
<div id="gap" style="height:3000px"></div>
<a href="/second">Far link</a>
</body></html>"#;

/// A button whose click fetches `/api/slow` (answered after longer than the settle's DOM-quiet
/// cap) and renders the answer only then.
pub const FETCH_PAGE: &str = r#"<!doctype html><html><head><title>Fetch page</title></head><body>
<button onclick="fetch('/api/slow').then(r=>r.json()).then(d=>{document.getElementById('out').textContent='Loaded '+d.n})">Load</button>
<span id="out">Nothing yet</span>
</body></html>"#;

/// A canvas (which the accessibility tree does not show) that records where it was clicked,
/// in `window.hits`, below a heading, beside a real button.
pub const CANVAS_PAGE: &str = r#"<!doctype html><html><head><title>Canvas page</title>
<style>body{margin:0;font:16px sans-serif}#c{position:absolute;left:100px;top:150px}</style></head><body>
<h1>Canvas</h1><button id="b">Real button</button>
<canvas id="c" width="300" height="200"></canvas>
<script>
 window.hits = [];
 const c = document.getElementById('c'), g = c.getContext('2d');
 g.fillStyle = '#2a7'; g.fillRect(0, 0, 300, 200); g.fillStyle = '#fff'; g.fillRect(120, 70, 60, 60);
 c.addEventListener('click', e => hits.push([e.offsetX, e.offsetY]));
</script></body></html>"#;

pub async fn serve() -> std::net::SocketAddr {
    let app = Router::new()
        .route("/form", get(|| async { Html(FORM_PAGE) }))
        .route("/frame", get(|| async { Html(FRAME_PAGE) }))
        .route("/complex", get(|| async { Html(COMPLEX_PAGE) }))
        .route("/upload", get(|| async { Html(UPLOAD_PAGE) }))
        .route("/rewrite", get(|| async { Html(REWRITE_PAGE) }))
        .route("/downloads", get(|| async { Html(DOWNLOAD_PAGE) }))
        .route(
            "/download/report.bin",
            get(|| async { attachment("report.bin", report_bytes().into()) }),
        )
        .route(
            "/download/slow.bin",
            get(|| async {
                // 1000 bytes now, 1000 more once the test releases the gate.
                let chunks = futures_util::stream::unfold(0u8, |step| async move {
                    match step {
                        0 => Some((Ok::<_, std::io::Error>(vec![1u8; 1000]), 1)),
                        1 => {
                            slow_gate().notified().await;
                            Some((Ok(vec![2u8; 1000]), 2))
                        }
                        _ => None,
                    }
                });
                let mut response = attachment("slow.bin", axum::body::Body::from_stream(chunks));
                response
                    .headers_mut()
                    .insert("content-length", axum::http::HeaderValue::from(2000));
                response
            }),
        )
        .route("/complex-frame", get(|| async { Html(COMPLEX_FRAME) }))
        .route("/second", get(|| async { Html(SECOND_PAGE) }))
        .route("/user", get(|| async { Html(USER_PAGE) }))
        .route("/settle", get(|| async { Html(SETTLE_PAGE) }))
        .route(
            "/xsite",
            get(|headers: HeaderMap| async move {
                Html(XSITE_PAGE.replace("{PORT}", &port_of(&headers)))
            }),
        )
        .route("/xframe", get(|| async { Html(XFRAME_PAGE) }))
        .route(
            "/xnest",
            get(|headers: HeaderMap| async move {
                Html(XNEST_PAGE.replace("{PORT}", &port_of(&headers)))
            }),
        )
        .route(
            "/xouter",
            get(|headers: HeaderMap| async move {
                Html(XOUTER_PAGE.replace("{PORT}", &port_of(&headers)))
            }),
        )
        .route("/xinner", get(|| async { Html(XINNER_PAGE) }))
        .route("/wrapped-xsite", get(|| async { Html(WRAPPED_XSITE_PAGE) }))
        .route(
            "/framed-downloads",
            get(|headers: HeaderMap| async move {
                Html(FRAMED_DOWNLOADS_PAGE.replace("{PORT}", &port_of(&headers)))
            }),
        )
        .route("/marks", get(|| async { Html(MARKS_PAGE) }))
        .route("/fetch", get(|| async { Html(FETCH_PAGE) }))
        .route("/canvas", get(|| async { Html(CANVAS_PAGE) }))
        .route(
            "/api/slow",
            get(|| async {
                // Longer than the settle's DOM-quiet cap (500 ms): only a settle that waits
                // for the request sees what the page renders after it.
                tokio::time::sleep(std::time::Duration::from_millis(800)).await;
                Json(serde_json::json!({"n": 42}))
            }),
        )
        .route(
            "/api/data",
            get(|| async { Json(serde_json::json!({"n": 42})) }),
        )
        .merge(super::bounds::routes());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    addr
}
