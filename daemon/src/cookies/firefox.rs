//! Firefox `cookies.sqlite` (`moz_cookies`).
//!
//! Owns: checking `user_version` (which also decides the expiry unit: milliseconds from schema
//! 16, seconds before), counting cookies per host, mapping `sameSite` (0 None, 1 Lax, 2 Strict,
//! 256 unset), and reading `originAttributes`: containers and private windows are left out,
//! partition keys become CDP partition keys.
//!
//! Firefox stores values in the clear; nothing here decrypts. Firefox does not write session
//! cookies to this file, so `skipped_session` stays 0 for Firefox unless a row has no expiry.

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::Connection;

use super::error::CookieError;
use super::row;
use super::{CookieParam, CookieSource, PartitionKey, ReadOutcome, SameSite};

/// The newest `user_version` this reader knows (Firefox ESR 153 writes 17).
pub(crate) const KNOWN_VERSION: i64 = 17;
/// From this schema on, `expiry` is in milliseconds.
const EXPIRY_MS_VERSION: i64 = 16;

fn user_version(conn: &Connection, source: &CookieSource) -> Result<i64, CookieError> {
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| row::int(r, 0, 0))
        .map_err(|e| CookieError::from_sqlite(&source.id, &source.path, e))?;
    if version > KNOWN_VERSION {
        return Err(CookieError::FutureSchema {
            source_id: source.id.clone(),
            found: version,
            known: KNOWN_VERSION,
        });
    }
    Ok(version)
}

/// Cookies per host of the default container (see the module docs of `cookies`).
pub(crate) fn scope_counts(
    conn: &Connection,
    source: &CookieSource,
) -> Result<Vec<(String, usize)>, CookieError> {
    user_version(conn, source)?;
    let sql_err = |e| CookieError::from_sqlite(&source.id, &source.path, e);
    let mut stmt = conn
        .prepare("SELECT host, originAttributes, COUNT(*) FROM moz_cookies GROUP BY host, originAttributes")
        .map_err(sql_err)?;
    let rows = stmt
        .query_map([], |r| {
            Ok((row::text(r, 0)?, row::text(r, 1)?, row::int(r, 2, 0)?))
        })
        .map_err(sql_err)?;
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for r in rows {
        let (host, attrs, n) = r.map_err(sql_err)?;
        if OriginAttributes::parse(&attrs).is_default_jar() {
            *counts.entry(host).or_default() += usize::try_from(n).unwrap_or(0);
        }
    }
    Ok(counts.into_iter().collect())
}

/// Reads the default-container cookies of `scopes`.
pub(crate) fn read(
    conn: &Connection,
    source: &CookieSource,
    scopes: &BTreeSet<&str>,
    now_secs: f64,
) -> Result<ReadOutcome, CookieError> {
    let version = user_version(conn, source)?;
    let sql_err = |e| CookieError::from_sqlite(&source.id, &source.path, e);
    let mut stmt = conn
        .prepare(
            "SELECT host, name, value, path, expiry, isSecure, isHttpOnly, sameSite, \
             originAttributes FROM moz_cookies WHERE host = ?1",
        )
        .map_err(sql_err)?;
    let mut out = ReadOutcome::default();
    for scope in scopes {
        let mut rows = stmt.query([scope]).map_err(sql_err)?;
        while let Some(r) = rows.next().map_err(sql_err)? {
            let attrs = OriginAttributes::parse(&row::text(r, 8).map_err(sql_err)?);
            if !attrs.is_default_jar() {
                continue;
            }
            let host = row::text(r, 0).map_err(sql_err)?;
            let name = row::text(r, 1).map_err(sql_err)?;
            let expiry = row::int(r, 4, 0).map_err(sql_err)?;
            if expiry <= 0 {
                out.skipped_session += 1;
                continue;
            }
            let expires = if version >= EXPIRY_MS_VERSION {
                expiry as f64 / 1000.0
            } else {
                expiry as f64
            };
            if expires <= now_secs {
                out.skipped_expired += 1;
                continue;
            }
            let same_site = match row::int(r, 7, 256).map_err(sql_err)? {
                0 => Some(SameSite::None),
                1 => Some(SameSite::Lax),
                2 => Some(SameSite::Strict),
                _ => None,
            };
            let mut cookie = CookieParam::new(
                &host,
                name.clone(),
                row::text(r, 2).map_err(sql_err)?,
                row::text(r, 3).map_err(sql_err)?,
                row::int(r, 5, 0).map_err(sql_err)? != 0,
                row::int(r, 6, 0).map_err(sql_err)? != 0,
                same_site,
                expires,
            );
            if let Some(raw) = attrs.partition_key {
                let key = parse_partition_key(&raw).ok_or_else(|| CookieError::Corrupt {
                    source_id: source.id.clone(),
                    path: source.path.clone(),
                    detail: format!("cookie {name:?} on {host} has a malformed partitionKey"),
                })?;
                cookie.partition_key = Some(key);
            }
            out.cookies.push(cookie);
        }
    }
    Ok(out)
}

