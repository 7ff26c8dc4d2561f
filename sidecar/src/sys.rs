//! The few libc calls a PID 1 needs and std does not offer: blocking signals so one thread can
//! take them synchronously (`sigtimedwait`), reaping every child (`waitpid(-1)`), and `kill`.
//!
//! Declared by hand because the sidecar is std-only. Linux/glibc, 64-bit and 32-bit alike.
//! Every `unsafe` block in the crate is in this file.

use std::io;
use std::os::raw::{c_int, c_long, c_void};
use std::time::Duration;

pub const SIGINT: c_int = 2;
pub const SIGKILL: c_int = 9;
pub const SIGTERM: c_int = 15;
pub const SIGCHLD: c_int = 17;

const SIG_BLOCK: c_int = 0;
const WNOHANG: c_int = 1;
const EAGAIN: i32 = 11;
const EINTR: i32 = 4;

/// glibc's `sigset_t`: 1024 bits, only touched through `sigemptyset`/`sigaddset`.
#[repr(C)]
struct SigSet([u64; 16]);

/// `struct timespec` (`time_t` and `long` are both `long` on glibc without `_TIME_BITS=64`).
#[repr(C)]
struct Timespec {
    tv_sec: c_long,
    tv_nsec: c_long,
}

extern "C" {
    fn sigemptyset(set: *mut SigSet) -> c_int;
    fn sigaddset(set: *mut SigSet, signum: c_int) -> c_int;
    fn pthread_sigmask(how: c_int, set: *const SigSet, old: *mut SigSet) -> c_int;
    fn sigtimedwait(set: *const SigSet, info: *mut c_void, timeout: *const Timespec) -> c_int;
    fn waitpid(pid: c_int, status: *mut c_int, options: c_int) -> c_int;
    fn kill(pid: c_int, sig: c_int) -> c_int;
}

/// The signals the supervisor takes: shutdown requests and child exits.
fn handled_set() -> SigSet {
    let mut set = SigSet([0; 16]);
    // SAFETY: `set` is a valid, writable sigset_t-sized buffer; the signal numbers are valid.
    unsafe {
        sigemptyset(&mut set);
        for sig in [SIGINT, SIGTERM, SIGCHLD] {
            sigaddset(&mut set, sig);
        }
    }
    set
}

/// Blocks SIGINT, SIGTERM and SIGCHLD in the calling thread. Call first thing in `main`, before
/// any thread exists, so every thread inherits the mask and the signals stay pending until
/// [`wait_signal`] takes them. (A blocked signal is queued even for PID 1, which would otherwise
/// drop signals it has no handler for.) std resets the mask in children it spawns, so Chrome
/// starts with a clean one.
pub fn block_signals() -> io::Result<()> {
    let set = handled_set();
    // SAFETY: `set` was initialised by sigemptyset/sigaddset; a null old-set is allowed.
    let rc = unsafe { pthread_sigmask(SIG_BLOCK, &set, std::ptr::null_mut()) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::from_raw_os_error(rc))
    }
}

/// Waits up to `timeout` for one of the blocked signals; `None` on timeout or interruption.
pub fn wait_signal(timeout: Duration) -> io::Result<Option<c_int>> {
    let set = handled_set();
    let ts = Timespec {
        tv_sec: timeout.as_secs().min(3600) as c_long,
        tv_nsec: timeout.subsec_nanos() as c_long,
    };
    // SAFETY: valid set and timespec; a null siginfo pointer is allowed by sigtimedwait(2).
    let sig = unsafe { sigtimedwait(&set, std::ptr::null_mut(), &ts) };
    if sig >= 0 {
        return Ok(Some(sig));
    }
    let err = io::Error::last_os_error();
    match err.raw_os_error() {
        Some(EAGAIN) | Some(EINTR) => Ok(None),
        _ => Err(err),
    }
}

/// Reaps every child that has exited, without blocking: `(pid, raw wait status)` for each.
pub fn reap_all() -> Vec<(i32, i32)> {
    let mut reaped = Vec::new();
    loop {
        let mut status: c_int = 0;
        // SAFETY: `status` is a valid out-pointer; WNOHANG makes the call non-blocking.
        let pid = unsafe { waitpid(-1, &mut status, WNOHANG) };
        if pid <= 0 {
            // 0: children remain but none has exited; -1: ECHILD (none at all) or EINTR.
            return reaped;
        }
        reaped.push((pid, status));
    }
}

/// Sends `sig` to `pid`.
pub fn send_signal(pid: u32, sig: c_int) -> io::Result<()> {
    // SAFETY: plain syscall wrapper; a pid that already exited yields ESRCH, not UB.
    let rc = unsafe { kill(pid as c_int, sig) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}
