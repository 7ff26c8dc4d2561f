//! A minimal HTTP/1.1 client for the tests: one request per connection, over TCP or the
//! daemon's Unix agent socket, the body de-chunked (JSON, text or bytes).

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

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