/// The parts of a Firefox `originAttributes` suffix (`^userContextId=2&partitionKey=…`) that
/// matter for import.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct OriginAttributes {
    /// Container id; 0 is the default container.
    pub(crate) user_context_id: u64,
    /// Non-zero for private windows.
    pub(crate) private_browsing_id: u64,
    /// Percent-decoded `partitionKey`, e.g. `(https,example.com)`.
    pub(crate) partition_key: Option<String>,
}

impl OriginAttributes {
    pub(crate) fn parse(suffix: &str) -> Self {
        let mut attrs = OriginAttributes::default();
        let body = suffix.strip_prefix('^').unwrap_or(suffix);
        for pair in body.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = percent_decode(value);
            match key {
                // An unparsable id is treated as a non-default container: never imported.
                "userContextId" => attrs.user_context_id = value.parse().unwrap_or(u64::MAX),
                "privateBrowsingId" => {
                    attrs.private_browsing_id = value.parse().unwrap_or(u64::MAX)
                }
                "partitionKey" if !value.is_empty() => attrs.partition_key = Some(value),
                // firstPartyDomain, geckoViewSessionContextId, …: no effect on import.
                _ => {}
            }
        }
        attrs
    }

    /// The jar an import reads from: the default container of normal windows.
    pub(crate) fn is_default_jar(&self) -> bool {
        self.user_context_id == 0 && self.private_browsing_id == 0
    }
}

/// `(scheme,host[,port][,f])` → `scheme://host[:port]`, with `f` meaning a cross-site ancestor.
pub(crate) fn parse_partition_key(raw: &str) -> Option<PartitionKey> {
    let inner = raw.strip_prefix('(')?.strip_suffix(')')?;
    let mut parts = inner.split(',');
    let scheme = parts.next().filter(|s| !s.is_empty())?;
    let host = parts.next().filter(|s| !s.is_empty())?;
    let mut port = None;
    let mut cross_site = false;
    for extra in parts {
        match extra {
            "f" => cross_site = true,
            p => port = Some(p.parse::<u16>().ok()?),
        }
    }
    let top_level_site = match port {
        Some(p) => format!("{scheme}://{host}:{p}"),
        None => format!("{scheme}://{host}"),
    };
    Some(PartitionKey {
        top_level_site,
        has_cross_site_ancestor: cross_site,
    })
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origin_attributes() {
        assert!(OriginAttributes::parse("").is_default_jar());
        assert!(!OriginAttributes::parse("^userContextId=2").is_default_jar());
        assert!(!OriginAttributes::parse("^privateBrowsingId=1").is_default_jar());
        let a = OriginAttributes::parse(
            "^firstPartyDomain=x.com&partitionKey=%28https%2Cexample.com%29",
        );
        assert!(a.is_default_jar());
        assert_eq!(a.partition_key.as_deref(), Some("(https,example.com)"));
    }

    #[test]
    fn partition_keys() {
        let k = parse_partition_key("(https,example.com)").unwrap();
        assert_eq!(k.top_level_site, "https://example.com");
        assert!(!k.has_cross_site_ancestor);
        let k = parse_partition_key("(http,localhost,8080,f)").unwrap();
        assert_eq!(k.top_level_site, "http://localhost:8080");
        assert!(k.has_cross_site_ancestor);
        assert!(parse_partition_key("https,example.com").is_none());
        assert!(parse_partition_key("(https,example.com,notaport)").is_none());
        assert_eq!(percent_decode("%28a%2Cb%29%"), "(a,b)%");
    }
}
