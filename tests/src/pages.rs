//! The one page server of the tests: the files under `tests/pages/` (shared pages at the top,
//! one folder per area) on 127.0.0.1:0, with the right content types, plus the few routes a
//! file cannot be: downloads with a `Content-Disposition` (one endless, one held until the test
//! releases it), HTTP Basic authentication, a slow and a plain JSON API, a redirect, and pages
//! that set cookies. Each server has its own state (its downloads, its gate, its cookies, the
//! values filled into its pages). Also reads a page as text or as a `data:` URL, for browsers
//! that cannot reach this machine.
//!
//! A page may hold `{include <file>}` (another file under `tests/pages/`, pasted in), `{PORT}`
//! (the port the request came in on, for cross-origin frames from `localhost`) and `{NAME}`s
//! the test sets with [`PageServer::set`] or passes to [`page_with`].

use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::{Json, Router};

pub use crate::http::{http_get_bytes, http_request, http_request_raw, unix_http_request};

/// Where the page files live.
pub const PAGES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/pages");

/// The page file `path` (under `tests/pages/`) as text, its `{include …}`s pasted in.
pub fn page(path: &str) -> String {
    let file = Path::new(PAGES_DIR).join(path);
    let text = std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("test page {}: {e}", file.display()));
    expand_includes(&text)
}

/// [`page`] with each `{NAME}` of `vars` filled in.
pub fn page_with(path: &str, vars: &[(&str, &str)]) -> String {
    fill(page(path), vars.iter().map(|(k, v)| (*k, *v)))
}

/// `html` as a `data:text/html;base64,` URL (for a browser with no way to this machine).
pub fn data_url(html: &str) -> String {
    use base64::Engine as _;
    format!(
        "data:text/html;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(html)
    )
}

fn expand_includes(text: &str) -> String {
    const OPEN: &str = "{include ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        let Some(len) = rest[at..].find('}') else {
            break;
        };
        out.push_str(&rest[..at]);
        out.push_str(&page(rest[at + OPEN.len()..at + len].trim()));
        rest = &rest[at + len + 1..];
    }
    out.push_str(rest);
    out
}

fn fill<'a>(mut text: String, vars: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    for (name, value) in vars {
        text = text.replace(&format!("{{{name}}}"), value);
    }
    text
}

/// A page that paints the wall clock (ms mod 2^24) into every frame (`clock.html`).
pub fn clock_page() -> String {
    page("clock.html")
}

/// A page that paints the wall clock (ms mod 2^24) `hz` times a second: cheaper to render
/// than [`clock_page`] on a busy machine, still one clock value per frame.
pub fn clock_page_at(hz: u32) -> String {
    page_with(
        "clock-at.html",
        &[("INTERVAL_MS", &(1000 / hz.max(1)).to_string())],
    )
}

