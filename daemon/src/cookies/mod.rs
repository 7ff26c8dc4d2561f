//! Reading cookies out of the user's own browser profiles.
//!
//! Owns: finding the cookie stores of Chrome, Chromium, Edge, Brave and Firefox profiles
//! ([`discover_sources`]), listing their cookie scopes without touching a value
//! ([`list_scopes`]), and reading the cookies of chosen scopes, decrypted, in the shape of CDP
//! `Storage.setCookies` `cookies[]` items ([`read_cookies`]).
//!
//! Must not: open any file of a profile other than its cookie database and `Local State` /
//! `profiles.ini` (never passwords, history, bookmarks, autofill); open or lock a live
//! database (every read goes through a private copy, see `snapshot`); log, print or put into
//! an error any cookie value; install cookies anywhere (that is the importer's job).
//!
//! Files, one job each:
//! - `mod.rs` — this API and its types.
//! - `error.rs` — [`CookieError`].
//! - `sources.rs` — profile discovery per OS.
//! - `snapshot.rs` — private 0700 copies of a database and its journal/WAL, deleted on drop.
//! - `chromium.rs` — the Chromium-family `Cookies` schema.
//! - `firefox.rs` — Firefox `cookies.sqlite` and `originAttributes`.
//! - `crypto.rs` — `v10`/`v11`/macOS/Windows value decryption and keyring access.
//! - `scopes.rs` — folding scopes under their parent scope.
//! - `row.rs` — lenient SQLite column readers.
//!
//! All functions here block (file copies, SQLite, possibly a keyring round trip): call them
//! from `tokio::task::spawn_blocking`.
//!
//! Decisions, as the API reports them:
//! - A *scope* is a cookie's host exactly as stored (`.github.com`, `gist.github.com`).
//! - [`ScopeCount::count`] counts every cookie an import of that scope examines: persistent,
//!   session and expired alike (an import reports the latter two as skipped). Firefox cookies
//!   of containers (`userContextId` ≠ 0) and private windows are never examined, so never
//!   counted: only the default container is imported.
//! - [`ScopeCount::parent`] is printed as the parent's scope name exactly as stored (with its
//!   leading dot if it has one), or `null`; see `scopes.rs` for how it is chosen.
//! - A live database that another process holds locked (a running browser, an open exclusive
//!   transaction) still reads: the copy shows its last committed state. Only where the OS
//!   refuses the copy itself (Windows sharing violations) is it [`CookieError::Locked`].
//! - A cookie that does not decrypt fails the whole read with [`CookieError::Decrypt`] naming
//!   the cookie (never its value): nothing is half-imported silently.
//! - A stored `SameSite=None` cookie without `Secure` goes over without `sameSite` (Chrome
//!   refuses that combination; the browser treated it as unset anyway).
//! - Linux keyrings: `v11` keys come from the Secret Service (GNOME Keyring, KeePassXC, KWallet
//!   6 with its Secret Service API); a keyring that is absent, locked or silent for 15 s is
//!   [`CookieError::KeyringUnavailable`]. The lookup runs on its own thread, so callers inside
//!   a tokio runtime are safe, but it blocks: use `spawn_blocking`.

mod chromium;
mod crypto;
mod error;
mod firefox;
mod row;
mod scopes;
mod snapshot;
mod sources;

#[cfg(test)]
pub(crate) mod tests;

use std::collections::BTreeSet;
use std::fmt;
use std::path::PathBuf;
use std::time::SystemTime;

use serde::Serialize;

pub use error::CookieError;
pub use sources::{discover_sources, Discovery, Platform};

/// A browser family whose cookies can be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Browser {
    /// Google Chrome.
    Chrome,
    /// Chromium (e.g. Debian's `chromium`).
    Chromium,
    /// Microsoft Edge.
    Edge,
    /// Brave.
    Brave,
    /// Mozilla Firefox (and Firefox ESR).
    Firefox,
}

