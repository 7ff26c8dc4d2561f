//! Faults and edge cases on databases built by the test in the browsers' schemas: locked,
//! missing, corrupt, future-schema, unknown scopes, unsupported or undecryptable values, old
//! schemas (no host prefix, expiry in seconds), junk in columns — each a clear error naming
//! the source, never a panic.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use aes::cipher::{block_padding::Pkcs7, BlockEncryptMut, KeyIvInit};
use rusqlite::{params, Connection};
use sha2::{Digest, Sha256};

use crate::cookies::crypto::derive_key;
use crate::cookies::snapshot::Snapshot;
use crate::cookies::{list_scopes, read_cookies, Browser, CookieError, CookieSource};

/// µs since 1601 for "now + secs".
pub(super) fn chromium_time(secs_from_now: i64) -> i64 {
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    (now + secs_from_now + 11_644_473_600) * 1_000_000
}

pub(super) fn v10(host: &str, value: &str, prefixed: bool) -> Vec<u8> {
    let mut plain = if prefixed {
        Sha256::digest(host.as_bytes()).to_vec()
    } else {
        Vec::new()
    };
    plain.extend_from_slice(value.as_bytes());
    let key = derive_key(b"peanuts", 1);
    let mut buf = plain.clone();
    buf.resize(plain.len() + 16, 0);
    let enc = cbc::Encryptor::<aes::Aes128>::new((&key).into(), &[b' '; 16].into());
    let len = enc
        .encrypt_padded_mut::<Pkcs7>(&mut buf, plain.len())
        .unwrap()
        .len();
    let mut out = b"v10".to_vec();
    out.extend_from_slice(&buf[..len]);
    out
}

/// A Chromium `Cookies` file of `version` in a temp dir; returns the dir guard and the source.
pub(super) fn chromium_db(version: i64) -> (tempfile::TempDir, CookieSource) {
    let dir = tempfile::Builder::new()
        .prefix("porthole-cookie-test-")
        .tempdir()
        .unwrap();
    let path = dir.path().join("Cookies");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE meta(key LONGVARCHAR NOT NULL UNIQUE PRIMARY KEY, value LONGVARCHAR);
         CREATE TABLE cookies(creation_utc INTEGER NOT NULL, host_key TEXT NOT NULL,
           top_frame_site_key TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL,
           encrypted_value BLOB NOT NULL, path TEXT NOT NULL, expires_utc INTEGER NOT NULL,
           is_secure INTEGER NOT NULL, is_httponly INTEGER NOT NULL, last_access_utc INTEGER NOT NULL,
           has_expires INTEGER NOT NULL, is_persistent INTEGER NOT NULL, priority INTEGER NOT NULL,
           samesite INTEGER NOT NULL, source_scheme INTEGER NOT NULL, source_port INTEGER NOT NULL,
           last_update_utc INTEGER NOT NULL, source_type INTEGER NOT NULL,
           has_cross_site_ancestor INTEGER NOT NULL);",
    )
    .unwrap();
    conn.execute(
        "INSERT INTO meta VALUES ('version', ?1)",
        [version.to_string()],
    )
    .unwrap();
    let source = CookieSource {
        id: "chromium:Test".into(),
        browser: Browser::Chromium,
        profile: "Test".into(),
        name: "Test".into(),
        path,
    };
    (dir, source)
}

fn insert(
    path: &Path,
    host: &str,
    name: &str,
    value: &str,
    enc: &[u8],
    expires: i64,
    persistent: bool,
) {
    let conn = Connection::open(path).unwrap();
    conn.execute(
        "INSERT INTO cookies VALUES (0, ?1, '', ?2, ?3, ?4, '/', ?5, 1, 0, 0, ?6, ?6, 1, -1, 2, 443, 0, 0, 0)",
        params![host, name, value, enc, expires, persistent as i64],
    )
    .unwrap();
}

