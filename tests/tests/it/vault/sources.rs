//! The vault's bad input from its sources and fields (issue 37): a corrupt and a missing
//! `.kdbx` are in `error` with their reason while the rest keeps working; `pass` with gpg
//! missing from PATH, and a `pass` that never answers (a stand-in script on PATH: a fault the
//! real one cannot make on demand), end in a clear error within the deadline; an item with no
//! password or no seed, and refs that are not text fields, are refused with nothing typed.

use std::path::Path;
use std::time::{Duration, Instant};

use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::mcp::ref_of;
use porthole_tests::pages::PageServer;
use porthole_tests::vault_fixture::{keepass_vault, run};
use porthole_tests::{eventually, TempDir};
use serde_json::{json, Value};

use super::tools::{
    fill_forum_and_submit, keepass_db, received, state_of, unlock, wait_for, CHANNEL, KP_PASSWORD,
    PASS_PASSWORD, SITE_PASSWORD,
};

fn source<'a>(overview: &'a Value, name: &str) -> &'a Value {
    overview["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no source {name} in {overview}"))
}

/// A PATH of links to every program of /usr/bin and /bin but `except`, plus `extra` first.
fn path_without(dir: &Path, except: &[&str], extra: Option<&Path>) -> String {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for from in ["/usr/bin", "/bin"] {
        for entry in std::fs::read_dir(from).into_iter().flatten().flatten() {
            let name = entry.file_name();
            let link = bin.join(&name);
            if except.iter().any(|e| name == *e) || link.exists() {
                continue;
            }
            let _ = std::os::unix::fs::symlink(entry.path(), link);
        }
    }
    match extra {
        Some(extra) => format!("{}:{}", extra.display(), bin.display()),
        None => bin.display().to_string(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_corrupt_or_missing_database_is_in_error_and_the_rest_keeps_working() {
    let site = PageServer::area("vault").await;
    let dir = TempDir::new("vault-db");
    let kp = keepass_db(dir.path(), "kp", &site.base(), true, false);
    let corrupt = dir.path().join("corrupt.kdbx");
    std::fs::write(&corrupt, b"this is not a keepass database at all").unwrap();
    let missing = dir.path().join("missing.kdbx");
    // A real database cut short (a copy interrupted): its header is whole, its body is not.
    let cut = dir.path().join("cut.kdbx");
    let bytes = std::fs::read(&kp).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"vault": {
            "sources": [
                {"kind": "keepass", "name": "kp", "path": kp},
                {"kind": "keepass", "name": "bad", "path": corrupt},
                {"kind": "keepass", "name": "gone", "path": missing},
                {"kind": "keepass", "name": "cut", "path": cut},
            ],
            "share": [
                {"item": "kp/Web/Forum", "agents": ["*"]},
                {"item": "bad/Web/Forum", "agents": ["*"]},
                {"item": "gone/Web/Forum", "agents": ["*"]},
            ],
        }}),
        ..Default::default()
    })
    .await;
    // Both in error, with their reason, before anyone tried a password.
    let (_, overview) = daemon.get("/api/browser/vault").await;
    let bad = source(&overview, "bad");
    assert_eq!(bad["state"], "error", "{overview}");
    assert!(
        bad["reason"]
            .as_str()
            .unwrap()
            .contains("not a KeePass 2 database"),
        "{overview}"
    );
    let gone = source(&overview, "gone");
    assert_eq!(gone["state"], "error", "{overview}");
    assert!(
        gone["reason"].as_str().unwrap().contains("no database at"),
        "{overview}"
    );
    assert_eq!(state_of(&overview, "kp"), "locked");
    // Their unlock is refused naming why; they stay in error.
    for name in ["bad", "gone"] {
        let (status, answer) = unlock(&daemon, name, KP_PASSWORD).await;
        assert_eq!(status, 409, "{answer}");
        assert_eq!(answer["error"]["code"], "vault_unreadable", "{answer}");
    }
    // The cut one looks whole until opened; its right password then says it is damaged, not
    // wrong.
    assert_eq!(state_of(&overview, "cut"), "locked");
    let (status, answer) = unlock(&daemon, "cut", KP_PASSWORD).await;
    assert_eq!(status, 409, "{answer}");
    assert_eq!(answer["error"]["code"], "vault_unreadable", "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unexpected end of file"),
        "{answer}"
    );
    let (status, answer) = unlock(&daemon, "kp", KP_PASSWORD).await;
    assert_eq!(status, 200, "{answer}");

    // An agent's fill from them says why, types nothing; kp fills.
    let (_, token) = daemon.add_agent(CHANNEL, "signer", &[]).await;
    let agent = daemon.caller(&token);
    agent
        .act_ok("navigate", json!({"url": site.url("/login.html")}))
        .await;
    for (item, says) in [
        ("bad/Web/Forum", "not a KeePass 2 database"),
        ("gone/Web/Forum", "no database at"),
    ] {
        let (is_error, text) = agent.act_text("fill_login", json!({ "item": item })).await;
        assert!(is_error && text.contains(says), "{item}: {text}");
    }
    assert!(
        received(&site, "/typed").is_empty(),
        "{:?}",
        site.requests()
    );
    fill_forum_and_submit(&agent, &site).await;
    let (_, overview) = daemon.get("/api/browser/vault").await;
    assert_eq!(state_of(&overview, "bad"), "error");
    assert_eq!(state_of(&overview, "gone"), "error");
}

