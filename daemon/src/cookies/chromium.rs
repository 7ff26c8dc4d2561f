//! The Chromium-family `Cookies` database (Chrome, Chromium, Edge, Brave).
//!
//! Owns: checking `meta.version`, counting cookies per `host_key` (no value column is ever
//! selected for that), and turning rows of chosen scopes into [`CookieParam`]s — session and
//! expired rows are counted and dropped *before* anything is decrypted.
//!
//! Must not: decrypt while listing; guess whether a value carries the SHA-256 host prefix (the
//! version decides, see `crypto.rs`).

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::Connection;

use super::crypto::ChromiumKeys;
use super::error::CookieError;
use super::row;
use super::{CookieParam, CookieSource, PartitionKey, ReadOutcome, SameSite, SourceScheme};

/// The newest `meta.version` this reader knows (Chromium 156 writes 24).
pub(crate) const KNOWN_VERSION: i64 = 24;
/// Seconds between 1601-01-01 (Chromium's epoch) and 1970-01-01.
const WINDOWS_EPOCH_OFFSET: f64 = 11_644_473_600.0;

/// `meta.version`, refusing versions newer than [`KNOWN_VERSION`].
pub(crate) fn meta_version(conn: &Connection, source: &CookieSource) -> Result<i64, CookieError> {
    let raw: String = conn
        .query_row("SELECT value FROM meta WHERE key = 'version'", [], |r| {
            row::text(r, 0)
        })
        .map_err(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => CookieError::Corrupt {
                source_id: source.id.clone(),
                path: source.path.clone(),
                detail: "no meta version: not a Chromium cookie database".into(),
            },
            e => CookieError::from_sqlite(&source.id, &source.path, e),
        })?;
    let version: i64 = raw.trim().parse().map_err(|_| CookieError::Corrupt {
        source_id: source.id.clone(),
        path: source.path.clone(),
        detail: format!("meta version {raw:?} is not a number"),
    })?;
    if version > KNOWN_VERSION {
        return Err(CookieError::FutureSchema {
            source_id: source.id.clone(),
            found: version,
            known: KNOWN_VERSION,
        });
    }
    Ok(version)
}

/// Cookies per `host_key`: every stored row, session and expired included.
pub(crate) fn scope_counts(
    conn: &Connection,
    source: &CookieSource,
) -> Result<Vec<(String, usize)>, CookieError> {
    meta_version(conn, source)?;
    let sql_err = |e| CookieError::from_sqlite(&source.id, &source.path, e);
    let mut stmt = conn
        .prepare("SELECT host_key, COUNT(*) FROM cookies GROUP BY host_key")
        .map_err(sql_err)?;
    let rows = stmt
        .query_map([], |r| Ok((row::text(r, 0)?, row::int(r, 1, 0)?)))
        .map_err(sql_err)?;
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for r in rows {
        let (host, n) = r.map_err(sql_err)?;
        *counts.entry(host).or_default() += usize::try_from(n).unwrap_or(0);
    }
    Ok(counts.into_iter().collect())
}

/// The columns read for import, with the name used by older schemas and a default for
/// schemas that predate the column.
const COLUMNS: [(&str, &str, &str); 15] = [
    ("host_key", "host_key", "''"),
    ("name", "name", "''"),
    ("value", "value", "''"),
    ("encrypted_value", "encrypted_value", "X''"),
    ("path", "path", "'/'"),
    ("expires_utc", "expires_utc", "0"),
    ("is_secure", "secure", "0"),
    ("is_httponly", "httponly", "0"),
    ("samesite", "samesite", "-1"),
    ("has_expires", "has_expires", "1"),
    ("is_persistent", "persistent", "1"),
    ("source_scheme", "source_scheme", "0"),
    ("source_port", "source_port", "-1"),
    ("top_frame_site_key", "top_frame_site_key", "''"),
    ("has_cross_site_ancestor", "has_cross_site_ancestor", "0"),
];