fn scopes(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn version_24_strips_the_host_prefix_and_23_does_not() {
    for (version, prefixed) in [(24, true), (23, false)] {
        let (_dir, src) = chromium_db(version);
        insert(
            &src.path,
            ".a.test",
            "k",
            "",
            &v10(".a.test", "val-1", prefixed),
            chromium_time(3600),
            true,
        );
        insert(
            &src.path,
            ".a.test",
            "plain",
            "old-plain",
            b"",
            chromium_time(3600),
            true,
        );
        let out = read_cookies(&src, &scopes(&[".a.test"]), SystemTime::now()).unwrap();
        let mut got: Vec<(String, String)> = out
            .cookies
            .iter()
            .map(|c| (c.name.clone(), c.value.clone()))
            .collect();
        got.sort();
        assert_eq!(
            got,
            [
                ("k".into(), "val-1".into()),
                ("plain".into(), "old-plain".into())
            ],
            "v{version}"
        );
        let c = &out.cookies[0];
        assert_eq!(c.source_port, Some(443));
        assert_eq!(c.source_scheme, Some(crate::cookies::SourceScheme::Secure));
    }
}

#[test]
fn session_and_expired_rows_are_skipped_before_any_decryption() {
    let (_dir, src) = chromium_db(24);
    let junk = b"v10 not a ciphertext at all";
    insert(&src.path, "h.test", "session", "", junk, 0, false);
    insert(
        &src.path,
        "h.test",
        "expired",
        "",
        junk,
        chromium_time(-10),
        true,
    );
    insert(
        &src.path,
        "h.test",
        "ok",
        "",
        &v10("h.test", "fine", true),
        chromium_time(100),
        true,
    );
    let out = read_cookies(&src, &scopes(&["h.test"]), SystemTime::now()).unwrap();
    assert_eq!(
        (out.skipped_session, out.skipped_expired, out.cookies.len()),
        (1, 1, 1)
    );
    // Listing counts every row an import examines, session and expired included.
    assert_eq!(list_scopes(&src).unwrap()[0].count, 3);
}

#[test]
fn listing_never_decrypts_so_v11_v12_v20_rows_list_fine() {
    let (_dir, src) = chromium_db(24);
    for (i, tag) in ["v11", "v12", "v20"].iter().enumerate() {
        let mut enc = tag.as_bytes().to_vec();
        enc.extend([0u8; 48]);
        insert(
            &src.path,
            &format!("s{i}.test"),
            "n",
            "",
            &enc,
            chromium_time(100),
            true,
        );
    }
    let listed = list_scopes(&src).unwrap();
    assert_eq!(listed.len(), 3);
    for scope in ["s1.test", "s2.test"] {
        let err = read_cookies(&src, &scopes(&[scope]), SystemTime::now()).unwrap_err();
        assert!(matches!(err, CookieError::Unsupported { .. }), "{err}");
        assert!(err.to_string().starts_with("chromium:Test: "), "{err}");
    }
}

#[test]
fn a_value_no_key_fits_is_a_decrypt_error_naming_the_cookie_not_the_value() {
    let (_dir, src) = chromium_db(24);
    let mut enc = v10("other.test", "sekrit-value", true); // prefix of another host
    insert(
        &src.path,
        "h.test",
        "sid",
        "",
        &enc,
        chromium_time(100),
        true,
    );
    enc.truncate(10);
    insert(
        &src.path,
        "h2.test",
        "sid2",
        "",
        &enc,
        chromium_time(100),
        true,
    );
    for scope in ["h.test", "h2.test"] {
        let err = read_cookies(&src, &scopes(&[scope]), SystemTime::now()).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, CookieError::Decrypt { .. }), "{msg}");
        assert!(
            msg.contains("chromium:Test") && msg.contains("sid") && !msg.contains("sekrit"),
            "{msg}"
        );
    }
}

#[test]
fn unknown_scopes_are_named_and_nothing_is_read() {
    let (_dir, src) = chromium_db(24);
    insert(
        &src.path,
        ".a.test",
        "k",
        "",
        &v10(".a.test", "v", true),
        chromium_time(100),
        true,
    );
    let err = read_cookies(
        &src,
        &scopes(&[".a.test", "a.test", "zzz.test"]),
        SystemTime::now(),
    )
    .unwrap_err();
    match &err {
        CookieError::UnknownScopes { source_id, scopes } => {
            assert_eq!(source_id, "chromium:Test");
            assert_eq!(scopes, &["a.test".to_owned(), "zzz.test".to_owned()]);
        }
        other => panic!("{other}"),
    }
    assert_eq!(err.code(), "unknown_scopes");
}

