//! Installing read cookies into a running browser with CDP `Storage.setCookies`.
//!
//! Owns: batching, and finding out which cookie Chrome refused when a batch fails, so the
//! error can name it (by name and scope, never by value).
//!
//! Must not: log, or put into an error, any cookie value; retry a cookie Chrome refused.

use serde_json::json;

use super::{ImportError, Refusal};
use crate::cdp::{CdpConnection, CdpError};
use crate::cookies::CookieParam;

/// Cookies per `Storage.setCookies` call: big enough to be quick, small enough that one
/// refused cookie costs only a few single retries.
pub(crate) const BATCH: usize = 50;

/// Installs `cookies` browser-wide. Every cookie Chrome accepts goes in; when any is refused
/// the result is [`ImportError::Refused`] naming each refused cookie and counting the rest.
/// A lost connection or a timeout stops at once with [`ImportError::Install`], saying how many
/// went in before.
pub(crate) async fn install(
    cdp: &CdpConnection,
    source_id: &str,
    cookies: &[CookieParam],
) -> Result<usize, ImportError> {
    let total = cookies.len();
    let mut installed = 0;
    let mut refused = Vec::new();
    let failed = |installed, error: CdpError| ImportError::Install {
        source_id: source_id.to_owned(),
        installed,
        total,
        error,
    };
    for batch in cookies.chunks(BATCH) {
        match set_cookies(cdp, batch).await {
            Ok(()) => installed += batch.len(),
            Err(CdpError::Protocol { .. }) => {
                // Chrome refuses a whole batch for one bad cookie: find out which, one by one.
                for cookie in batch {
                    match set_cookies(cdp, std::slice::from_ref(cookie)).await {
                        Ok(()) => installed += 1,
                        Err(CdpError::Protocol { message, .. }) => refused.push(Refusal {
                            name: cookie.name.clone(),
                            scope: scope_of(cookie),
                            reason: message,
                        }),
                        Err(error) => return Err(failed(installed, error)),
                    }
                }
            }
            Err(error) => return Err(failed(installed, error)),
        }
    }
    if refused.is_empty() {
        Ok(installed)
    } else {
        Err(ImportError::Refused {
            source_id: source_id.to_owned(),
            refused,
            installed,
            total,
        })
    }
}

async fn set_cookies(cdp: &CdpConnection, cookies: &[CookieParam]) -> Result<(), CdpError> {
    cdp.call("Storage.setCookies", json!({ "cookies": cookies }))
        .await
        .map(drop)
}

/// The scope a cookie was read from: its domain, or the host of its URL (host-only cookies).
fn scope_of(cookie: &CookieParam) -> String {
    if let Some(domain) = &cookie.domain {
        return domain.clone();
    }
    cookie
        .url
        .as_deref()
        .and_then(|u| u.split_once("://"))
        .map(|(_, rest)| rest.split('/').next().unwrap_or(rest).to_owned())
        .unwrap_or_default()
}
