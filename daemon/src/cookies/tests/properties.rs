//! Property tests: no bytes in a cookie store make the readers or the decryption panic, and
//! every refusal is a [`CookieError`] that names the source (so a person knows which browser
//! profile it was). Files of arbitrary bytes, real databases with bytes overwritten, rows with
//! arbitrary values, and arbitrary ciphertexts.
//!
//! `v11` values are left out of the generated input: they make the reader ask the desktop
//! keyring, which is tested against a real one in `v11.rs`.

use std::time::SystemTime;

use proptest::prelude::*;
use rusqlite::{params, Connection};

use super::faults::{chromium_db, chromium_time, firefox_db, v10};
use crate::cookies::crypto::ChromiumKeys;
use crate::cookies::crypto::{cbc_decrypt, derive_key, gcm_decrypt, strip_host_prefix};
use crate::cookies::{list_scopes, read_cookies, Browser, CookieError, CookieSource};

/// Lists and reads `source`; panics only through the assertions: a result is `Ok`, or an
/// error whose text starts with the source id.
fn read_all(source: &CookieSource) -> Result<(), TestCaseError> {
    let check = |error: CookieError| -> Result<(), TestCaseError> {
        let text = error.to_string();
        prop_assert!(
            text.starts_with(&format!("{}: ", source.id)),
            "error does not name the source: {text}"
        );
        Ok(())
    };
    let scopes: Vec<String> = match list_scopes(source) {
        Ok(scopes) => scopes.into_iter().map(|s| s.scope).collect(),
        Err(error) => {
            check(error)?;
            vec!["example.test".to_string()]
        }
    };
    if let Err(error) = read_cookies(source, &scopes, SystemTime::now()) {
        check(error)?;
    }
    Ok(())
}

/// File contents: pure noise, or noise behind a valid SQLite header (so SQLite reads on into
/// the page structure).
fn file_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..4096),
        prop::collection::vec(any::<u8>(), 0..8192).prop_map(|tail| {
            let mut bytes = b"SQLite format 3\0".to_vec();
            bytes.extend(tail);
            bytes
        }),
    ]
}

/// A value column: v10 with an arbitrary body, a genuine v10 value, or arbitrary bytes
/// (anything but a `v11` prefix).
fn encrypted() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..80).prop_map(|body| [b"v10".to_vec(), body].concat()),
        (".{0,20}", any::<bool>()).prop_map(|(value, prefixed)| v10("p.test", &value, prefixed)),
        prop::collection::vec(any::<u8>(), 0..40)
            .prop_filter("no keyring lookups", |b| !b.starts_with(b"v11")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_file_of_arbitrary_bytes_is_a_clear_error(bytes in file_bytes(), firefox in any::<bool>()) {
        let (_dir, source) = if firefox { firefox_db(17) } else { chromium_db(24) };
        std::fs::write(&source.path, &bytes).unwrap();
        read_all(&source)?;
    }

    #[test]
    fn a_real_database_with_bytes_overwritten_never_panics(
        damage in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..48),
        firefox in any::<bool>(),
    ) {
        let (_dir, source) = if firefox { firefox_db(17) } else { chromium_db(24) };
        let conn = Connection::open(&source.path).unwrap();
        for i in 0..40 {
            let host = format!("h{}.test", i % 7);
            if firefox {
                conn.execute(
                    "INSERT INTO moz_cookies (originAttributes, name, value, host, path, expiry, isSecure, isHttpOnly, sameSite)
                     VALUES ('', ?1, 'v', ?2, '/', 4102444800000, 1, 0, 1)",
                    params![format!("n{i}"), host],
                )
                .unwrap();
            } else {
                conn.execute(
                    "INSERT INTO cookies VALUES (0, ?1, '', ?2, '', ?3, '/', ?4, 1, 0, 0, 1, 1, 1, -1, 2, 443, 0, 0, 0)",
                    params![host, format!("n{i}"), v10(&host, "value", true), chromium_time(3600)],
                )
                .unwrap();
            }
        }
        drop(conn);
        let mut bytes = std::fs::read(&source.path).unwrap();
        for (at, byte) in damage {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        std::fs::write(&source.path, &bytes).unwrap();
        read_all(&source)?;
    }

    #[test]
    fn chromium_rows_with_arbitrary_values_never_panic(
        version in 0i64..30,
        rows in prop::collection::vec(
            (".{0,12}", ".{0,8}", encrypted(), any::<i64>(), any::<i64>(), any::<i64>(), any::<i64>()),
            1..6,
        ),
    ) {
        let (_dir, source) = chromium_db(version);
        let conn = Connection::open(&source.path).unwrap();
        for (host, name, enc, expires, samesite, port, persistent) in rows {
            conn.execute(
                "INSERT INTO cookies VALUES (0, ?1, '', ?2, '', ?3, '/', ?4, 1, 0, 0, ?5, ?5, 1, ?6, 2, ?7, 0, 0, 0)",
                params![host, name, enc, expires, persistent, samesite, port],
            )
            .unwrap();
        }
        drop(conn);
        read_all(&source)?;
    }

    #[test]
    fn firefox_rows_with_arbitrary_values_never_panic(
        user_version in 0i64..20,
        rows in prop::collection::vec(
            (".{0,40}", ".{0,12}", ".{0,8}", ".{0,8}", any::<i64>(), any::<i64>(), any::<i64>()),
            1..6,
        ),
    ) {
        let (_dir, source) = firefox_db(user_version);
        let conn = Connection::open(&source.path).unwrap();
        for (origin, host, name, path, expiry, same_site, secure) in rows {
            conn.execute(
                "INSERT INTO moz_cookies (originAttributes, name, value, host, path, expiry, isSecure, isHttpOnly, sameSite)
                 VALUES (?1, ?2, 'v', ?3, ?4, ?5, ?6, 0, ?7)",
                params![origin, name, host, path, expiry, secure, same_site],
            )
            .unwrap();
        }
        drop(conn);
        read_all(&source)?;
    }

    #[test]
    fn decrypting_arbitrary_bytes_is_an_error_naming_the_source(
        encrypted in encrypted(),
        version in 0i64..30,
        host in ".{0,16}",
    ) {
        let keys = ChromiumKeys::new("chromium:Test", Browser::Chromium, version);
        if let Err(error) = keys.decrypt(&host, "name", &encrypted) {
            let text = error.to_string();
            prop_assert!(text.starts_with("chromium:Test: "), "{text}");
        }
    }

    #[test]
    fn the_ciphers_take_any_input(
        key16 in any::<[u8; 16]>(),
        key32 in any::<[u8; 32]>(),
        data in prop::collection::vec(any::<u8>(), 0..96),
        version in any::<i64>(),
        host in ".{0,16}",
    ) {
        let _ = cbc_decrypt(&key16, &data);
        let _ = gcm_decrypt(&key32, &data);
        let _ = strip_host_prefix(data.clone(), &host, version);
        let _ = cbc_decrypt(&derive_key(&data, 1), &data);
    }
}
