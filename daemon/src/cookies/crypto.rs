//! Decryption of Chromium-family cookie values.
//!
//! Owns: the `v10`/`v11` schemes (AES-128-CBC, PBKDF2-HMAC-SHA1 over "saltysalt", IV of 16
//! spaces, PKCS7), the macOS variant (1003 iterations, Keychain password), the Windows `v10`
//! AES-256-GCM primitive, the version-24 SHA-256(host_key) prefix, and fetching the per-browser
//! password from the OS keyring — lazily, only when a value of that scheme is actually read.
//!
//! Must not: log or return a value in an error; fetch a key while only listing scopes.

use std::cell::OnceCell;

use aes::cipher::{block_padding::Pkcs7, BlockDecryptMut, KeyIvInit};
use sha2::{Digest, Sha256};

use super::error::CookieError;
use super::Browser;

type Aes128CbcDec = cbc::Decryptor<aes::Aes128>;

/// The fixed salt of every Chromium os_crypt key derivation.
const SALT: &[u8] = b"saltysalt";
/// The fixed CBC IV: 16 spaces.
const IV: [u8; 16] = [b' '; 16];
/// First `meta.version` whose decrypted values start with SHA-256(host_key).
pub(crate) const HOST_PREFIX_VERSION: i64 = 24;

/// PBKDF2-HMAC-SHA1 → a 16-byte AES-128 key.
pub(crate) fn derive_key(password: &[u8], iterations: u32) -> [u8; 16] {
    let mut key = [0u8; 16];
    pbkdf2::pbkdf2_hmac::<sha1::Sha1>(password, SALT, iterations, &mut key);
    key
}

/// AES-128-CBC with the fixed IV and PKCS7; `None` when the padding is wrong (wrong key).
pub(crate) fn cbc_decrypt(key: &[u8; 16], ciphertext: &[u8]) -> Option<Vec<u8>> {
    if ciphertext.is_empty() || !ciphertext.chunks_exact(16).remainder().is_empty() {
        return None;
    }
    let mut buf = ciphertext.to_vec();
    let len = Aes128CbcDec::new(key.into(), &IV.into())
        .decrypt_padded_mut::<Pkcs7>(&mut buf)
        .ok()?
        .len();
    buf.truncate(len);
    Some(buf)
}

/// AES-256-GCM as Chromium on Windows uses it: 12-byte nonce, ciphertext, 16-byte tag.
/// Tested, but not yet called: Windows `v10` needs the DPAPI-unprotected key from `Local
/// State`, which this library does not implement (Windows reads fail with `Unsupported`).
#[allow(dead_code)]
pub(crate) fn gcm_decrypt(key: &[u8; 32], data: &[u8]) -> Option<Vec<u8>> {
    use aes_gcm::aead::{Aead, KeyInit};
    if data.len() < 12 + 16 {
        return None;
    }
    let (nonce, rest) = data.split_at(12);
    let cipher = aes_gcm::Aes256Gcm::new(key.into());
    cipher.decrypt(nonce.into(), rest).ok()
}

/// Removes the SHA-256(host_key) prefix that `meta.version` ≥ 24 puts before every value.
/// Decided by the version, never by guessing; a prefix that does not match means a wrong key.
pub(crate) fn strip_host_prefix(
    plain: Vec<u8>,
    host_key: &str,
    meta_version: i64,
) -> Option<Vec<u8>> {
    if meta_version < HOST_PREFIX_VERSION {
        return Some(plain);
    }
    if plain.len() < 32 {
        return None;
    }
    let digest = Sha256::digest(host_key.as_bytes());
    (plain[..32] == digest[..]).then(|| plain[32..].to_vec())
}