impl Browser {
    /// The prefix of source ids: `chrome`, `chromium`, `edge`, `brave`, `firefox`.
    pub fn id_prefix(self) -> &'static str {
        match self {
            Browser::Chrome => "chrome",
            Browser::Chromium => "chromium",
            Browser::Edge => "edge",
            Browser::Brave => "brave",
            Browser::Firefox => "firefox",
        }
    }

    /// The name a person knows the browser by.
    pub fn human_name(self) -> &'static str {
        match self {
            Browser::Chrome => "Google Chrome",
            Browser::Chromium => "Chromium",
            Browser::Edge => "Microsoft Edge",
            Browser::Brave => "Brave",
            Browser::Firefox => "Firefox",
        }
    }

    /// Linux: the `application` attribute values under which the browser keeps its "Safe
    /// Storage" password in the Secret Service, tried in order. Chrome uses `chrome`, Chromium
    /// `chromium`, Brave `brave` (Brave patches the name in); Edge is tried as
    /// `microsoft-edge`, then as the Chromium default `chromium` (not verified on a real Edge).
    pub fn secret_service_applications(self) -> &'static [&'static str] {
        match self {
            Browser::Chrome => &["chrome"],
            Browser::Chromium => &["chromium"],
            Browser::Brave => &["brave", "chromium"],
            Browser::Edge => &["microsoft-edge", "chromium"],
            Browser::Firefox => &[],
        }
    }

    /// macOS: the Keychain generic-password item (service, account) holding the password.
    #[cfg(target_os = "macos")]
    pub fn keychain_item(self) -> (&'static str, &'static str) {
        match self {
            Browser::Chrome => ("Chrome Safe Storage", "Chrome"),
            Browser::Chromium => ("Chromium Safe Storage", "Chromium"),
            Browser::Edge => ("Microsoft Edge Safe Storage", "Microsoft Edge"),
            Browser::Brave => ("Brave Safe Storage", "Brave"),
            Browser::Firefox => ("", ""),
        }
    }
}

impl fmt::Display for Browser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id_prefix())
    }
}

/// One browser profile's cookie store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CookieSource {
    /// `chrome:Default`, `chromium:Profile 1`, `firefox:<profile dir name>`.
    pub id: String,
    /// The browser family.
    pub browser: Browser,
    /// The profile directory's name (`Default`, `Profile 1`, `abcd1234.default-release`).
    pub profile: String,
    /// The name the person gave the profile (`Local State` / `profiles.ini`).
    pub name: String,
    /// The cookie database (`…/Cookies`, `…/Network/Cookies`, `…/cookies.sqlite`). Not part of
    /// the API's JSON.
    #[serde(skip)]
    pub path: PathBuf,
}

/// One cookie scope of a source, with the number of cookies in it. Never carries a value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScopeCount {
    /// The cookie host exactly as stored, e.g. `.github.com` or `gist.github.com`.
    pub scope: String,
    /// The nearest other scope of the same jar this one sits beneath, by its stored name.
    pub parent: Option<String>,
    /// How many cookies an import of this scope examines (see the module docs).
    pub count: usize,
}

/// CDP `Network.CookieSameSite`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SameSite {
    /// `SameSite=Strict`.
    Strict,
    /// `SameSite=Lax`.
    Lax,
    /// `SameSite=None`.
    None,
}

/// CDP `Network.CookieSourceScheme`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SourceScheme {
    /// Set over a secure scheme.
    Secure,
    /// Set over a non-secure scheme.
    NonSecure,
}

/// CDP `Network.CookiePartitionKey`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PartitionKey {
    /// The top-level site, e.g. `https://example.com`.
    pub top_level_site: String,
    /// Whether the cookie was set in a frame with a cross-site ancestor.
    pub has_cross_site_ancestor: bool,
}

/// One cookie as a CDP `Storage.setCookies` `cookies[]` item (`Network.CookieParam`).
///
/// Exactly one of `url` (host-only cookies: `http(s)://host` + path) and `domain` (domain
/// cookies, leading dot kept) is set. `Debug` never prints the value.
#[derive(Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CookieParam {
    /// Cookie name.
    pub name: String,
    /// Cookie value, decrypted. Secret: never log it.
    pub value: String,
    /// For host-only cookies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// For domain cookies, e.g. `.github.com`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Cookie path.
    pub path: String,
    /// `Secure` attribute.
    pub secure: bool,
    /// `HttpOnly` attribute.
    pub http_only: bool,
    /// Omitted when the cookie had none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub same_site: Option<SameSite>,
    /// Expiry in seconds since the Unix epoch (session cookies are never returned).
    pub expires: f64,
    /// CHIPS / state-partitioning key, when the cookie is partitioned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition_key: Option<PartitionKey>,
    /// Chromium only, when recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_scheme: Option<SourceScheme>,
    /// Chromium only, when recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_port: Option<u16>,
}

