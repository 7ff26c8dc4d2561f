//! Lenient readers for SQLite columns.
//!
//! Owns: turning whatever a browser (or a damaged file) put in a column into the Rust type the
//! readers want, without panicking: text from TEXT or BLOB, integers from INTEGER or REAL or
//! numeric TEXT, bytes from BLOB or TEXT, and a default for NULL.

use rusqlite::types::ValueRef;
use rusqlite::Row;

/// Column `i` as text (`""` for NULL; BLOBs decoded lossily).
pub(crate) fn text(row: &Row<'_>, i: usize) -> rusqlite::Result<String> {
    Ok(match row.get_ref(i)? {
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Integer(n) => n.to_string(),
        ValueRef::Real(f) => f.to_string(),
        ValueRef::Null => String::new(),
    })
}

/// Column `i` as raw bytes (empty for NULL).
pub(crate) fn bytes(row: &Row<'_>, i: usize) -> rusqlite::Result<Vec<u8>> {
    Ok(match row.get_ref(i)? {
        ValueRef::Text(t) | ValueRef::Blob(t) => t.to_vec(),
        _ => Vec::new(),
    })
}

/// Column `i` as an integer (`default` for NULL or non-numeric text).
pub(crate) fn int(row: &Row<'_>, i: usize, default: i64) -> rusqlite::Result<i64> {
    Ok(match row.get_ref(i)? {
        ValueRef::Integer(n) => n,
        ValueRef::Real(f) if f.is_finite() => f as i64,
        ValueRef::Text(t) => std::str::from_utf8(t)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(default),
        _ => default,
    })
}