/// The keys one `read_cookies` call may need; keyring passwords are fetched on first use and
/// then reused for the rest of the call.
pub(crate) struct ChromiumKeys<'a> {
    source_id: &'a str,
    browser: Browser,
    meta_version: i64,
    /// Linux `v11` keys (keyring password, then empty password) or the error getting them.
    v11: OnceCell<Result<Vec<[u8; 16]>, CookieError>>,
    /// macOS `v10` key from the Keychain.
    #[cfg(target_os = "macos")]
    mac: OnceCell<Result<[u8; 16], CookieError>>,
}

impl<'a> ChromiumKeys<'a> {
    pub(crate) fn new(source_id: &'a str, browser: Browser, meta_version: i64) -> Self {
        ChromiumKeys {
            source_id,
            browser,
            meta_version,
            v11: OnceCell::new(),
            #[cfg(target_os = "macos")]
            mac: OnceCell::new(),
        }
    }

    /// Decrypts one `encrypted_value` (non-empty) of the cookie `name` on `host_key`.
    pub(crate) fn decrypt(
        &self,
        host_key: &str,
        name: &str,
        encrypted: &[u8],
    ) -> Result<Vec<u8>, CookieError> {
        let (tag, body) = encrypted.split_at(encrypted.len().min(3));
        let fail = |detail: &'static str| CookieError::Decrypt {
            source_id: self.source_id.to_owned(),
            scope: host_key.to_owned(),
            cookie_name: name.to_owned(),
            detail,
        };
        match tag {
            b"v10" => {
                let keys = self.v10_keys()?;
                self.try_keys(&keys, body, host_key)
                    .ok_or_else(|| fail("v10: no known key fits"))
            }
            b"v11" => {
                let keys = self.v11_keys()?;
                self.try_keys(&keys, body, host_key)
                    .ok_or_else(|| fail("v11: the keyring password does not fit"))
            }
            b"v12" => Err(self.unsupported(
                "Chromium cookie encryption v12 (XDG desktop portal key)",
                "start the browser with --password-store=gnome-libsecret or basic, or leave \
                 this browser out",
            )),
            b"v20" => Err(self.unsupported(
                "Chromium cookie encryption v20 (Windows app-bound encryption)",
                "app-bound keys can only be opened by the browser itself; use Firefox or \
                 sign in inside the sidecar",
            )),
            _ => Err(fail("unknown encryption scheme prefix")),
        }
    }

    fn try_keys(&self, keys: &[[u8; 16]], body: &[u8], host_key: &str) -> Option<Vec<u8>> {
        keys.iter().find_map(|key| {
            let plain = cbc_decrypt(key, body)?;
            strip_host_prefix(plain, host_key, self.meta_version)
        })
    }

    fn unsupported(&self, what: &str, hint: &'static str) -> CookieError {
        CookieError::Unsupported {
            source_id: self.source_id.to_owned(),
            what: what.to_owned(),
            hint,
        }
    }

    #[cfg(all(unix, not(target_os = "macos")))]
    fn v10_keys(&self) -> Result<Vec<[u8; 16]>, CookieError> {
        // Chromium falls back to the empty password when "peanuts" does not fit.
        Ok(vec![derive_key(b"peanuts", 1), derive_key(b"", 1)])
    }

    #[cfg(target_os = "macos")]
    fn v10_keys(&self) -> Result<Vec<[u8; 16]>, CookieError> {
        let key = self.mac.get_or_init(|| {
            let (service, account) = self.browser.keychain_item();
            keychain::password(service, account)
                .map(|pw| derive_key(&pw, 1003))
                .map_err(|detail| CookieError::KeyringUnavailable {
                    source_id: self.source_id.to_owned(),
                    browser: self.browser.human_name(),
                    keyring: "macOS Keychain",
                    detail,
                    hint: "allow Porthole when macOS asks for the browser's Safe Storage item, \
                           and unlock the login keychain",
                })
        });
        key.as_ref().map(|k| vec![*k]).map_err(clone_error)
    }

    #[cfg(windows)]
    fn v10_keys(&self) -> Result<Vec<[u8; 16]>, CookieError> {
        Err(self.unsupported(
            "reading Chromium cookies on Windows (DPAPI-protected key)",
            "import from Firefox, or sign in inside the sidecar",
        ))
    }

    #[cfg(all(unix, not(target_os = "macos")))]
    fn v11_keys(&self) -> Result<Vec<[u8; 16]>, CookieError> {
        let keys = self.v11.get_or_init(|| {
            let apps = self.browser.secret_service_applications();
            match secret::password(apps) {
                Ok(pw) => Ok(vec![derive_key(&pw, 1), derive_key(b"", 1)]),
                Err(detail) => Err(CookieError::KeyringUnavailable {
                    source_id: self.source_id.to_owned(),
                    browser: self.browser.human_name(),
                    keyring: "Secret Service (GNOME Keyring or a compatible keyring)",
                    detail,
                    hint: "run Porthole inside your desktop session with the keyring unlocked \
                           (log in graphically, or unlock it with your login password); KWallet \
                           without the Secret Service API is not supported",
                }),
            }
        });
        match keys {
            Ok(keys) => Ok(keys.clone()),
            Err(e) => Err(clone_error(e)),
        }
    }

    #[cfg(not(all(unix, not(target_os = "macos"))))]
    fn v11_keys(&self) -> Result<Vec<[u8; 16]>, CookieError> {
        let _ = &self.v11;
        Err(self.unsupported(
            "Chromium cookie encryption v11 outside Linux",
            "leave this browser out",
        ))
    }
}