impl fmt::Debug for CookieParam {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CookieParam")
            .field("name", &self.name)
            .field(
                "value",
                &format_args!("<redacted {} bytes>", self.value.len()),
            )
            .field("url", &self.url)
            .field("domain", &self.domain)
            .field("path", &self.path)
            .field("secure", &self.secure)
            .field("http_only", &self.http_only)
            .field("same_site", &self.same_site)
            .field("expires", &self.expires)
            .field("partition_key", &self.partition_key)
            .field("source_scheme", &self.source_scheme)
            .field("source_port", &self.source_port)
            .finish()
    }
}

impl CookieParam {
    /// Builds the CDP item for a cookie stored under `host` (the scope): a leading dot means a
    /// domain cookie (`domain`), none means host-only (`url`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        host: &str,
        name: String,
        value: String,
        path: String,
        secure: bool,
        http_only: bool,
        same_site: Option<SameSite>,
        expires: f64,
    ) -> Self {
        let path = if path.starts_with('/') {
            path
        } else {
            "/".to_owned()
        };
        let (url, domain) = if host.starts_with('.') {
            (None, Some(host.to_owned()))
        } else {
            let scheme = if secure { "https" } else { "http" };
            (Some(format!("{scheme}://{host}{path}")), None)
        };
        // Chrome refuses `SameSite=None` without `Secure`; such a stored cookie behaves as if
        // it had no SameSite attribute, so it goes over without one.
        let same_site = match same_site {
            Some(SameSite::None) if !secure => None,
            other => other,
        };
        CookieParam {
            name,
            value,
            url,
            domain,
            path,
            secure,
            http_only,
            same_site,
            expires,
            partition_key: None,
            source_scheme: None,
            source_port: None,
        }
    }
}

/// What [`read_cookies`] found in the requested scopes.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ReadOutcome {
    /// The cookies to install, values decrypted.
    pub cookies: Vec<CookieParam>,
    /// Session cookies left out (meaningless outside their browser session).
    pub skipped_session: usize,
    /// Cookies already expired at `now`, left out.
    pub skipped_expired: usize,
}

/// Lists the scopes of `source` with their cookie counts, folded under parent scopes, busiest
/// first (ties by name). Never reads a value column, so it never needs a keyring.
pub fn list_scopes(source: &CookieSource) -> Result<Vec<ScopeCount>, CookieError> {
    let counts = snapshot::with_snapshot(&source.id, &source.path, |conn| match source.browser {
        Browser::Firefox => firefox::scope_counts(conn, source),
        _ => chromium::scope_counts(conn, source),
    })?;
    tracing::debug!(source = %source.id, scopes = counts.len(), "cookies.scopes_listed");
    Ok(scopes::fold(counts))
}

/// Reads the cookies whose scope (stored host) is exactly one of `scopes`, decrypted, leaving
/// out session cookies and cookies expired at `now`. Any requested scope that holds no cookie
/// in the source fails the whole call with [`CookieError::UnknownScopes`] before anything is
/// decrypted.
pub fn read_cookies(
    source: &CookieSource,
    scopes: &[String],
    now: SystemTime,
) -> Result<ReadOutcome, CookieError> {
    let wanted: BTreeSet<&str> = scopes.iter().map(String::as_str).collect();
    let now_secs = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    let outcome = snapshot::with_snapshot(&source.id, &source.path, |conn| {
        let present: BTreeSet<String> = match source.browser {
            Browser::Firefox => firefox::scope_counts(conn, source)?,
            _ => chromium::scope_counts(conn, source)?,
        }
        .into_iter()
        .map(|(scope, _)| scope)
        .collect();
        let unknown: Vec<String> = wanted
            .iter()
            .filter(|s| !present.contains(**s))
            .map(|s| (*s).to_owned())
            .collect();
        if !unknown.is_empty() {
            return Err(CookieError::UnknownScopes {
                source_id: source.id.clone(),
                scopes: unknown,
            });
        }
        match source.browser {
            Browser::Firefox => firefox::read(conn, source, &wanted, now_secs),
            _ => chromium::read(conn, source, &wanted, now_secs),
        }
    })?;
    tracing::debug!(
        source = %source.id,
        scopes = wanted.len(),
        cookies = outcome.cookies.len(),
        skipped_session = outcome.skipped_session,
        skipped_expired = outcome.skipped_expired,
        "cookies.read"
    );
    Ok(outcome)
}