/// The download page without a server (for browsers that cannot reach this machine, such as
/// a remote engine's): the page makes [`download_payload`]'s bytes itself and links them as a
/// blob named [`DOWNLOAD_NAME`].
pub fn blob_download_page() -> String {
    page("blob-download.html")
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

/// The bytes of `/download/report.bin` (not UTF-8, so a text round trip would break them).
pub fn report_bytes() -> Vec<u8> {
    let mut bytes = b"%REPORT\x00".to_vec();
    bytes.extend((0..3000u32).map(|i| (i * 7 % 256) as u8));
    bytes
}

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

/// One server's own state.
#[derive(Default)]
struct Pages {
    /// Looked in before the shared pages (`tests/pages/<area>/`).
    area: Option<PathBuf>,
    /// `{NAME}` → value, filled into every page served.
    vars: Mutex<Vec<(String, String)>>,
    /// `/set/<n>` answers with the `Set-Cookie` headers of `cookies[n]`.
    cookies: Mutex<Vec<Vec<String>>>,
    /// `/endless.bin` responses still being sent.
    endless_open: Arc<AtomicUsize>,
    /// Lets `/download/slow.bin` finish.
    slow_gate: tokio::sync::Notify,
    /// Every request received, as `METHOD /path?query`, in order.
    received: Arc<Mutex<Vec<String>>>,
}

/// The page server; it lives as long as the test's runtime (cloning shares it).
#[derive(Clone)]
pub struct PageServer {
    pub addr: SocketAddr,
    pages: Arc<Pages>,
}

impl PageServer {
    /// The shared pages (`tests/pages/*`, any area's as `/<area>/<page>`).
    pub async fn start() -> Self {
        Self::serve(Pages::default()).await
    }

    /// The pages of `area` (`tests/pages/<area>/`) at the top, then the shared pages.
    pub async fn area(area: &str) -> Self {
        Self::serve(Pages {
            area: Some(Path::new(PAGES_DIR).join(area)),
            ..Pages::default()
        })
        .await
    }

    async fn serve(pages: Pages) -> Self {
        let pages = Arc::new(pages);
        let app = Router::new()
            .route("/payload.bin", get(payload))
            .route("/endless.bin", get(endless_download))
            .route("/basic", get(basic_auth))
            .route(
                "/download/report.bin",
                get(|| async { attachment("report.bin", report_bytes().into()) }),
            )
            .route("/download/slow.bin", get(slow_download))
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
            .route("/set/{n}", get(set_cookies))
            .route("/to", get(redirect))
            .route("/family/{seed}", get(family_page))
            .route("/family/{seed}/frame", get(family_frame))
            .fallback(file)
            .with_state(pages.clone())
            .layer(axum::middleware::from_fn_with_state(
                pages.received.clone(),
                log_request,
            ));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind page server");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self { addr, pages }
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Every request this server received so far, as `METHOD /path?query`, in order.
    pub fn requests(&self) -> Vec<String> {
        self.pages.received.lock().unwrap().clone()
    }

    /// `http://127.0.0.1:<port>`.
    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Fills `{name}` with `value` in every page served from now on.
    pub fn set(&self, name: &str, value: &str) {
        let mut vars = self.pages.vars.lock().expect("vars");
        vars.retain(|(n, _)| n != name);
        vars.push((name.to_string(), value.to_string()));
    }

    /// `/set/<n>` answers with the `Set-Cookie` headers of `cookies[n]`.
    pub fn set_cookies(&self, cookies: Vec<Vec<String>>) {
        *self.pages.cookies.lock().expect("cookies") = cookies;
    }

    /// How many `/endless.bin` responses are still being sent (the browser has not let go).
    pub fn endless_downloads_open(&self) -> usize {
        self.pages.endless_open.load(Ordering::SeqCst)
    }

    /// Lets `/download/slow.bin` finish (its first 1000 bytes come at once, the rest after).
    pub fn release_slow_download(&self) {
        self.pages.slow_gate.notify_one();
    }
}

/// `127.0.0.1:<port>`, so `format!("http://{pages}/x")` reads as before.
impl fmt::Display for PageServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.addr.fmt(f)
    }
}

/// Page `seed` of the generated family (`crate::page_family`).
async fn family_page(UrlPath(seed): UrlPath<u64>) -> Html<String> {
    Html(crate::page_family::page(seed).html)
}

/// The same-origin frame of family page `seed`.
async fn family_frame(UrlPath(seed): UrlPath<u64>) -> Html<String> {
    Html(crate::page_family::page(seed).frame)
}

/// Any other path: a file under the area, then under `tests/pages/` (`/x` may name `x.html`,
/// `/` names `index.html`).
async fn file(State(pages): State<Arc<Pages>>, uri: Uri, headers: HeaderMap) -> Response {
    let Some(found) = find(pages.area.as_deref(), uri.path()) else {
        return (
            StatusCode::NOT_FOUND,
            format!("no test page {}", uri.path()),
        )
            .into_response();
    };
    let kind = content_type(&found);
    if !kind.starts_with("text/html") {
        let bytes = std::fs::read(&found).expect("read test file");
        return ([(header::CONTENT_TYPE, kind)], bytes).into_response();
    }
    let text = page(
        found
            .strip_prefix(PAGES_DIR)
            .expect("under pages")
            .to_str()
            .expect("utf-8"),
    );
    let port = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.rsplit_once(':'))
        .map(|(_, port)| port.to_string())
        .unwrap_or_default();
    let vars = pages.vars.lock().expect("vars").clone();
    let text = fill(text, vars.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    Html(fill(text, [("PORT", port.as_str())])).into_response()
}

