//! The few libc calls a PID 1 needs and std does not offer: blocking signals so one thread can
//! take them synchronously (`sigtimedwait`), reaping every child (`waitpid(-1)`), `kill`, and
//! the two pipes of Chromium's `--remote-debugging-pipe` placed at the child's fds 3 and 4.
//!
//! Declared by hand because the sidecar is std-only. Linux/glibc, 64-bit and 32-bit alike.
//! Every `unsafe` block in the crate is in this file.

use std::fs::File;
use std::io;
use std::os::raw::{c_int, c_long, c_void};
use std::os::unix::io::{FromRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::Duration;

pub const SIGINT: c_int = 2;
pub const SIGKILL: c_int = 9;
pub const SIGTERM: c_int = 15;
pub const SIGCHLD: c_int = 17;

const SIG_BLOCK: c_int = 0;
const WNOHANG: c_int = 1;
const EAGAIN: i32 = 11;
const EINTR: i32 = 4;
/// Linux's `O_CLOEXEC` (the same on x86_64 and aarch64).
const O_CLOEXEC: c_int = 0o2_000_000;
const F_DUPFD_CLOEXEC: c_int = 1030;

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
    fn pipe2(fds: *mut c_int, flags: c_int) -> c_int;
    fn fcntl(fd: c_int, cmd: c_int, ...) -> c_int;
    fn dup2(old: c_int, new: c_int) -> c_int;
    fn getuid() -> u32;
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

/// A pipe whose two ends are close-on-exec: `(read end, write end)`.
pub fn pipe() -> io::Result<(File, File)> {
    let mut fds: [c_int; 2] = [-1, -1];
    // SAFETY: `fds` is a valid out-array of two ints.
    let rc = unsafe { pipe2(fds.as_mut_ptr(), O_CLOEXEC) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: pipe2 succeeded, so both fds are open and owned by nobody else.
    Ok(unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) })
}

/// Makes the child of `command` get `reads` as its fd 3 and `writes` as its fd 4 (Chromium's
/// `--remote-debugging-pipe`). Both stay close-on-exec here, so no other child inherits them.
/// The caller keeps both open until the spawn returns.
pub fn give_fds_3_and_4(command: &mut Command, reads: RawFd, writes: RawFd) {
    // SAFETY: the closure runs in the forked child before exec and only makes async-signal-safe
    // syscalls (fcntl, dup2) on two copied integers; it allocates nothing. Each end is first
    // copied above fd 10 so that placing one at 3 or 4 can never overwrite the other; those
    // copies are close-on-exec, while dup2 leaves 3 and 4 without the flag.
    unsafe {
        command.pre_exec(move || {
            let high_reads = fcntl(reads, F_DUPFD_CLOEXEC, 10 as c_int);
            let high_writes = fcntl(writes, F_DUPFD_CLOEXEC, 10 as c_int);
            if high_reads < 0
                || high_writes < 0
                || dup2(high_reads, 3) < 0
                || dup2(high_writes, 4) < 0
            {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// The real user id of this process.
pub fn uid() -> u32 {
    // SAFETY: getuid(2) cannot fail and takes no arguments.
    unsafe { getuid() }
}