fn select_list(conn: &Connection) -> rusqlite::Result<String> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info('cookies')")?;
    let present: BTreeSet<String> = stmt
        .query_map([], |r| row::text(r, 0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(COLUMNS
        .iter()
        .map(|(new, old, default)| {
            if present.contains(*new) {
                format!("\"{new}\"")
            } else if present.contains(*old) {
                format!("\"{old}\"")
            } else {
                (*default).to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(", "))
}

/// Reads the cookies of `scopes`, decrypting only those that will be imported.
pub(crate) fn read(
    conn: &Connection,
    source: &CookieSource,
    scopes: &BTreeSet<&str>,
    now_secs: f64,
) -> Result<ReadOutcome, CookieError> {
    let version = meta_version(conn, source)?;
    let keys = ChromiumKeys::new(&source.id, source.browser, version);
    let sql_err = |e| CookieError::from_sqlite(&source.id, &source.path, e);
    let sql = format!(
        "SELECT {} FROM cookies WHERE host_key = ?1",
        select_list(conn).map_err(sql_err)?
    );
    let mut stmt = conn.prepare(&sql).map_err(sql_err)?;
    let mut out = ReadOutcome::default();
    for scope in scopes {
        let mut rows = stmt.query([scope]).map_err(sql_err)?;
        while let Some(r) = rows.next().map_err(sql_err)? {
            let host = row::text(r, 0).map_err(sql_err)?;
            let has_expires = row::int(r, 9, 1).map_err(sql_err)?;
            let persistent = row::int(r, 10, 1).map_err(sql_err)?;
            if has_expires == 0 || persistent == 0 {
                out.skipped_session += 1;
                continue;
            }
            let expires_utc = row::int(r, 5, 0).map_err(sql_err)?;
            let expires = expires_utc as f64 / 1e6 - WINDOWS_EPOCH_OFFSET;
            if expires <= now_secs {
                out.skipped_expired += 1;
                continue;
            }
            let name = row::text(r, 1).map_err(sql_err)?;
            let plain = row::bytes(r, 2).map_err(sql_err)?;
            let encrypted = row::bytes(r, 3).map_err(sql_err)?;
            let value_bytes = if !plain.is_empty() || encrypted.is_empty() {
                plain
            } else {
                keys.decrypt(&host, &name, &encrypted)?
            };
            let value = String::from_utf8(value_bytes).map_err(|_| CookieError::Decrypt {
                source_id: source.id.clone(),
                scope: host.clone(),
                cookie_name: name.clone(),
                detail: "the decrypted value is not text",
            })?;
            let same_site = match row::int(r, 8, -1).map_err(sql_err)? {
                0 => Some(SameSite::None),
                1 => Some(SameSite::Lax),
                2 => Some(SameSite::Strict),
                _ => None,
            };
            let mut cookie = CookieParam::new(
                &host,
                name,
                value,
                row::text(r, 4).map_err(sql_err)?,
                row::int(r, 6, 0).map_err(sql_err)? != 0,
                row::int(r, 7, 0).map_err(sql_err)? != 0,
                same_site,
                expires,
            );
            cookie.source_scheme = match row::int(r, 11, 0).map_err(sql_err)? {
                1 => Some(SourceScheme::NonSecure),
                2 => Some(SourceScheme::Secure),
                _ => None,
            };
            cookie.source_port = u16::try_from(row::int(r, 12, -1).map_err(sql_err)?)
                .ok()
                .filter(|p| *p > 0);
            let top_frame = row::text(r, 13).map_err(sql_err)?;
            if !top_frame.is_empty() {
                cookie.partition_key = Some(PartitionKey {
                    top_level_site: top_frame,
                    has_cross_site_ancestor: row::int(r, 14, 0).map_err(sql_err)? != 0,
                });
            }
            out.cookies.push(cookie);
        }
    }
    Ok(out)
}
