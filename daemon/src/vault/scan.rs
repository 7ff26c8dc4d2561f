//! The secret stays out of every answer (DESIGN.md §19): after a fill, each secret filled in a
//! channel is kept here (zeroizing, in memory only, until the channel is deleted or reset or the
//! daemon stops) so that every text answer on that channel can be scanned for it — as is,
//! URL-encoded (`encodeURIComponent` and form encoding, either hex case), base64 (standard and
//! URL-safe, with or without padding) and JSON-escaped — and each match replaced by `[secret]`.
//!
//! Bounded per channel, and never by forgetting a password (§19a): past [`MAX_PASSWORDS`]
//! different ones a new fill is refused ([`ScanFull`]). One-time codes are kept too, the newest
//! [`MAX_CODES`]; the oldest goes first (by then it expired long ago).
//!
//! The scan is one pass over the text: each 4-byte window is looked up in a bit set of the
//! forms' first four bytes (hashed), and only a hit is compared with the forms.

use std::collections::HashMap;
use std::sync::Mutex;

use base64::Engine as _;
use zeroize::Zeroizing;

/// What a match is replaced by.
pub const MARK: &str = "[secret]";
/// The most different passwords (and usernames' neighbours: anything not a code) kept per
/// channel; one more is refused.
pub const MAX_PASSWORDS: usize = 128;
/// The most one-time codes kept per channel; the oldest goes first.
pub const MAX_CODES: usize = 32;
/// Bits of the window filter (2^18: under 2 % of windows hit with every slot taken).
const FILTER_BITS: u32 = 18;

/// What a filled secret is, for how long it is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretKind {
    /// A password: kept while the channel lives.
    Password,
    /// A one-time code: kept among the newest [`MAX_CODES`].
    Code,
}

/// A fill refused because the channel's scan is full.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Refused: {MAX_PASSWORDS} different passwords were already filled in this channel, the most \
     Porthole keeps watch over in one channel, and it never stops watching for one to make room. \
     Nothing was typed. Reset the channel's profile (or delete the channel) to start again."
)]
pub struct ScanFull;

/// The filled secrets of each channel, in every form they are looked for in.
#[derive(Default)]
pub struct Scanner {
    /// Never held across an await.
    channels: Mutex<HashMap<String, Kept>>,
}

/// One channel's secrets and the filter built from them.
#[derive(Default)]
struct Kept {
    passwords: Vec<Forms>,
    /// Oldest first.
    codes: Vec<Forms>,
    filter: Filter,
}

/// Every form of one secret.
struct Forms {
    secret: Zeroizing<String>,
    forms: Vec<Zeroizing<String>>,
}

impl Kept {
    fn all(&self) -> impl Iterator<Item = &Zeroizing<String>> {
        self.passwords
            .iter()
            .chain(&self.codes)
            .flat_map(|s| s.forms.iter())
    }

    fn rebuild(&mut self) {
        let mut filter = Filter::default();
        for form in self
            .passwords
            .iter()
            .chain(&self.codes)
            .flat_map(|s| &s.forms)
        {
            filter.add(form.as_bytes());
        }
        self.filter = filter;
    }
}

impl Scanner {
    /// Remembers `secret`, filled in `channel`. A secret already kept is kept once.
    pub fn remember(&self, channel: &str, secret: &str, kind: SecretKind) -> Result<(), ScanFull> {
        if secret.is_empty() {
            return Ok(());
        }
        let mut all = self.channels.lock().expect("scanner lock");
        let kept = all.entry(channel.to_string()).or_default();
        let known = |list: &[Forms]| list.iter().any(|s| s.secret.as_str() == secret);
        if known(&kept.passwords) || known(&kept.codes) {
            return Ok(());
        }
        let forms = Forms {
            secret: Zeroizing::new(secret.to_string()),
            forms: forms(secret),
        };
        match kind {
            SecretKind::Password if kept.passwords.len() >= MAX_PASSWORDS => return Err(ScanFull),
            SecretKind::Password => kept.passwords.push(forms),
            SecretKind::Code => {
                if kept.codes.len() >= MAX_CODES {
                    kept.codes.remove(0);
                }
                kept.codes.push(forms);
            }
        }
        kept.rebuild();
        Ok(())
    }

