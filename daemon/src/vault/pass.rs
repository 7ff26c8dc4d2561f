//! The standard Unix password store (`pass`): one gpg-encrypted file per item under the store
//! directory (`~/.password-store` by default). Porthole runs `pass show <item>` as the daemon's
//! user, directly (never through a shell), with a deadline, and reads its output: first line
//! the password, `login:` / `user:` / `username:` the user name, `url:` the site, an
//! `otpauth://` line the one-time code (pass-otp's form). gpg-agent holds the key's
//! passphrase, so Porthole never unlocks a pass store itself.
//!
//! Listing reads only the store's tree of names (`pass ls` without gpg): nothing is decrypted
//! to list, so no listing runs gpg, raises pinentry or holds an unshared item in memory
//! (DESIGN.md §19a). A listed item's site and user name are read from its path, by the
//! convention browserpass and passff share (`<site>/<user>` or `<site>`); the fill decrypts
//! that one item (shared with the caller) and checks the origins of its own `url:` line. The
//! decrypted text lives in zeroizing buffers for that fill. A `pass` that does not answer in
//! time is killed with its whole process group (gpg and pinentry too).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use async_trait::async_trait;
use tokio::process::Command;
use zeroize::Zeroizing;

use super::error::VaultError;
use super::origins::origin_of;
use super::source::{Entry, ItemInfo, SourceState, VaultSource};
use super::totp::TotpSpec;

/// The longest one `pass show` may take (gpg-agent may be asking for a passphrase).
const DEADLINE: Duration = Duration::from_secs(10);
/// The most items listed from one store.
const MAX_ITEMS: usize = 2000;

/// A `pass` store.
pub struct PassSource {
    name: String,
    dir: PathBuf,
}

impl PassSource {
    /// `dir`: the store (`PASSWORD_STORE_DIR`); none → `~/.password-store`.
    pub fn new(name: String, dir: Option<PathBuf>) -> Self {
        let dir = dir.unwrap_or_else(|| {
            std::env::var_os("PASSWORD_STORE_DIR")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".password-store")))
                .unwrap_or_else(|| PathBuf::from(".password-store"))
        });
        Self { name, dir }
    }

    fn unreadable(&self, reason: impl Into<String>) -> VaultError {
        VaultError::Unreadable {
            name: self.name.clone(),
            reason: reason.into(),
        }
    }

    /// The item paths (relative, without `.gpg`), sorted.
    fn paths(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![self.dir.clone()];
        while let Some(dir) = stack.pop() {
            let Ok(read) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in read.flatten() {
                let name = entry.file_name().to_string_lossy().to_string();
                if name.starts_with('.') {
                    continue;
                }
                let path = entry.path();
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_dir() {
                    stack.push(path);
                } else if kind.is_file() && name.ends_with(".gpg") {
                    if let Ok(rel) = path.strip_prefix(&self.dir) {
                        let rel = rel.to_string_lossy();
                        out.push(rel.trim_end_matches(".gpg").to_string());
                    }
                }
                if out.len() >= MAX_ITEMS {
                    break;
                }
            }
        }
        out.sort();
        out
    }

    /// `pass show <path>`'s output.
    async fn show(&self, path: &str) -> Result<Zeroizing<String>, VaultError> {
        if !safe_path(path) || !self.paths().iter().any(|p| p == path) {
            return Err(VaultError::UnknownItem(format!("{}/{path}", self.name)));
        }
        let mut command = Command::new("pass");
        command
            .arg("show")
            .arg("--")
            .arg(path)
            .env("PASSWORD_STORE_DIR", &self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group: a deadline kills gpg and pinentry with it.
            .process_group(0)
            .kill_on_drop(true);
        let child = match command.spawn() {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(self.unreadable("pass is not installed (the `pass` command is missing)"))
            }
            Err(e) => return Err(self.unreadable(format!("cannot run pass: {e}"))),
            Ok(child) => child,
        };
        let group = child.id();
        let output = match tokio::time::timeout(DEADLINE, child.wait_with_output()).await {
            Err(_) => {
                kill_group(group);
                return Err(self.unreadable(format!(
                    "pass show took longer than {} s (is gpg-agent asking for a passphrase?)",
                    DEADLINE.as_secs()
                )));
            }
            Ok(Err(e)) => return Err(self.unreadable(format!("cannot run pass: {e}"))),
            Ok(Ok(output)) => output,
        };
        let stdout = Zeroizing::new(output.stdout);
        if !output.status.success() {
            // gpg's own words (no secret is in them), cut short.
            let why: String = String::from_utf8_lossy(&output.stderr)
                .lines()
                .last()
                .unwrap_or("")
                .chars()
                .take(200)
                .collect();
            return Err(self.unreadable(format!("pass show failed: {why}")));
        }
        match std::str::from_utf8(&stdout) {
            Ok(text) => Ok(Zeroizing::new(text.to_string())),
            Err(_) => Err(self.unreadable(format!("item {path} is not text"))),
        }
    }
}

/// An item path Porthole passes to `pass`: relative, no `..`, no option-like start.
fn safe_path(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('-')
        && !path.starts_with('/')
        && path
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..")
}

/// The fields of a `pass show` text.
struct Parsed {
    password: Option<Zeroizing<String>>,
    username: String,
    origins: Vec<String>,
    otp: Option<Zeroizing<String>>,
}