#[test]
fn future_schemas_are_refused_by_name() {
    let (_dir, src) = chromium_db(25);
    let err = list_scopes(&src).unwrap_err();
    assert!(
        matches!(
            err,
            CookieError::FutureSchema {
                found: 25,
                known: 24,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string().contains("chromium:Test") && err.to_string().contains("update Porthole")
    );

    let (_dir, src) = firefox_db(18);
    let err = read_cookies(&src, &scopes(&["x.test"]), SystemTime::now()).unwrap_err();
    assert!(
        matches!(
            err,
            CookieError::FutureSchema {
                found: 18,
                known: 17,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().starts_with("firefox:test: "));
}

#[test]
fn missing_corrupt_and_empty_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut src = CookieSource {
        id: "chrome:Default".into(),
        browser: Browser::Chrome,
        profile: "Default".into(),
        name: "Me".into(),
        path: dir.path().join("Cookies"),
    };
    let err = list_scopes(&src).unwrap_err();
    assert!(matches!(err, CookieError::Missing { .. }), "{err}");
    assert!(err.to_string().starts_with("chrome:Default: "), "{err}");

    std::fs::write(
        &src.path,
        b"this is definitely not an SQLite database, just text...".repeat(100),
    )
    .unwrap();
    let err = list_scopes(&src).unwrap_err();
    assert!(matches!(err, CookieError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("file is not a database"), "{err}");

    std::fs::write(&src.path, b"").unwrap();
    let err = read_cookies(&src, &scopes(&["a"]), SystemTime::now()).unwrap_err();
    assert!(matches!(err, CookieError::Corrupt { .. }), "{err}");

    src.path = dir.path().to_owned(); // a directory
    assert!(matches!(
        list_scopes(&src).unwrap_err(),
        CookieError::Corrupt { .. }
    ));
}

/// The copy-based reader works while another process holds an exclusive lock with an
/// uncommitted write on the live file: it sees the last committed state.
#[test]
fn an_exclusively_locked_database_still_reads_its_committed_state() {
    let (_dir, src) = chromium_db(24);
    insert(
        &src.path,
        "h.test",
        "committed",
        "",
        &v10("h.test", "c", true),
        chromium_time(100),
        true,
    );
    let holder = Connection::open(&src.path).unwrap();
    holder
        .execute_batch("PRAGMA cache_size = 1; BEGIN EXCLUSIVE;")
        .unwrap();
    for i in 0..200 {
        holder
            .execute(
                "INSERT INTO cookies VALUES (0, 'h.test', '', ?1, 'x', X'', '/', 0, 0, 0, 0, 1, 1, 1, -1, 0, -1, 0, 0, 0)",
                [format!("uncommitted-{i}-{}", "p".repeat(500))],
            )
            .unwrap();
    }
    // The live file really is locked for SQLite readers.
    let probe = Connection::open(&src.path).unwrap();
    probe.busy_timeout(Duration::from_millis(10)).unwrap();
    assert!(probe
        .query_row("SELECT count(*) FROM cookies", [], |r| r.get::<_, i64>(0))
        .is_err());

    let out = read_cookies(&src, &scopes(&["h.test"]), SystemTime::now()).unwrap();
    let names: Vec<&str> = out.cookies.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["committed"]);
    assert_eq!(list_scopes(&src).unwrap()[0].count, 1);
    holder.execute_batch("ROLLBACK").unwrap();
}

#[test]
fn junk_in_columns_is_an_error_or_a_default_never_a_panic() {
    let (_dir, src) = chromium_db(24);
    let conn = Connection::open(&src.path).unwrap();
    conn.execute_batch(
        "INSERT INTO cookies VALUES (0, 'j.test', 'x', 'n1', 'plain', X'', X'ff00', 'soon', 'y', 'z', 0, 'a', 'b', 1, 'c', 'd', 'e', 0, 0, 'f');
         INSERT INTO cookies VALUES (0, 'j.test', '', 'n2', '', X'7631', '/', 99999999999999999, 1, 1, 0, 1, 1, 1, 7, 9, 70000, 0, 0, 1);",
    )
    .unwrap();
    drop(conn);
    assert_eq!(list_scopes(&src).unwrap()[0].count, 2);
    // 'v1' is too short for any scheme: a clear Decrypt error.
    let err = read_cookies(&src, &scopes(&["j.test"]), SystemTime::now()).unwrap_err();
    assert!(matches!(err, CookieError::Decrypt { .. }), "{err}");
}

#[test]
fn snapshots_are_private_and_removed() {
    let (_dir, src) = chromium_db(24);
    std::fs::write(
        PathBuf::from(format!("{}-journal", src.path.display())),
        b"",
    )
    .unwrap();
    let snap = Snapshot::take(&src.id, &src.path).unwrap();
    let dir = snap.dir().to_owned();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
            0o700
        );
        let db = dir.join("Cookies");
        assert_eq!(
            std::fs::metadata(&db).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    assert!(dir.join("Cookies-journal").exists());
    drop(snap);
    assert!(!dir.exists());
}

/// A Firefox `cookies.sqlite` of `user_version` with one host-only and one domain cookie.
pub(super) fn firefox_db(user_version: i64) -> (tempfile::TempDir, CookieSource) {
    let dir = tempfile::Builder::new()
        .prefix("porthole-cookie-test-")
        .tempdir()
        .unwrap();
    let path = dir.path().join("cookies.sqlite");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(&format!(
        "CREATE TABLE moz_cookies (id INTEGER PRIMARY KEY, originAttributes TEXT NOT NULL DEFAULT '',
           name TEXT, value TEXT, host TEXT, path TEXT, expiry INTEGER, lastAccessed INTEGER,
           creationTime INTEGER, isSecure INTEGER, isHttpOnly INTEGER, inBrowserElement INTEGER DEFAULT 0,
           sameSite INTEGER DEFAULT 0, schemeMap INTEGER DEFAULT 0);
         PRAGMA user_version = {user_version};"
    ))
    .unwrap();
    let source = CookieSource {
        id: "firefox:test".into(),
        browser: Browser::Firefox,
        profile: "test".into(),
        name: "test".into(),
        path,
    };
    (dir, source)
}

#[test]
fn firefox_expiry_is_seconds_before_schema_16_and_ms_from_it() {
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    for (version, expiry) in [
        (15, now + 3600),
        (16, (now + 3600) * 1000),
        (17, (now + 3600) * 1000),
    ] {
        let (_dir, src) = firefox_db(version);
        let conn = Connection::open(&src.path).unwrap();
        conn.execute(
            "INSERT INTO moz_cookies (originAttributes, name, value, host, path, expiry, isSecure, isHttpOnly, sameSite)
             VALUES ('', 'a', 'va', 'x.test', '/', ?1, 0, 0, 1), ('^userContextId=1', 'b', 'vb', 'x.test', '/', ?1, 0, 0, 256),
                    ('^privateBrowsingId=1', 'c', 'vc', 'only-private.test', '/', ?1, 0, 0, 0)",
            [expiry],
        )
        .unwrap();
        drop(conn);
        let listed = list_scopes(&src).unwrap();
        assert_eq!(
            listed.len(),
            1,
            "containers and private windows are not listed: {listed:?}"
        );
        assert_eq!(listed[0].count, 1);
        let err =
            read_cookies(&src, &scopes(&["only-private.test"]), SystemTime::now()).unwrap_err();
        assert!(matches!(err, CookieError::UnknownScopes { .. }));
        let out = read_cookies(&src, &scopes(&["x.test"]), SystemTime::now()).unwrap();
        assert_eq!(out.cookies.len(), 1, "v{version}");
        assert!(
            (out.cookies[0].expires - (now + 3600) as f64).abs() < 1.0,
            "v{version}"
        );
        // An hour and a bit later it has expired.
        let later = SystemTime::now() + Duration::from_secs(3700);
        assert_eq!(
            read_cookies(&src, &scopes(&["x.test"]), later)
                .unwrap()
                .skipped_expired,
            1
        );
    }
}

/// Every log line of a list and a read, at TRACE, is free of the values read.
#[test]
fn values_never_reach_the_log() {
    use std::sync::{Arc, Mutex};
    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let (_dir, src) = chromium_db(24);
    insert(
        &src.path,
        "h.test",
        "sid",
        "",
        &v10("h.test", "VALUE-ONE-secret", true),
        chromium_time(100),
        true,
    );
    insert(
        &src.path,
        "p.test",
        "pid",
        "VALUE-TWO-plain",
        b"",
        chromium_time(100),
        true,
    );
    // A thread-local subscriber can miss events while other tests register callsites at the
    // same moment (tracing's interest cache): repeat until one run saw the library's events.
    // Every run's log must be free of the values.
    let mut saw_events = false;
    for _ in 0..5 {
        let buf = Buf::default();
        let writer = buf.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            list_scopes(&src).unwrap();
            let out =
                read_cookies(&src, &scopes(&["h.test", "p.test"]), SystemTime::now()).unwrap();
            tracing::info!(?out, "the caller logs the whole outcome with Debug");
            let _ = read_cookies(&src, &scopes(&["nope.test"]), SystemTime::now());
        });
        let log = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert!(
            !log.contains("VALUE-ONE") && !log.contains("VALUE-TWO"),
            "{log}"
        );
        if log.contains("cookies.read") && log.contains("redacted") {
            saw_events = true;
            break;
        }
    }
    assert!(
        saw_events,
        "the library's events never reached the test subscriber"
    );
}
