//! Which processes listen on TCP: read from `/proc`, so a test can prove that a browser the
//! daemon started opens no DevTools port (DESIGN.md §13).

use std::collections::HashSet;

/// Inodes of the TCP sockets in LISTEN state in the network namespace of `pid` (its
/// `/proc/<pid>/net/tcp` and `tcp6`).
pub fn listening_inodes(pid: u32) -> HashSet<u64> {
    let mut inodes = HashSet::new();
    for file in ["tcp", "tcp6"] {
        let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/net/{file}")) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // sl local rem st tx:rx tr:when retrnsmt uid timeout inode …; st 0A = LISTEN.
            if fields.len() > 9 && fields[3] == "0A" {
                if let Ok(inode) = fields[9].parse() {
                    inodes.insert(inode);
                }
            }
        }
    }
    inodes
}

/// Socket inodes held open by `pid` (its `/proc/<pid>/fd` links `socket:[N]`).
pub fn socket_inodes(pid: u32) -> HashSet<u64> {
    let mut inodes = HashSet::new();
    for entry in std::fs::read_dir(format!("/proc/{pid}/fd"))
        .into_iter()
        .flatten()
        .flatten()
    {
        if let Ok(target) = std::fs::read_link(entry.path()) {
            let target = target.to_string_lossy();
            if let Some(inode) = target
                .strip_prefix("socket:[")
                .and_then(|rest| rest.strip_suffix(']'))
                .and_then(|n| n.parse().ok())
            {
                inodes.insert(inode);
            }
        }
    }
    inodes
}

/// `(pid, inode)` of every LISTEN TCP socket held by one of `pids`.
pub fn listening_sockets_of(pids: &[u32]) -> Vec<(u32, u64)> {
    let mut found = Vec::new();
    for &pid in pids {
        let listening = listening_inodes(pid);
        for inode in socket_inodes(pid) {
            if listening.contains(&inode) {
                found.push((pid, inode));
            }
        }
    }
    found
}

/// `(ppid, pgrp)` from `/proc/<pid>/stat`.
fn parent_and_group(pid: u32) -> Option<(u32, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces; fields after it are
    // state, ppid, pgrp, …
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let _state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((ppid, pgrp))
}

/// `root` and every process in its process group or below it in the process tree.
pub fn process_family(root: u32) -> Vec<u32> {
    let mut all: Vec<(u32, u32, u32)> = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Some((ppid, pgrp)) = parent_and_group(pid) {
            all.push((pid, ppid, pgrp));
        }
    }
    let mut family: Vec<u32> = vec![root];
    loop {
        let before = family.len();
        for &(pid, ppid, pgrp) in &all {
            if !family.contains(&pid) && (pgrp == root || family.contains(&ppid)) {
                family.push(pid);
            }
        }
        if family.len() == before {
            return family;
        }
    }
}