/// The file `path` names under `area` or the shared pages; never outside `tests/pages/`.
fn find(area: Option<&Path>, path: &str) -> Option<PathBuf> {
    let rel = path.trim_start_matches('/');
    if rel
        .split('/')
        .any(|part| part == ".." || part.starts_with('.'))
    {
        return None;
    }
    let rel = if rel.is_empty() { "index.html" } else { rel };
    let roots = area.into_iter().chain([Path::new(PAGES_DIR)]);
    for root in roots {
        for candidate in [root.join(rel), root.join(format!("{rel}.html"))] {
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "txt" => "text/plain; charset=utf-8",
        "jpg" | "jpeg" => "image/jpeg",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

fn attachment(name: &str, body: axum::body::Body) -> Response {
    Response::builder()
        .header("content-type", "application/octet-stream")
        .header(
            "content-disposition",
            format!("attachment; filename=\"{name}\""),
        )
        .body(body)
        .expect("response")
}

/// `/payload.bin`: [`download_payload`] as [`DOWNLOAD_NAME`] (RFC 5987 encoded).
async fn payload() -> impl IntoResponse {
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
}

/// `/download/slow.bin`: 1000 bytes now, 1000 more once the test releases the gate.
async fn slow_download(State(pages): State<Arc<Pages>>) -> Response {
    let chunks = futures_util::stream::unfold(0u8, move |step| {
        let pages = pages.clone();
        async move {
            match step {
                0 => Some((Ok::<_, std::io::Error>(vec![1u8; 1000]), 1)),
                1 => {
                    pages.slow_gate.notified().await;
                    Some((Ok(vec![2u8; 1000]), 2))
                }
                _ => None,
            }
        }
    });
    let mut response = attachment("slow.bin", axum::body::Body::from_stream(chunks));
    response
        .headers_mut()
        .insert("content-length", HeaderValue::from(2000));
    response
}

/// `/endless.bin`: a download that never ends (64 KiB chunks, about 6 MB a second), counted
/// while it lives.
async fn endless_download(State(pages): State<Arc<Pages>>) -> Response {
    let open = EndlessOpen::new(pages.endless_open.clone());
    let chunks = futures_util::stream::unfold((0u64, open), |(n, open)| async move {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        Some((
            Ok::<_, std::io::Error>(bytes::Bytes::from(vec![(n % 251) as u8; 64 * 1024])),
            (n + 1, open),
        ))
    });
    attachment("endless.bin", axum::body::Body::from_stream(chunks))
}

/// Counts one `/endless.bin` response while it lives.
struct EndlessOpen(Arc<AtomicUsize>);

impl EndlessOpen {
    fn new(count: Arc<AtomicUsize>) -> Self {
        count.fetch_add(1, Ordering::SeqCst);
        Self(count)
    }
}

impl Drop for EndlessOpen {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// `/set/<n>`: a page with the `Set-Cookie` headers of the server's `cookies[n]`.
async fn set_cookies(State(pages): State<Arc<Pages>>, UrlPath(n): UrlPath<usize>) -> Response {
    let mut headers = HeaderMap::new();
    for c in pages
        .cookies
        .lock()
        .expect("cookies")
        .get(n)
        .into_iter()
        .flatten()
    {
        headers.append(
            header::SET_COOKIE,
            HeaderValue::from_str(c).expect("a cookie header"),
        );
    }
    (headers, Html("<title>set</title>cookies")).into_response()
}

#[derive(serde::Deserialize)]
struct Target {
    u: String,
}

/// `/to?u=<url>`: a 303 to `url`.
/// Records each request before it is served.
async fn log_request(
    State(received): State<Arc<Mutex<Vec<String>>>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let line = format!("{} {}", request.method(), request.uri());
    received.lock().unwrap().push(line);
    next.run(request).await
}

async fn redirect(Query(t): Query<Target>) -> Response {
    Redirect::to(&t.u).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::{http_get_bytes, http_request_raw};

    #[tokio::test]
    async fn an_area_page_comes_before_the_shared_one_and_the_shared_ones_still_show() {
        let mcp = PageServer::area("mcp").await;
        let addr = mcp.addr.to_string();
        let (status, second) = http_request_raw("GET", &addr, "/second", &[], None).await;
        assert_eq!(status, 200);
        assert!(second.contains("Back to form"), "{second}");
        let (status, complex) = http_request_raw("GET", &addr, "/complex", &[], None).await;
        assert_eq!(status, 200);
        assert!(complex.contains("<title>Complex page</title>"), "{complex}");
        let shared = PageServer::start().await;
        let (_, second) =
            http_request_raw("GET", &shared.addr.to_string(), "/second", &[], None).await;
        assert!(second.contains("href=\"/input\""), "{second}");
    }

    #[tokio::test]
    async fn files_carry_their_content_type_and_pages_their_port_and_values() {
        let pages = PageServer::area("pane_context_menu").await;
        let addr = pages.addr.to_string();
        let (status, headers, jpeg) = http_get_bytes(&addr, "/pic.jpg", &[]).await;
        assert_eq!(status, 200);
        assert!(headers.contains(&("content-type".into(), "image/jpeg".into())));
        assert_eq!(&jpeg[..2], &[0xFF, 0xD8], "a JPEG");
        let (_, headers, menu) = http_get_bytes(&addr, "/menu", &[]).await;
        assert!(headers.contains(&("content-type".into(), "text/html; charset=utf-8".into())));
        let menu = String::from_utf8(menu).unwrap();
        assert!(menu.contains(&format!("http://localhost:{}/pic.jpg", pages.port())));
        let web = PageServer::area("web_panel").await;
        web.set("API", "http://api.test");
        let (_, app) =
            http_request_raw("GET", &web.addr.to_string(), "/embed-app", &[], None).await;
        assert!(app.contains("api=\"http://api.test\""), "{app}");
        assert!(
            app.contains("{TOKEN}"),
            "an unset value stays as it was: {app}"
        );
    }

    #[tokio::test]
    async fn nothing_outside_the_pages_is_served() {
        let pages = PageServer::area("mcp").await;
        let addr = pages.addr.to_string();
        for path in [
            "/../Cargo.toml",
            "/mcp/../../Cargo.toml",
            "/%2e%2e/Cargo.toml",
            "/nope",
        ] {
            let (status, _) = http_request_raw("GET", &addr, path, &[], None).await;
            assert_eq!(status, 404, "{path}");
        }
    }

    #[tokio::test]
    async fn each_server_holds_its_own_slow_download_and_cookies() {
        let (a, b) = (PageServer::start().await, PageServer::start().await);
        a.set_cookies(vec![vec!["k=v; Path=/".into()]]);
        let (_, headers, _) = http_get_bytes(&a.addr.to_string(), "/set/0", &[]).await;
        assert!(headers.contains(&("set-cookie".into(), "k=v; Path=/".into())));
        let (_, headers, _) = http_get_bytes(&b.addr.to_string(), "/set/0", &[]).await;
        assert!(
            !headers.iter().any(|(n, _)| n == "set-cookie"),
            "{headers:?}"
        );
        b.release_slow_download();
        let (status, _, body) =
            http_get_bytes(&b.addr.to_string(), "/download/slow.bin", &[]).await;
        assert_eq!((status, body.len()), (200, 2000));
        assert_eq!(a.endless_downloads_open() + b.endless_downloads_open(), 0);
    }
}