    /// `text` with every filled secret of `channel` replaced by [`MARK`]; `None` when there
    /// was none in it.
    pub fn scrub(&self, channel: &str, text: &str) -> Option<String> {
        let all = self.channels.lock().expect("scanner lock");
        let kept = all.get(channel)?;
        let found = matches(kept, text.as_bytes());
        if found.is_empty() {
            return None;
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (start, end) in found {
            out.push_str(&text[at..start]);
            out.push_str(MARK);
            at = end;
        }
        out.push_str(&text[at..]);
        Some(out)
    }

    /// Forgets a channel's secrets (the channel was deleted or its profile reset).
    pub fn forget(&self, channel: &str) {
        self.channels.lock().expect("scanner lock").remove(channel);
    }
}

/// The spans of `text` holding a form, left to right, the longest form at each place, none
/// overlapping. Spans always fall on character boundaries (a form is whole UTF-8).
fn matches(kept: &Kept, text: &[u8]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let short: Vec<&Zeroizing<String>> = kept.all().filter(|f| f.len() < 4).collect();
    let mut i = 0;
    while i < text.len() {
        let window = text.get(i..i + 4);
        let candidate = match window {
            Some(w) => kept.filter.may_hold(w),
            None => false,
        } || !short.is_empty();
        if candidate {
            let rest = &text[i..];
            let longest = kept
                .all()
                .filter(|f| rest.starts_with(f.as_bytes()))
                .map(|f| f.len())
                .max();
            if let Some(len) = longest {
                found.push((i, i + len));
                i += len;
                continue;
            }
        }
        i += 1;
    }
    found
}

/// A bit set of hashed 4-byte prefixes: "no" is certain, "yes" is checked against the forms.
struct Filter {
    bits: Vec<u64>,
}

impl Default for Filter {
    fn default() -> Self {
        Self {
            bits: vec![0; 1 << (FILTER_BITS - 6)],
        }
    }
}

impl Filter {
    fn slot(window: &[u8]) -> usize {
        let word = u32::from_le_bytes([window[0], window[1], window[2], window[3]]);
        (word.wrapping_mul(0x9E37_79B1) >> (32 - FILTER_BITS)) as usize
    }

    fn add(&mut self, form: &[u8]) {
        if form.len() >= 4 {
            let slot = Self::slot(form);
            self.bits[slot / 64] |= 1 << (slot % 64);
        }
    }