/// `CookieError` is not `Clone` (it need not be anywhere else); the cached key error — always a
/// `KeyringUnavailable` — is rebuilt field by field.
fn clone_error(e: &CookieError) -> CookieError {
    match e {
        CookieError::KeyringUnavailable {
            source_id,
            browser,
            keyring,
            detail,
            hint,
        } => CookieError::KeyringUnavailable {
            source_id: source_id.clone(),
            browser,
            keyring,
            detail: detail.clone(),
            hint,
        },
        other => CookieError::Sqlite {
            source_id: String::new(),
            detail: other.to_string(),
        },
    }
}

#[cfg(all(unix, not(target_os = "macos")))]
mod secret {
    //! The Secret Service lookup, on its own thread with a deadline: zbus's blocking API runs
    //! its own tokio runtime, which must not start inside the caller's runtime, and a keyring
    //! that never answers must not hang an import.
    use std::collections::HashMap;
    use std::sync::mpsc;
    use std::time::Duration;

    use secret_service::blocking::SecretService;
    use secret_service::EncryptionType;

    const DEADLINE: Duration = Duration::from_secs(15);

    /// The "Safe Storage" password stored under `application=<app>` for the first app that has
    /// one. The error string never contains a secret.
    pub(super) fn password(apps: &'static [&'static str]) -> Result<Vec<u8>, String> {
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("cookie-keyring".into())
            .spawn(move || {
                let _ = tx.send(lookup(apps));
            })
            .map_err(|e| format!("could not start the keyring thread: {e}"))?;
        rx.recv_timeout(DEADLINE)
            .unwrap_or_else(|_| Err(format!("no answer within {}s", DEADLINE.as_secs())))
    }

    fn lookup(apps: &[&str]) -> Result<Vec<u8>, String> {
        let ss = SecretService::connect(EncryptionType::Dh).map_err(describe)?;
        let mut locked = false;
        for app in apps {
            let found = ss
                .search_items(HashMap::from([("application", *app)]))
                .map_err(describe)?;
            if let Some(item) = found.unlocked.first() {
                return item.get_secret().map_err(describe);
            }
            locked |= !found.locked.is_empty();
        }
        if locked {
            Err("the keyring is locked".into())
        } else {
            Err(format!(
                "no Safe Storage item with application={} in the keyring",
                apps.join(" or application=")
            ))
        }
    }

    fn describe(e: secret_service::Error) -> String {
        match e {
            secret_service::Error::Unavailable => {
                "no Secret Service on the session bus (no keyring running, or no D-Bus session)"
                    .into()
            }
            secret_service::Error::Locked => "the keyring is locked".into(),
            other => other.to_string(),
        }
    }
}

