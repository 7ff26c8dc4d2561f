//! What turns Chromium's own sandbox on in a sidecar (DESIGN.md §13): the sidecar's seccomp
//! profile, the `SecurityOpt` entries that carry it, and the argument that tells the sidecar to
//! leave `--no-sandbox` out. Under Docker's default seccomp profile a container without
//! `CAP_SYS_ADMIN` may not make user namespaces, so Chromium's namespace sandbox fails ("No
//! usable sandbox!") and the sidecar had to pass `--no-sandbox`. [`SECCOMP_PROFILE`] is an
//! allowlist written for the sidecar: ordinary file, memory, process, signal, socket and time
//! calls, plus what the namespace sandbox needs (`clone` and `unshare` with namespace flags,
//! `setns`, `chroot`); no `mount`, module, key, BPF, perf, clock-setting or reboot calls, so a
//! user namespace grants little; no `ptrace` or `process_vm_*` (one process of the container
//! reading or steering another) and no message queues, which Chromium does not use. `clone3`
//! answers ENOSYS so the C library falls back to `clone`.
//!
//! Plain facts: whether a daemon's sidecars get them is decided once by the probe in
//! `sandbox`.

/// The sidecar's seccomp profile (Docker's JSON format), sent inline as `seccomp=<json>`.
pub(crate) const SECCOMP_PROFILE: &str = include_str!("sidecar-seccomp.json");

/// The argument that tells the sidecar to leave `--no-sandbox` out (porthole-sidecar's
/// `chrome::SANDBOX_ARG`).
pub(crate) const SANDBOX_ARG: &str = "--porthole-chromium-sandbox";

/// The `SecurityOpt` entries of a sidecar.
pub(crate) fn security_opts(sandbox: bool) -> Vec<String> {
    let mut opts = vec!["no-new-privileges:true".to_string()];
    if sandbox {
        opts.push(format!("seccomp={SECCOMP_PROFILE}"));
    }
    opts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_profile_is_json_that_allows_the_namespace_sandbox_and_not_mount() {
        let profile: serde_json::Value = serde_json::from_str(SECCOMP_PROFILE).unwrap();
        assert_eq!(profile["defaultAction"], "SCMP_ACT_ERRNO");
        let allowed: Vec<&str> = profile["syscalls"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|rule| rule["action"] == "SCMP_ACT_ALLOW" && rule.get("args").is_none())
            .flat_map(|rule| rule["names"].as_array().unwrap())
            .filter_map(|name| name.as_str())
            .collect();
        for needed in ["clone", "unshare", "setns", "chroot", "seccomp", "prctl"] {
            assert!(allowed.contains(&needed), "{needed}");
        }
        for refused in [
            "mount",
            "umount2",
            "pivot_root",
            "init_module",
            "kexec_load",
            "bpf",
            "keyctl",
            "perf_event_open",
            "reboot",
            "clock_settime",
            // Reading or steering another process of the container: Chromium does not need
            // it (only a crash reporter would), and a compromised browser process must not.
            "ptrace",
            "process_vm_readv",
            "process_vm_writev",
            "userfaultfd",
            "open_by_handle_at",
            // System V message queues and POSIX mqueues: nothing in Chromium uses them.
            "msgget",
            "mq_open",
        ] {
            assert!(!allowed.contains(&refused), "{refused}");
        }
    }

    #[test]
    fn the_profile_goes_with_the_sandbox_only() {
        assert_eq!(security_opts(false), vec!["no-new-privileges:true"]);
        let on = security_opts(true);
        assert_eq!(on[0], "no-new-privileges:true");
        assert!(on[1].starts_with("seccomp={"));
    }
}