#[tokio::test(flavor = "multi_thread")]
async fn pass_without_gpg_is_in_error_and_says_so() {
    let dir = TempDir::new("vault-nogpg");
    let store = dir.path().join("store");
    std::fs::create_dir_all(store.join("web")).unwrap();
    std::fs::write(store.join("web").join("forum.gpg"), b"not read").unwrap();
    let path = path_without(dir.path(), &["gpg", "gpg2"], None);
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({
            "browser": {"chromium_path": "/usr/bin/chromium"},
            "vault": {
                "sources": [{"kind": "pass", "name": "ps", "dir": store}],
                "share": [{"item": "ps/web/forum", "agents": ["*"]}],
            },
        }),
        env: vec![("PATH".into(), path)],
        ..Default::default()
    })
    .await;
    let (_, overview) = daemon.get("/api/browser/vault").await;
    let ps = source(&overview, "ps");
    assert_eq!(ps["state"], "error", "{overview}");
    assert!(
        ps["reason"]
            .as_str()
            .unwrap()
            .contains("gpg is not installed"),
        "{overview}"
    );
    let (_, token) = daemon.add_agent(CHANNEL, "signer", &[]).await;
    let agent = daemon.caller(&token);
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "ps/web/forum"}))
        .await;
    assert!(is_error && text.contains("gpg is not installed"), "{text}");
    let (is_error, text) = agent.act_text("list_logins", json!({})).await;
    assert!(!is_error && text.contains("ps"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pass_that_never_answers_ends_in_an_error_within_the_deadline() {
    let site = PageServer::area("vault").await;
    let dir = TempDir::new("vault-hang");
    let store = dir.path().join("store");
    std::fs::create_dir_all(store.join("web")).unwrap();
    std::fs::write(store.join("web").join("forum.gpg"), b"not read").unwrap();
    // A `pass` that waits forever, first on PATH (gpg stays where it is): it notes each run,
    // and waits on a child of its own (as gpg and pinentry would be) whose pid it writes down.
    let fake = dir.path().join("fake");
    std::fs::create_dir_all(&fake).unwrap();
    let script = fake.join("pass");
    let (runs, child) = (dir.path().join("runs"), dir.path().join("child"));
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$@\" >> {}\nsleep 600 &\necho $! > {}\nwait\n",
            runs.display(),
            child.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        fake.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let kp = keepass_db(dir.path(), "kp", &site.base(), false, false);
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"vault": {
            "sources": [
                {"kind": "pass", "name": "ps", "dir": store},
                {"kind": "keepass", "name": "kp", "path": kp},
            ],
            "share": [
                {"item": "ps/web/forum", "agents": ["*"]},
                {"item": "kp/Web/Forum", "agents": ["*"]},
            ],
        }}),
        env: vec![("PATH".into(), path)],
        ..Default::default()
    })
    .await;
    let (_, token) = daemon.add_agent(CHANNEL, "signer", &[]).await;
    let agent = daemon.caller(&token);
    agent
        .act_ok("navigate", json!({"url": site.url("/login.html")}))
        .await;
    // Listing reads the store's names: the item is listed, and pass never ran (V13).
    let (is_error, text) = agent.act_text("list_logins", json!({})).await;
    assert!(!is_error && text.contains("ps/web/forum"), "{text}");
    let (_, overview) = daemon.get("/api/browser/vault").await;
    assert!(overview.to_string().contains("ps/web/forum"), "{overview}");
    assert!(!runs.exists(), "a listing ran pass");
    // The deadline is 10 s; the answer comes after it, and well before a minute.
    let started = Instant::now();
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "ps/web/forum"}))
        .await;
    assert!(
        is_error && text.contains("pass show took longer than 10 s"),
        "{text}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    assert!(
        received(&site, "/typed").is_empty(),
        "{:?}",
        site.requests()
    );
    assert_eq!(
        std::fs::read_to_string(&runs).unwrap(),
        "show -- web/forum\n",
        "the fill decrypted that one item"
    );
    // Killed with its process group: the child it waited on is gone too.
    let pid = std::fs::read_to_string(&child).unwrap().trim().to_string();
    porthole_tests::eventually("pass's child killed", Duration::from_secs(10), || {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let gone = stat.is_empty() || stat.split(' ').nth(2) == Some("Z");
        async move { gone.then_some(()) }
    })
    .await;
    // The other source keeps working.
    let (status, answer) = unlock(&daemon, "kp", KP_PASSWORD).await;
    assert_eq!(status, 200, "{answer}");
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "kp/Web/Forum"}))
        .await;
    assert!(!is_error, "{text}");
    wait_for(&site, "/typed?field=pass").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_item_without_a_password_or_a_seed_and_refs_that_take_no_typing_are_refused() {
    let site = PageServer::area("vault").await;
    let dir = TempDir::new("vault-db");
    let kp = keepass_db(dir.path(), "kp", &site.base(), true, false);
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: keepass_vault(&kp, &["kp/Web/Forum", "kp/Web/Bare"]),
        ..Default::default()
    })
    .await;
    let (status, answer) = unlock(&daemon, "kp", KP_PASSWORD).await;
    assert_eq!(status, 200, "{answer}");
    let (_, token) = daemon.add_agent(CHANNEL, "signer", &[]).await;
    let agent = daemon.caller(&token);
    let mut answers = String::new();

    // No password, no seed: said, nothing typed.
    agent
        .act_ok("navigate", json!({"url": site.url("/login.html")}))
        .await;
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "kp/Web/Bare"}))
        .await;
    assert!(is_error && text.contains("has no password"), "{text}");
    answers.push_str(&text);
    agent
        .act_ok("navigate", json!({"url": site.url("/otp.html")}))
        .await;
    let (is_error, text) = agent
        .act_text("fill_totp", json!({"item": "kp/Web/Bare"}))
        .await;
    assert!(is_error && text.contains("no one-time code seed"), "{text}");
    answers.push_str(&text);
    assert!(
        received(&site, "/typed").is_empty(),
        "{:?}",
        site.requests()
    );

    // Refs to a checkbox, a select, a disabled and a read-only field, a button: refused.
    agent
        .act_ok("navigate", json!({"url": site.url("/fields.html")}))
        .await;
    let page = eventually("the fields in read_page", Duration::from_secs(10), || {
        let agent = agent.clone();
        async move {
            let (_, text) = agent.act_text("read_page", json!({})).await;
            text.contains("Go").then_some(text)
        }
    })
    .await;
    for label in [
        "Remember me",
        "Country",
        "Locked field",
        "Frozen field",
        "Go",
    ] {
        let r = ref_of(&page, label);
        for (tool, args) in [
            (
                "fill_login",
                json!({"item": "kp/Web/Forum", "username_ref": r, "password_ref": r}),
            ),
            (
                "fill_login",
                json!({"item": "kp/Web/Forum", "password_ref": r}),
            ),
            ("fill_totp", json!({"item": "kp/Web/Forum", "ref": r})),
        ] {
            let (is_error, text) = agent.act_text(tool, args.clone()).await;
            assert!(
                is_error && text.contains("not a text field that takes typing"),
                "{label} {tool} {args}: {text}"
            );
            answers.push_str(&text);
        }
    }
    // An unknown ref too.
    let (is_error, text) = agent
        .act_text("fill_totp", json!({"item": "kp/Web/Forum", "ref": "e9999"}))
        .await;
    assert!(is_error, "{text}");
    assert!(
        received(&site, "/typed").is_empty(),
        "{:?}",
        site.requests()
    );
    for secret in [SITE_PASSWORD, PASS_PASSWORD, KP_PASSWORD] {
        assert!(!answers.contains(secret), "{answers}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reset_or_deleted_channel_forgets_the_secrets_filled_there() {
    let site = PageServer::area("vault").await;
    let dir = TempDir::new("vault-db");
    let kp = keepass_db(dir.path(), "kp", &site.base(), true, false);
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: keepass_vault(&kp, &["kp/Web/Forum"]),
        ..Default::default()
    })
    .await;
    let (status, answer) = unlock(&daemon, "kp", KP_PASSWORD).await;
    assert_eq!(status, 200, "{answer}");
    let owner = daemon.owner_on(CHANNEL);
    // A page whose address carries the secret (form-encoded, as a form would send it).
    let carrier = site.url(&format!(
        "/otp.html?v={}",
        SITE_PASSWORD.replace('@', "%40")
    ));
    let encoded = SITE_PASSWORD.replace('@', "%40");
    let shows = |text: &str| (text.contains(&encoded), text.contains("[secret]"));

    for forget in ["reset", "delete"] {
        owner
            .act_ok("navigate", json!({"url": site.url("/login.html")}))
            .await;
        let (is_error, text) = owner
            .act_text("fill_login", json!({"item": "kp/Web/Forum"}))
            .await;
        assert!(!is_error, "{text}");
        owner.act_ok("navigate", json!({"url": carrier})).await;
        let (_, text) = owner.act_text("page_info", json!({})).await;
        assert_eq!(shows(&text), (false, true), "scanned while filled: {text}");
        let status = if forget == "reset" {
            daemon
                .post(
                    "/api/browser/profile/reset",
                    &json!({"channel_id": CHANNEL}),
                )
                .await
                .0
        } else {
            daemon
                .delete(&format!("/api/browser/channels/{CHANNEL}"))
                .await
                .0
        };
        assert!(status == 200 || status == 204, "{forget}: {status}");
        // Nothing filled in the channel now: its answers are no longer scanned for it.
        owner.act_ok("navigate", json!({"url": carrier})).await;
        let (_, text) = owner.act_text("page_info", json!({})).await;
        assert_eq!(shows(&text), (true, false), "after {forget}: {text}");
    }
}