fn parse(text: &str) -> Parsed {
    let mut lines = text.lines();
    let password = lines
        .next()
        .filter(|l| !l.is_empty())
        .map(|l| Zeroizing::new(l.to_string()));
    let (mut username, mut origins, mut otp) = (String::new(), Vec::new(), None);
    for line in lines {
        let trimmed = line.trim();
        if trimmed.starts_with("otpauth://") {
            otp = Some(Zeroizing::new(trimmed.to_string()));
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key.trim().to_ascii_lowercase().as_str() {
            "login" | "user" | "username" if username.is_empty() => username = value.to_string(),
            "url" => {
                if let Some(origin) = origin_of(value) {
                    if !origins.contains(&origin) {
                        origins.push(origin);
                    }
                }
            }
            _ => {}
        }
    }
    Parsed {
        password,
        username,
        origins,
        otp,
    }
}

/// The site and user name an item's path names, by the browserpass convention: the last
/// segment that looks like a host name is the site (`https://` it), and a segment after it
/// the user name. A path naming no site gives neither.
fn named_in(path: &str) -> (Vec<String>, String) {
    let parts: Vec<&str> = path.split('/').collect();
    let Some(at) = parts.iter().rposition(|p| looks_like_host(p)) else {
        return (Vec::new(), String::new());
    };
    let origins = origin_of(&format!("https://{}", parts[at]))
        .into_iter()
        .collect();
    let username = parts.get(at + 1).map(|u| u.to_string()).unwrap_or_default();
    (origins, username)
}

/// `forum.example.com`, `localhost:8080`: letters, digits, dots, dashes (a port after `:`),
/// with a dot or a port.
fn looks_like_host(part: &str) -> bool {
    let (host, port) = part.split_once(':').unwrap_or((part, ""));
    !host.is_empty()
        && (host.contains('.') || !port.is_empty())
        && !host.starts_with('.')
        && !host.ends_with('.')
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        && port.chars().all(|c| c.is_ascii_digit())
}

/// Kills process group `group` (a `pass` past its deadline, with the gpg and pinentry it
/// started).
fn kill_group(group: Option<u32>) {
    if let Some(group) = group.and_then(|g| i32::try_from(g).ok()) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(group),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

fn title_of(path: &str) -> String {
    path.rsplit('/').next().unwrap_or(path).to_string()
}

#[async_trait]
impl VaultSource for PassSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> &'static str {
        "pass"
    }

    fn state(&self) -> SourceState {
        if !self.dir.is_dir() {
            return SourceState::Error(format!("no password store at {}", self.dir.display()));
        }
        if !on_path("pass") {
            return SourceState::Error(
                "pass is not installed (the `pass` command is missing)".into(),
            );
        }
        if !on_path("gpg") && !on_path("gpg2") {
            return SourceState::Error("gpg is not installed".into());
        }
        SourceState::Unlocked
    }

    async fn unlock(&self, _password: Zeroizing<String>) -> Result<(), VaultError> {
        Err(VaultError::NoUnlock(self.name.clone()))
    }

    fn lock(&self) {}

    async fn items(&self) -> Result<Vec<ItemInfo>, VaultError> {
        if let SourceState::Error(reason) = self.state() {
            return Err(self.unreadable(reason));
        }
        Ok(self
            .paths()
            .into_iter()
            .map(|path| {
                let (origins, username) = named_in(&path);
                ItemInfo {
                    item: format!("{}/{path}", self.name),
                    title: title_of(&path),
                    username,
                    origins,
                    // Known only once decrypted, at a fill.
                    has_totp: false,
                }
            })
            .collect())
    }

    async fn entry(&self, path: &str) -> Result<Entry, VaultError> {
        let text = self.show(path).await?;
        let parsed = parse(&text);
        Ok(Entry {
            title: title_of(path),
            username: Zeroizing::new(parsed.username),
            password: parsed.password,
            totp: parsed.otp.map(|uri| TotpSpec::from_uri(&uri)),
            origins: parsed.origins,
        })
    }
}

/// Whether `program` is an executable on `PATH`.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|dir| {
            let candidate = dir.join(program);
            std::fs::metadata(&candidate).is_ok_and(|m| {
                use std::os::unix::fs::PermissionsExt;
                m.is_file() && m.permissions().mode() & 0o111 != 0
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_entries_are_read_as_pass_and_pass_otp_write_them() {
        let parsed = parse(
            "hunter2\nlogin: alice\nurl: https://forum.example/login\n\
             otpauth://totp/forum:alice?secret=GEZDGNBVGY3TQOJQ&issuer=forum\nnotes: x\n",
        );
        assert_eq!(
            parsed.password.as_deref().map(String::as_str),
            Some("hunter2")
        );
        assert_eq!(parsed.username, "alice");
        assert_eq!(parsed.origins, vec!["https://forum.example".to_string()]);
        assert!(parsed.otp.is_some());
        let parsed = parse("\nuser: bob\n");
        assert!(parsed.password.is_none());
        assert_eq!(parsed.username, "bob");
    }

    #[test]
    fn a_listing_reads_site_and_user_from_the_path_alone() {
        assert_eq!(
            named_in("web/forum.example.com/alice"),
            (
                vec!["https://forum.example.com".to_string()],
                "alice".into()
            )
        );
        assert_eq!(
            named_in("github.com"),
            (vec!["https://github.com".to_string()], String::new())
        );
        assert_eq!(named_in("web/forum"), (Vec::new(), String::new()));
        assert_eq!(
            named_in("127.0.0.1:8080/bob"),
            (vec!["https://127.0.0.1:8080".to_string()], "bob".into())
        );
    }

    #[test]
    fn item_paths_cannot_leave_the_store_or_be_options() {
        assert!(safe_path("web/forum"));
        for bad in ["", "-c", "/etc/passwd", "web/../x", "web//x", "./x"] {
            assert!(!safe_path(bad), "{bad}");
        }
    }
}
