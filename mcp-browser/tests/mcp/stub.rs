//! A stub of the daemon's action endpoint: records every request and answers with canned
//! `ToolOutput`s chosen by tool and channel.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use base64::Engine as _;
use porthole_mcp::{ActionRequest, ToolOutput};
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The token the stub accepts.
pub const TOKEN: &str = "test-token-1234";
/// A channel the stub answers 404 `unknown_channel` for.
pub const MISSING_CHANNEL: &str = "no-such-channel";
/// A 1×1 PNG.
pub const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// One request the stub received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The Authorization header.
    pub auth: Option<String>,
    /// The JSON body.
    pub body: Value,
}

/// A running stub; stops when dropped.
pub struct Stub {
    /// Where it listens.
    pub addr: SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
    stop: CancellationToken,
}

impl Drop for Stub {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl Stub {
    /// Starts a stub on 127.0.0.1:0.
    pub async fn start() -> Self {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let app = Router::new()
            .route("/api/browser/action", post(action))
            .with_state(requests.clone());
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = CancellationToken::new();
        let shutdown = stop.clone();
        tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(shutdown.cancelled_owned())
                .await
                .unwrap();
        });
        Self {
            addr,
            requests,
            stop,
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Everything received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        // Never held across an await.
        self.requests.lock().unwrap().clone()
    }

    /// The bodies received so far.
    pub fn bodies(&self) -> Vec<Value> {
        self.requests().into_iter().map(|r| r.body).collect()
    }
}

async fn action(
    State(requests): State<Arc<Mutex<Vec<Recorded>>>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    requests.lock().unwrap().push(Recorded {
        auth: auth.clone(),
        body: body.clone(),
    });
    if auth.as_deref() != Some(&format!("Bearer {TOKEN}")) {
        return error(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "missing or wrong token",
        );
    }
    let request: ActionRequest = match serde_json::from_value(body) {
        Ok(r) => r,
        Err(e) => return error(StatusCode::BAD_REQUEST, "bad_request", &e.to_string()),
    };
    if request.channel_id.as_deref() == Some(MISSING_CHANNEL) {
        return error(
            StatusCode::NOT_FOUND,
            "unknown_channel",
            "no channel named no-such-channel",
        );
    }
    let out = match request.tool.as_str() {
        "screenshot" => {
            let data = base64::engine::general_purpose::STANDARD.encode(PNG);
            ToolOutput::image(data, "image/png").with_text("viewport 1x1")
        }
        // Never answers: exercises the server's deadline.
        "reload" => std::future::pending().await,
        "find" => ToolOutput::error("No element matches \"nothing\"."),
        tool => ToolOutput::text(format!("stub ran {tool} {}", request.args)),
    };
    Json(out).into_response()
}

fn error(status: StatusCode, code: &str, message: &str) -> Response {
    (
        status,
        Json(json!({"error": {"code": code, "message": message}})),
    )
        .into_response()
}
