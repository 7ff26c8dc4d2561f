//! Test pages served on 127.0.0.1 by the test itself, and a minimal HTTP client.

use std::net::SocketAddr;

use axum::response::Html;
use axum::routing::get;
use axum::Router;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The token-budget page (issue 12; served at `/complex` by the MCP tests and the bench,
/// its frame at `/complex-frame`): a header with links, a search form, a same-origin iframe
/// with a form, a custom element with an open shadow root, and 100 list rows each with a named
/// link and some text. Fixed content, so snapshot sizes are deterministic.
pub const COMPLEX_PAGE: &str = r#"<!doctype html><html><head><title>Complex page</title></head><body>
<header><nav><a href="/">Home</a> <a href="/products">Products</a> <a href="/about">About</a> <a href="/contact">Contact</a></nav></header>
<main>
<h1>Catalogue</h1>
<form role="search" onsubmit="return false"><label>Search <input id="q" placeholder="Search products"></label> <button>Go</button></form>
<iframe id="frame" src="/complex-frame" title="Newsletter" style="width:400px;height:120px"></iframe>
<shop-cart id="cart"></shop-cart>
<ul id="rows"></ul>
</main>
<footer><a href="/terms">Terms</a> <a href="/privacy">Privacy</a></footer>
<script>
 customElements.define('shop-cart', class extends HTMLElement {
  constructor() { super(); const r = this.attachShadow({mode: 'open'});
   r.innerHTML = '<h2>Cart</h2><p>Cart total: 0 items</p><button id="checkout">Checkout</button><a href="/cart">View cart</a>'; }
 });
 const ul = document.getElementById('rows');
 for (let i = 1; i <= 100; i++) {
  const li = document.createElement('li');
  li.innerHTML = '<a href="/products/' + i + '">Product ' + i + ': oak desk lamp</a> <span>In stock</span>';
  ul.appendChild(li);
 }
</script></body></html>"#;

/// The complex page's iframe: a small newsletter form.
pub const COMPLEX_FRAME: &str = r#"<!doctype html><html><head><title>Newsletter</title></head><body>
<p>Get our newsletter</p><label>Email <input id="email" type="email"></label><button id="sub">Subscribe</button>
</body></html>"#;

/// A page with something for every kind of input; page script records what happened in
/// `window.seen` and shows clicks in `#out`.
pub const INPUT_PAGE: &str = r#"<!doctype html>
<html><head><title>Input page</title><style>
 body { margin: 0; font: 16px sans-serif; }
 #btn { position: absolute; left: 20px; top: 20px; width: 160px; height: 40px; }
 #out { position: absolute; left: 200px; top: 20px; }
 #para { position: absolute; left: 20px; top: 80px; width: 600px; margin: 0; font: 20px monospace; }
 #area { position: absolute; left: 20px; top: 140px; width: 300px; height: 100px; }
 #field { position: absolute; left: 360px; top: 140px; width: 200px; }
 #tall { position: absolute; left: 0; top: 0; width: 10px; height: 5000px; }
</style></head><body>
<div id="tall"></div>
<button id="btn" onclick="document.getElementById('out').textContent = 'clicked ' + (++window.clicks)">Press</button>
<span id="out">not clicked</span>
<p id="para">alpha beta gamma delta</p>
<textarea id="area"></textarea>
<input id="field">
<script>
 window.clicks = 0;
 window.seen = [];
 for (const type of ['keydown', 'mousedown', 'mouseup', 'wheel', 'contextmenu']) {
   addEventListener(type, e => seen.push({type, key: e.key, code: e.code, button: e.button, ctrl: e.ctrlKey, shift: e.shiftKey, detail: e.detail}), true);
 }
</script>
</body></html>"#;

/// A page that repaints continuously (for frame-rate tests).
pub const ANIMATED_PAGE: &str = r#"<!doctype html>
<html><head><title>Animated</title></head><body style="margin:0">
<div id="box" style="width:200px;height:200px;background:#c33"></div>
<script>
 let n = 0;
 function tick() { n++; document.getElementById('box').style.marginLeft = (n % 300) + 'px'; requestAnimationFrame(tick); }
 requestAnimationFrame(tick);
</script></body></html>"#;

/// A page whose title shows the last key pressed in it.
pub const KEY_TITLE_PAGE: &str = r#"<!doctype html><html><head><title>no key</title></head>
<body><script>onkeydown = e => { document.title = 'key ' + e.key; };</script></body></html>"#;

/// A second plain page with a link back.
pub const SECOND_PAGE: &str = r#"<!doctype html><html><head><title>Second page</title></head>
<body><h1>Second</h1><a id="back" href="/input">back</a></body></html>"#;

/// A page whose link (filling the top left 300×100 CSS px) downloads `href`.
fn download_link_page(title: &str, href: &str) -> String {
    format!(
        "<!doctype html><html><head><title>{title}</title></head><body style=\"margin:0\">\
         <a id=\"dl\" href=\"{href}\" style=\"display:block;position:absolute;left:0;top:0;\
         width:300px;height:100px;background:#cde\">Download</a></body></html>"
    )
}

/// The name [`download_payload`] is served under (a non-ASCII one, to test its encoding).
pub const DOWNLOAD_NAME: &str = "résumé 100k.bin";

/// 100 KiB of pseudo-random bytes (xorshift, fixed seed): served at `/payload.bin` as
/// [`DOWNLOAD_NAME`], linked from `/download-page`.
pub fn download_payload() -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..100 * 1024)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// The download page without a server (for browsers that cannot reach this machine, such as
/// a remote engine's): the page makes [`download_payload`]'s bytes itself and links them as a
/// blob named [`DOWNLOAD_NAME`].
pub fn blob_download_page() -> String {
    format!(
        "<!doctype html><html><head><meta charset=utf-8><title>Download page</title></head>\
         <body style=\"margin:0\"><a id=dl style=\"display:block;position:absolute;left:0;\
         top:0;width:300px;height:100px;background:#cde\">Download</a><script>\
         const M = (1n << 64n) - 1n; let x = 0x9E3779B97F4A7C15n; const out = new Uint8Array(102400);\
         for (let i = 0; i < out.length; i++) {{ x ^= (x << 13n) & M; x ^= x >> 7n; x ^= (x << 17n) & M;\
         out[i] = Number((x >> 24n) & 255n); }}\
         const a = document.getElementById('dl'); a.download = {name:?};\
         a.href = URL.createObjectURL(new Blob([out], {{type: 'application/octet-stream'}}));\
         </script></body></html>",
        name = DOWNLOAD_NAME
    )
}

