//! The one thread every pane's writer runs on.
//!
//! A frame wakes the writer of every pane watching its tab at once. On the daemon's
//! multi-threaded runtime those wake-ups spread over its workers: each woken worker is
//! unparked, steals, writes a socket or two and parks again, and that traffic between threads
//! cost more than the writes themselves (with 20 panes on a tab, a sixth of the daemon's
//! samples were the scheduler's switch and unpark paths). Here one thread takes the frame's
//! whole fan-out in one wake: the writers only copy bytes into sockets, which never blocks
//! (a full socket makes its writer wait for readiness, not the thread).
//!
//! The runtime has no I/O driver of its own: the sockets stay registered with the daemon's
//! runtime, whose driver wakes a writer when a full socket drains. Without one, waking a
//! writer from another thread is an atomic store while this thread runs (one futex wake when
//! it sleeps); an I/O driver would be woken through its eventfd, a system call for every
//! pane of every frame.

use std::future::Future;
use std::sync::OnceLock;

use tokio::runtime::{Builder, Handle};
use tokio::task::JoinHandle;

/// The writers' runtime, started on first use and kept for the process's life.
static WRITERS: OnceLock<Handle> = OnceLock::new();

/// Runs `writer` on the writers' thread.
pub(super) fn spawn<F>(writer: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    WRITERS.get_or_init(start).spawn(writer)
}

/// Starts the thread and its single-threaded runtime; the handle spawns onto it.
fn start() -> Handle {
    let runtime = Builder::new_current_thread()
        .enable_time()
        .thread_name("pane-writers")
        .build()
        .expect("the pane writers' runtime (a thread and an event loop) could not be built");
    let handle = runtime.handle().clone();
    std::thread::Builder::new()
        .name("pane-writers".into())
        .spawn(move || runtime.block_on(std::future::pending::<()>()))
        .expect("the pane writers' thread could not be started");
    handle
}
