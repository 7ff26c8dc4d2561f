//! `make bench`, the floor under the per-pane cost of a frame: a bare WebSocket fan-out of the
//! same JPEG bytes, at the same rate, to 1 and to N loopback clients, on a thread of its own
//! whose CPU time is read from the kernel's per-thread accounting. What the daemon adds per
//! pane over this floor is what fanning out could still save; the floor itself (the kernel's
//! loopback send and one WebSocket frame per socket) is paid by any server.
//!
//! The floor's clients send what a pane sends before it watches (two short messages): the
//! kernel treats a socket whose peer has sent data as interactive, and the peer then delays
//! its ACKs; on loopback the ACK for every second frame is then built and taken in inside the
//! server's own `sendto`. A client that never sent a byte ACKs each frame from its own
//! thread instead, which makes a floor no pane-serving server can stand on.

use std::time::Duration;

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpListener;
use tokio::sync::{oneshot, watch};
use tokio_tungstenite::tungstenite::Message;

/// How long clients that just connected are left to settle into the stream before a window
/// opens (the daemon's panes get the same in `porthole-bench screencast`).
pub const SETTLE: Duration = Duration::from_millis(300);

/// CPU seconds the kernel has charged to one thread of this process (nanosecond accounting).
fn thread_cpu_seconds(tid: i32) -> f64 {
    let path = format!("/proc/self/task/{tid}/schedstat");
    let ns: f64 = std::fs::read_to_string(path)
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0);
    ns / 1e9
}

/// The server thread's id, read inside it.
fn current_tid() -> i32 {
    std::fs::read_link("/proc/thread-self")
        .ok()
        .and_then(|p| p.file_name()?.to_str()?.parse().ok())
        .unwrap_or(0)
}

/// What the floor's clients send once connected.
#[derive(Clone, Copy, Debug)]
pub enum Spoke {
    /// Two short messages, as a pane sends its start and watch.
    AsPanes,
    /// Nothing (their kernel then ACKs each frame at once, from the reading thread).
    Never,
}

/// The fan-out server's CPU time over `window` with `clients` connected clients reading every
/// frame: `frame` sent `fps` times a second to each, one task per socket fed by one watch
/// channel (the daemon's own shape, nothing else).
pub async fn server_cpu(
    frame: Bytes,
    fps: u32,
    clients: usize,
    spoke: Spoke,
    window: Duration,
) -> f64 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the fan-out floor");
    let addr = listener.local_addr().expect("its address");
    let (tid_tx, tid_rx) = oneshot::channel();
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let server = std::thread::spawn(move || {
        let _ = tid_tx.send(current_tid());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("the floor's runtime");
        runtime.block_on(serve(listener, frame, fps, clients, stop_rx));
    });
    let tid = tid_rx.await.expect("the floor thread's id");
    let mut readers = Vec::new();
    for _ in 0..clients {
        let (mut socket, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/"))
            .await
            .expect("connect to the fan-out floor");
        if let Spoke::AsPanes = spoke {
            for message in [
                r#"{"type":"start","channel":"bench"}"#,
                r#"{"type":"watch","tab":"tab-1"}"#,
            ] {
                let _ = socket.send(Message::text(message)).await;
            }
        }
        readers.push(tokio::spawn(async move {
            let (_, mut read) = socket.split();
            while let Some(Ok(_)) = read.next().await {}
        }));
    }
    tokio::time::sleep(SETTLE).await;
    let before = thread_cpu_seconds(tid);
    tokio::time::sleep(window).await;
    let used = thread_cpu_seconds(tid) - before;
    let _ = stop_tx.send(());
    let _ = tokio::task::spawn_blocking(move || server.join()).await;
    for reader in readers {
        reader.abort();
    }
    used
}

async fn serve(
    listener: std::net::TcpListener,
    frame: Bytes,
    fps: u32,
    clients: usize,
    stop: oneshot::Receiver<()>,
) {
    listener
        .set_nonblocking(true)
        .expect("non-blocking listener");
    let listener = TcpListener::from_std(listener).expect("the floor's listener");
    let (publish, frames) = watch::channel(frame.clone());
    for _ in 0..clients {
        let (stream, _) = listener.accept().await.expect("accept a floor client");
        // As the daemon's pane sockets (daemon/servers.rs): no Nagle, so the floor does the
        // same work per frame.
        stream
            .set_nodelay(true)
            .expect("no-delay on a floor client");
        let mut socket = tokio_tungstenite::accept_async(stream)
            .await
            .expect("floor handshake");
        let mut frames = frames.clone();
        tokio::spawn(async move {
            while frames.changed().await.is_ok() {
                let bytes = frames.borrow_and_update().clone();
                if socket.send(Message::Binary(bytes)).await.is_err() {
                    return;
                }
            }
        });
    }
    let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / f64::from(fps.max(1))));
    tokio::select! {
        _ = stop => {}
        _ = async {
            loop {
                tick.tick().await;
                // A new `Bytes` handle to the same bytes, as the daemon publishes each frame.
                publish.send_replace(frame.clone());
            }
        } => {}
    }
}