/// A download that never ends (64 KiB chunks, about 6 MB a second): `/endless.bin`, linked
/// from `/endless-page`.
fn endless_download() -> axum::response::Response {
    let open = EndlessOpen::new();
    let chunks = futures_util::stream::unfold((0u64, open), |(n, open)| async move {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        Some((
            Ok::<_, std::io::Error>(bytes::Bytes::from(vec![(n % 251) as u8; 64 * 1024])),
            (n + 1, open),
        ))
    });
    axum::response::Response::builder()
        .header("Content-Type", "application/octet-stream")
        .header(
            "Content-Disposition",
            "attachment; filename=\"endless.bin\"",
        )
        .body(axum::body::Body::from_stream(chunks))
        .expect("a response")
}

static ENDLESS_OPEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many `/endless.bin` responses are still being sent (the browser has not let go).
pub fn endless_downloads_open() -> usize {
    ENDLESS_OPEN.load(std::sync::atomic::Ordering::SeqCst)
}

/// Counts one `/endless.bin` response while it lives.
struct EndlessOpen;

impl EndlessOpen {
    fn new() -> Self {
        ENDLESS_OPEN.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Self
    }
}

impl Drop for EndlessOpen {
    fn drop(&mut self) {
        ENDLESS_OPEN.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Two file inputs (one file at 20,20; several `.txt`/images at 20,100); the page reads what
/// it is handed and shows `got <name>:<text>[,…]` as its title (`window.changes` counts).
pub const UPLOAD_PAGE: &str = r#"<!doctype html><html><head><title>Upload page</title><style>
 body { margin: 0; } input { position: absolute; left: 20px; width: 300px; height: 40px; }
 #single { top: 20px; } #multi { top: 100px; }
</style></head><body>
<input id="single" type="file"><input id="multi" type="file" multiple accept=".txt,image/*">
<script>
 window.changes = 0;
 for (const input of document.querySelectorAll('input')) {
   input.addEventListener('change', async () => {
     window.changes++;
     const parts = [];
     for (const f of input.files) parts.push(f.name + ':' + await f.text());
     document.title = 'got ' + parts.join(',');
   });
 }
</script></body></html>"#;

/// A drop zone over the whole viewport: a drop of files shows `dropped <name>:<text>[,…]`.
pub const DROP_PAGE: &str = r#"<!doctype html><html><head><title>Drop page</title></head>
<body style="margin:0"><div id="zone" style="width:100vw;height:100vh;background:#eef">Drop here</div>
<script>
 const zone = document.getElementById('zone');
 zone.addEventListener('dragover', e => e.preventDefault());
 zone.addEventListener('drop', async e => {
   e.preventDefault();
   const parts = [];
   for (const f of e.dataTransfer.files) parts.push(f.name + ':' + await f.text());
   document.title = 'dropped ' + parts.join(',');
 });
</script></body></html>"#;

/// The user name and password `/basic` accepts.
pub const BASIC_USER: (&str, &str) = ("ann", "open sesame");

/// `/basic`: HTTP Basic authentication (realm "Porthole test"); the page names the user it
/// let in (`hello <user>`), or is a 401 page titled `denied`.
async fn basic_auth(headers: axum::http::HeaderMap) -> axum::response::Response {
    use axum::response::IntoResponse;
    use base64::Engine as _;
    let user = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|pair| {
            let (user, password) = pair.split_once(':')?;
            (user == BASIC_USER.0 && password == BASIC_USER.1).then(|| user.to_string())
        });
    match user {
        Some(user) => Html(format!(
            "<!doctype html><title>hello {user}</title><h1>Hello {user}</h1>"
        ))
        .into_response(),
        None => (
            axum::http::StatusCode::UNAUTHORIZED,
            [("www-authenticate", "Basic realm=\"Porthole test\"")],
            Html("<!doctype html><title>denied</title><h1>401</h1>"),
        )
            .into_response(),
    }
}

/// Script shared by the bench pages: 24 black/white blocks at the top left encode a number,
/// so a frame says what it shows (decoded by `decode_blocks`).
const BLOCKS: &str = r#"<div id="blocks" style="position:fixed;left:0;top:0;display:flex;z-index:9">
</div><script>
 const row = document.getElementById('blocks');
 const blocks = [];
 for (let i = 0; i < 24; i++) { const b = document.createElement('div'); b.style.cssText = 'width:16px;height:16px;background:#fff'; row.appendChild(b); blocks.push(b); }
 window.paintNumber = v => { for (let i = 0; i < 24; i++) blocks[i].style.background = ((v >> i) & 1) ? '#000' : '#fff'; };
</script>"#;

/// A page that paints the wall clock (ms mod 2^24) into every frame.
pub fn clock_page() -> String {
    format!(
        "<!doctype html><html><head><title>Clock</title></head><body style=\"margin:0\">{BLOCKS}<script>
         function tick() {{ paintNumber(Date.now() % 16777216); requestAnimationFrame(tick); }}
         requestAnimationFrame(tick);</script></body></html>"
    )
}

/// A page that paints the wall clock (ms mod 2^24) `hz` times a second: cheaper to render
/// than [`clock_page`] on a busy machine, still one clock value per frame.
pub fn clock_page_at(hz: u32) -> String {
    format!(
        "<!doctype html><html><head><title>Clock</title></head><body style=\"margin:0\">{BLOCKS}<script>
         setInterval(() => paintNumber(Date.now() % 16777216), {});</script></body></html>",
        1000 / hz.max(1)
    )
}

/// A very tall page that paints its scroll offset into every frame.
pub fn scroll_page() -> String {
    format!(
        "<!doctype html><html><head><title>Scroll</title></head><body style=\"margin:0\">
         <div style=\"height:200000px;background:linear-gradient(#eee,#444)\"></div>{BLOCKS}<script>
         addEventListener('scroll', () => paintNumber(Math.round(scrollY))); paintNumber(0);</script></body></html>"
    )
}

/// Reads the number painted by the bench pages out of a JPEG frame.
pub fn decode_blocks(jpeg: &[u8]) -> Option<u32> {
    let image = image::load_from_memory_with_format(jpeg, image::ImageFormat::Jpeg)
        .ok()?
        .to_luma8();
    if image.width() < 24 * 16 || image.height() < 16 {
        return None;
    }
    let mut value = 0u32;
    for i in 0..24 {
        if image.get_pixel(8 + 16 * i, 8).0[0] < 128 {
            value |= 1 << i;
        }
    }
    Some(value)
}

/// Serves the pages above on 127.0.0.1; dropped with the runtime.
pub struct PageServer {
    pub addr: SocketAddr,
}

impl PageServer {
    pub async fn start() -> Self {
        let app = Router::new()
            .route("/input", get(|| async { Html(INPUT_PAGE) }))
            .route("/animated", get(|| async { Html(ANIMATED_PAGE) }))
            .route("/second", get(|| async { Html(SECOND_PAGE) }))
            .route("/key-title", get(|| async { Html(KEY_TITLE_PAGE) }))
            .route("/clock", get(|| async { Html(clock_page()) }))
            .route("/scroll", get(|| async { Html(scroll_page()) }))
            .route(
                "/download-page",
                get(|| async { Html(download_link_page("Download page", "/payload.bin")) }),
            )
            .route(
                "/payload.bin",
                get(|| async {
                    (
                        [
                            ("Content-Type", "application/octet-stream"),
                            (
                                "Content-Disposition",
                                "attachment; filename=\"resume.bin\"; filename*=UTF-8''r%C3%A9sum%C3%A9%20100k.bin",
                            ),
                        ],
                        download_payload(),
                    )
                }),
            )
            .route(
                "/endless-page",
                get(|| async { Html(download_link_page("Endless page", "/endless.bin")) }),
            )
            .route("/endless.bin", get(|| async { endless_download() }))
            .route("/upload", get(|| async { Html(UPLOAD_PAGE) }))
            .route("/drop", get(|| async { Html(DROP_PAGE) }))
            .route("/basic", get(basic_auth));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind page server");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self { addr }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }
}

/// One HTTP/1.1 request to `addr` (`host:port`); returns status and JSON body (Null if the body
/// is not JSON; the raw text is then under `"text"`).
pub async fn http_request(
    method: &str,
    addr: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<String>,
) -> (u16, Value) {
    let (status, text) = http_request_raw(method, addr, path, headers, body).await;
    let json = serde_json::from_str(&text).unwrap_or_else(|_| serde_json::json!({ "text": text }));
    (status, json)
}

/// Like [`http_request`] but returns the body as text.
pub async fn http_request_raw(
    method: &str,
    addr: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<String>,
) -> (u16, String) {
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    exchange(stream, addr, method, path, headers, body).await
}

/// [`http_request`] over a Unix socket (the daemon's agent socket); `Host: localhost`.
pub async fn unix_http_request(
    socket: &std::path::Path,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<String>,
) -> (u16, Value) {
    let stream = tokio::net::UnixStream::connect(socket)
        .await
        .unwrap_or_else(|e| panic!("connect {}: {e}", socket.display()));
    let (status, text) = exchange(stream, "localhost", method, path, headers, body).await;
    let json = serde_json::from_str(&text).unwrap_or_else(|_| serde_json::json!({ "text": text }));
    (status, json)
}

/// One HTTP/1.1 request on a fresh connection; the body comes back de-chunked.
async fn exchange<S>(
    mut stream: S,
    host: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<String>,
) -> (u16, String)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let mut request = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        request.push_str(&format!("Host: {host}\r\n"));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    let body = body.unwrap_or_default();
    if !body.is_empty() {
        request.push_str("Content-Type: application/json\r\n");
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.expect("read");
    let response = String::from_utf8_lossy(&response).to_string();
    let (head, rest) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_string()
    };
    (status, body)
}

/// One GET on a fresh connection, the body as bytes: `(status, headers (lower-case names),
/// body)`. For byte-exact downloads (the body is not chunked: the daemon sends a length).
pub async fn http_get_bytes(
    addr: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let mut request = format!("GET {path} HTTP/1.1\r\nConnection: close\r\nHost: {addr}\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.expect("read");
    let end = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8_lossy(&response[..end]).to_string();
    let body = response[end + 4..].to_vec();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, body)
}

fn dechunk(mut text: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = text.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        text = rest[size..].trim_start_matches("\r\n");
    }
    out
}