    fn may_hold(&self, window: &[u8]) -> bool {
        let slot = Self::slot(window);
        self.bits[slot / 64] & (1 << (slot % 64)) != 0
    }
}

/// The forms `secret` is looked for in.
fn forms(secret: &str) -> Vec<Zeroizing<String>> {
    let mut out = vec![Zeroizing::new(secret.to_string())];
    let component = percent(
        secret,
        |b| b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b),
        false,
    );
    let form = percent(
        secret,
        |b| b.is_ascii_alphanumeric() || b"*-._".contains(&b),
        true,
    );
    for encoded in [component, form] {
        out.push(Zeroizing::new(encoded.to_ascii_lowercase_hex()));
        out.push(encoded);
    }
    let engines = [
        base64::engine::general_purpose::STANDARD,
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    for engine in engines {
        out.push(Zeroizing::new(engine.encode(secret.as_bytes())));
    }
    if let Ok(json) = serde_json::to_string(secret) {
        let json = Zeroizing::new(json);
        // Without its quotes: the secret inside a larger JSON string.
        out.push(Zeroizing::new(json[1..json.len() - 1].to_string()));
    }
    out.retain(|f| !f.is_empty());
    let mut unique: Vec<Zeroizing<String>> = Vec::with_capacity(out.len());
    for form in out {
        if !unique.iter().any(|u| u.as_str() == form.as_str()) {
            unique.push(form);
        }
    }
    unique
}

/// Percent-encodes every byte `keep` does not keep (`plus`: a space becomes `+`).
fn percent(secret: &str, keep: impl Fn(u8) -> bool, plus: bool) -> Zeroizing<String> {
    let mut out = Zeroizing::new(String::with_capacity(secret.len() * 3));
    for b in secret.bytes() {
        if keep(b) {
            out.push(b as char);
        } else if plus && b == b' ' {
            out.push('+');
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The lower-case-hex spelling of a percent-encoded text.
trait LowerHex {
    fn to_ascii_lowercase_hex(&self) -> String;
}

impl LowerHex for Zeroizing<String> {
    fn to_ascii_lowercase_hex(&self) -> String {
        let mut out = String::with_capacity(self.len());
        let mut rest = self.as_str();
        while let Some(i) = rest.find('%') {
            out.push_str(&rest[..i]);
            let code = rest.get(i..i + 3).unwrap_or(&rest[i..]);
            out.push_str(&code.to_ascii_lowercase());
            rest = &rest[i + code.len()..];
        }
        out.push_str(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_of_a_filled_secret_is_replaced() {
        let scanner = Scanner::default();
        assert_eq!(scanner.scrub("c", "nothing yet"), None);
        let secret = "s3cr3t P@ss/\"x\"é";
        scanner.remember("c", secret, SecretKind::Password).unwrap();
        let b64 = base64::engine::general_purpose::STANDARD.encode(secret);
        let url_safe = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(secret);
        let json = serde_json::to_string(secret).unwrap();
        let texts = [
            format!("value: {secret}."),
            "GET /echo?v=s3cr3t%20P%40ss%2F%22x%22%C3%A9 HTTP".to_string(),
            "q=s3cr3t+P%40ss%2F%22x%22%C3%A9".to_string(),
            "q=s3cr3t%20P%40ss%2f%22x%22%c3%a9".to_string(),
            format!("b64 {b64} and {url_safe}"),
            format!("{{\"typed\":{json}}}"),
            format!("é{secret}{secret}é at the ends"),
        ];
        for text in texts {
            let scrubbed = scanner
                .scrub("c", &text)
                .unwrap_or_else(|| panic!("{text}"));
            assert!(scrubbed.contains(MARK), "{scrubbed}");
            assert!(!scrubbed.contains("s3cr3t"), "{scrubbed}");
            assert!(
                !scrubbed.contains(&b64) && !scrubbed.contains(&url_safe),
                "{scrubbed}"
            );
        }
        assert_eq!(
            scanner.scrub("c", &format!("é{secret}{secret}é")).unwrap(),
            "é[secret][secret]é"
        );
        assert_eq!(scanner.scrub("other", secret), None, "per channel");
        scanner.forget("c");
        assert_eq!(scanner.scrub("c", secret), None);
    }

    #[test]
    fn a_short_secret_is_found_too() {
        let scanner = Scanner::default();
        scanner.remember("c", "ab", SecretKind::Password).unwrap();
        assert_eq!(scanner.scrub("c", "xxabyy").unwrap(), "xx[secret]yy");
        assert_eq!(scanner.scrub("c", "xxayy"), None);
    }

    /// V12: codes never push a password out, and past the cap a password is refused, never
    /// one forgotten.
    #[test]
    fn codes_never_push_a_password_out_and_a_full_channel_refuses() {
        let scanner = Scanner::default();
        scanner
            .remember("c", "Hunter2!xyz", SecretKind::Password)
            .unwrap();
        for code in 0..400 {
            let code = format!("{:06}", 100_000 + code);
            scanner.remember("c", &code, SecretKind::Code).unwrap();
        }
        assert_eq!(
            scanner.scrub("c", "pw Hunter2!xyz").as_deref(),
            Some("pw [secret]"),
            "the password is still watched after 400 codes"
        );
        assert_eq!(
            scanner.scrub("c", "newest 100399").as_deref(),
            Some("newest [secret]")
        );
        assert_eq!(
            scanner.scrub("c", "oldest 100000"),
            None,
            "expired codes go"
        );
        for n in 1..MAX_PASSWORDS {
            scanner
                .remember("c", &format!("password-{n}"), SecretKind::Password)
                .unwrap();
        }
        assert_eq!(
            scanner.remember("c", "one-too-many", SecretKind::Password),
            Err(ScanFull)
        );
        assert_eq!(
            scanner.remember("c", "password-7", SecretKind::Password),
            Ok(()),
            "a password kept already is no new one"
        );
        assert!(scanner.scrub("c", "Hunter2!xyz").is_some());
        assert!(scanner.scrub("c", "password-1").is_some());
        assert_eq!(scanner.scrub("c", "one-too-many"), None);
        assert_eq!(
            scanner.remember("other", "one-too-many", SecretKind::Password),
            Ok(()),
            "another channel has its own room"
        );
    }
}