#[cfg(target_os = "macos")]
mod keychain {
    //! The macOS Keychain lookup (macOS shows its own consent prompt).

    /// The generic password stored under `service`/`account`.
    pub(super) fn password(service: &str, account: &str) -> Result<Vec<u8>, String> {
        security_framework::passwords::get_generic_password(service, account)
            .map_err(|e| format!("Keychain item {service:?}: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes::cipher::BlockEncryptMut;

    fn encrypt_v10(key: &[u8; 16], plain: &[u8]) -> Vec<u8> {
        let enc = cbc::Encryptor::<aes::Aes128>::new(key.into(), &IV.into());
        let mut buf = plain.to_vec();
        buf.resize(plain.len() + 16, 0);
        let len = enc
            .encrypt_padded_mut::<Pkcs7>(&mut buf, plain.len())
            .unwrap()
            .len();
        let mut out = b"v10".to_vec();
        out.extend_from_slice(&buf[..len]);
        out
    }

    #[test]
    fn peanuts_key_is_the_known_constant() {
        // The well-known Linux v10 key.
        assert_eq!(
            derive_key(b"peanuts", 1),
            [
                0xfd, 0x62, 0x1f, 0xe5, 0xa2, 0xb4, 0x02, 0x53, 0x9d, 0xfa, 0x14, 0x7c, 0xa9, 0x27,
                0x27, 0x78
            ]
        );
    }

    #[cfg(all(unix, not(target_os = "macos")))]
    #[test]
    fn v10_with_and_without_host_prefix_and_empty_password_fallback() {
        let host = ".example.com";
        let mut prefixed = Sha256::digest(host.as_bytes()).to_vec();
        prefixed.extend_from_slice(b"secret-1");
        let keys = ChromiumKeys::new("chromium:Default", Browser::Chromium, 24);
        let enc = encrypt_v10(&derive_key(b"peanuts", 1), &prefixed);
        assert_eq!(keys.decrypt(host, "n", &enc).unwrap(), b"secret-1");
        let enc = encrypt_v10(&derive_key(b"", 1), &prefixed);
        assert_eq!(keys.decrypt(host, "n", &enc).unwrap(), b"secret-1");
        // A prefix for another host is a failure, not something to strip.
        assert!(matches!(
            keys.decrypt(".other.com", "n", &enc),
            Err(CookieError::Decrypt { .. })
        ));
        let old = ChromiumKeys::new("chromium:Default", Browser::Chromium, 23);
        let enc = encrypt_v10(&derive_key(b"peanuts", 1), b"plain-old");
        assert_eq!(old.decrypt(host, "n", &enc).unwrap(), b"plain-old");
    }

    #[test]
    fn v12_and_v20_are_clear_unsupported_errors() {
        let keys = ChromiumKeys::new("chrome:Default", Browser::Chrome, 24);
        for tag in [&b"v12"[..], &b"v20"[..]] {
            let mut v = tag.to_vec();
            v.extend([0u8; 32]);
            let err = keys.decrypt(".x.com", "n", &v).unwrap_err();
            assert!(matches!(err, CookieError::Unsupported { .. }), "{err}");
            assert!(err.to_string().starts_with("chrome:Default: "));
        }
    }

    #[test]
    fn gcm_round_trip() {
        use aes_gcm::aead::{Aead, KeyInit};
        let key = [7u8; 32];
        let nonce = [1u8; 12];
        let cipher = aes_gcm::Aes256Gcm::new((&key).into());
        let mut data = nonce.to_vec();
        data.extend(cipher.encrypt((&nonce).into(), &b"hello"[..]).unwrap());
        assert_eq!(gcm_decrypt(&key, &data).unwrap(), b"hello");
        assert!(gcm_decrypt(&[8u8; 32], &data).is_none());
    }
}