/// KDBX 4 with Argon2d (KeePassXC's default) and Argon2id, as the real keepassxc-cli saves
/// them: it merges the test's entries into a copy of an empty Argon2 database (keepassxc-cli
/// 2.7 creates AES-KDF ones only; see `tests/fixtures/vault/README.md`) and writes the file
/// with the KDF it found. A wrong password leaves each locked; the right one lists its items.
#[tokio::test(flavor = "multi_thread")]
async fn argon2_databases_saved_by_keepassxc_unlock_with_their_password() {
    let dir = TempDir::new("vault-argon2");
    let entries = keepass_db(dir.path(), "entries", "http://127.0.0.1:9", true, false);
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vault");
    let kdfs = [("argon2d", "KDF: Argon2d"), ("argon2id", "KDF: Argon2id")];
    let mut sources = Vec::new();
    for (name, kdf) in kdfs {
        let db = dir.path().join(format!("{name}.kdbx"));
        std::fs::copy(fixtures.join(format!("{name}-empty.kdbx")), &db).unwrap();
        let (db_arg, from) = (db.to_str().unwrap(), entries.to_str().unwrap());
        let password = format!("{KP_PASSWORD}\n");
        run(
            "keepassxc-cli",
            &["merge", "-q", "-s", db_arg, from],
            &[],
            &password,
        );
        let info = run("keepassxc-cli", &["db-info", "-q", db_arg], &[], &password);
        assert!(info.contains(kdf), "{name}: {info}");
        let listed = run("keepassxc-cli", &["ls", "-R", "-q", db_arg], &[], &password);
        assert!(listed.contains("Forum"), "{name}: {listed}");
        sources.push(json!({"kind": "keepass", "name": name, "path": db}));
    }
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"vault": {"sources": sources}}),
        ..Default::default()
    })
    .await;
    for (name, _) in kdfs {
        let (status, answer) = unlock(&daemon, name, "not the password").await;
        assert_eq!(status, 400, "{name}: {answer}");
        assert_eq!(answer["error"]["code"], "wrong_password", "{answer}");
        let (_, overview) = daemon.get("/api/browser/vault").await;
        assert_eq!(state_of(&overview, name), "locked", "{overview}");

        let (status, answer) = unlock(&daemon, name, KP_PASSWORD).await;
        assert_eq!(status, 200, "{name}: {answer}");
        let (_, overview) = daemon.get("/api/browser/vault").await;
        assert_eq!(state_of(&overview, name), "unlocked", "{overview}");
        let item = format!("{name}/Web/Forum");
        let forum = overview["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["item"] == item.as_str())
            .unwrap_or_else(|| panic!("{item} in {overview}"));
        assert_eq!(forum["username"], "alice", "{forum}");
        assert_eq!(forum["has_totp"], true, "{forum}");
    }
}
