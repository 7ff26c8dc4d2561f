//! One-time codes (RFC 6238): a seed and its parameters read from an entry — an `otpauth://`
//! URI (KeePassXC's `otp` attribute, pass-otp's line) or KeePassXC's older `TOTP Seed` /
//! `TOTP Settings` pair — and the code at a given time, computed with `totp-rs`.
//!
//! The seed is held in [`Zeroizing`] bytes and wiped when the [`TotpSpec`] drops; a code is
//! made only at fill time and never kept.

use std::time::{SystemTime, UNIX_EPOCH};

use totp_rs::{Algorithm, Builder, Secret};
use zeroize::Zeroizing;

/// Why an entry's TOTP setting cannot be used (never quotes the seed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TotpError {
    #[error("the one-time code setting is not an otpauth://totp/ URI")]
    NotTotpUri,
    #[error("the one-time code seed is not valid base32")]
    BadSeed,
    #[error("the one-time code has {0} digits; 6 to 8 are supported")]
    Digits(u32),
    #[error("the one-time code period {0} is not a whole number of seconds from 1 to 3600")]
    Period(String),
    #[error("the one-time code algorithm {0:?} is not SHA1, SHA256 or SHA512")]
    Algorithm(String),
}

/// A TOTP seed and its parameters.
pub struct TotpSpec {
    seed: Zeroizing<Vec<u8>>,
    pub algorithm: Algorithm,
    pub digits: u32,
    pub period: u64,
}

impl std::fmt::Debug for TotpSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TotpSpec")
            .field("seed", &"[secret]")
            .field("digits", &self.digits)
            .field("period", &self.period)
            .finish()
    }
}

impl TotpSpec {
    /// From raw seed bytes (RFC test vectors; parsed settings).
    pub fn new(
        seed: Vec<u8>,
        algorithm: Algorithm,
        digits: u32,
        period: u64,
    ) -> Result<Self, TotpError> {
        if !(6..=8).contains(&digits) {
            return Err(TotpError::Digits(digits));
        }
        if !(1..=3600).contains(&period) {
            return Err(TotpError::Period(period.to_string()));
        }
        if seed.is_empty() {
            return Err(TotpError::BadSeed);
        }
        Ok(Self {
            seed: Zeroizing::new(seed),
            algorithm,
            digits,
            period,
        })
    }

    /// `otpauth://totp/Label?secret=…&algorithm=…&digits=…&period=…`.
    pub fn from_uri(uri: &str) -> Result<Self, TotpError> {
        let parsed = url::Url::parse(uri.trim()).map_err(|_| TotpError::NotTotpUri)?;
        if parsed.scheme() != "otpauth" || parsed.host_str() != Some("totp") {
            return Err(TotpError::NotTotpUri);
        }
        let (mut seed, mut algorithm, mut digits, mut period) = (None, Algorithm::SHA1, 6, 30);
        for (key, value) in parsed.query_pairs() {
            match key.to_ascii_lowercase().as_str() {
                "secret" => seed = Some(base32(&value)?),
                "algorithm" => algorithm = parse_algorithm(&value)?,
                "digits" => digits = value.parse().map_err(|_| TotpError::Digits(0))?,
                "period" => {
                    period = value
                        .parse()
                        .map_err(|_| TotpError::Period(value.to_string()))?
                }
                _ => {}
            }
        }
        Self::new(
            seed.ok_or(TotpError::BadSeed)?.to_vec(),
            algorithm,
            digits,
            period,
        )
    }

    /// KeePassXC's legacy attributes: `TOTP Seed` (base32) and `TOTP Settings`
    /// (`period;digits` with an optional `;algorithm`; `S` for digits is Steam, unsupported).
    pub fn from_seed_settings(seed: &str, settings: Option<&str>) -> Result<Self, TotpError> {
        let seed = base32(seed)?;
        let (mut period, mut digits, mut algorithm) = (30, 6, Algorithm::SHA1);
        if let Some(settings) = settings {
            let parts: Vec<&str> = settings.split(';').map(str::trim).collect();
            if let Some(p) = parts.first().filter(|p| !p.is_empty()) {
                period = p.parse().map_err(|_| TotpError::Period(p.to_string()))?;
            }
            if let Some(d) = parts.get(1).filter(|d| !d.is_empty()) {
                digits = d.parse().map_err(|_| TotpError::Digits(0))?;
            }
            if let Some(a) = parts.get(2).filter(|a| !a.is_empty()) {
                algorithm = parse_algorithm(a)?;
            }
        }
        Self::new(seed.to_vec(), algorithm, digits, period)
    }

    /// The code at Unix time `unix_secs`.
    pub fn code_at(&self, unix_secs: u64) -> Zeroizing<String> {
        let totp = Builder::new()
            .with_algorithm(self.algorithm)
            .with_digits(self.digits as u8)
            .with_step_duration(self.period)
            .with_secret(Secret::from(self.seed.to_vec()))
            .build_noncompliant();
        Zeroizing::new(totp.generate(unix_secs).to_string())
    }

    /// The code now.
    pub fn code_now(&self) -> Zeroizing<String> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_default();
        self.code_at(now)
    }
}

fn parse_algorithm(name: &str) -> Result<Algorithm, TotpError> {
    match name.trim().to_ascii_uppercase().replace('-', "").as_str() {
        "SHA1" => Ok(Algorithm::SHA1),
        "SHA256" => Ok(Algorithm::SHA256),
        "SHA512" => Ok(Algorithm::SHA512),
        _ => Err(TotpError::Algorithm(name.chars().take(16).collect())),
    }
}

/// Base32 (RFC 4648) as seeds are written: any case, spaces and `=` padding allowed.
fn base32(text: &str) -> Result<Zeroizing<Vec<u8>>, TotpError> {
    let clean: Zeroizing<String> = Zeroizing::new(
        text.chars()
            .filter(|c| !c.is_whitespace() && *c != '=' && *c != '-')
            .map(|c| c.to_ascii_uppercase())
            .collect(),
    );
    let secret = Secret::try_from_base32(clean.as_str()).map_err(|_| TotpError::BadSeed)?;
    let bytes = Zeroizing::new(secret.as_bytes().to_vec());
    if bytes.is_empty() {
        return Err(TotpError::BadSeed);
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238 appendix B: the seeds are "12345678901234567890" repeated to the hash's size.
    fn rfc_seed(len: usize) -> Vec<u8> {
        b"1234567890".iter().copied().cycle().take(len).collect()
    }

    #[test]
    fn rfc_6238_test_vectors() {
        let table: [(u64, &str, &str, &str); 6] = [
            (59, "94287082", "46119246", "90693936"),
            (1111111109, "07081804", "68084774", "25091201"),
            (1111111111, "14050471", "67062674", "99943326"),
            (1234567890, "89005924", "91819424", "93441116"),
            (2000000000, "69279037", "90698825", "38618901"),
            (20000000000, "65353130", "77737706", "47863826"),
        ];
        for (time, sha1, sha256, sha512) in table {
            for (algorithm, len, expected) in [
                (Algorithm::SHA1, 20, sha1),
                (Algorithm::SHA256, 32, sha256),
                (Algorithm::SHA512, 64, sha512),
            ] {
                let spec = TotpSpec::new(rfc_seed(len), algorithm, 8, 30).unwrap();
                assert_eq!(
                    spec.code_at(time).as_str(),
                    expected,
                    "{algorithm:?} at {time}"
                );
            }
        }
    }

    #[test]
    fn otpauth_uris_and_keepassxc_settings() {
        // "12345678901234567890" in base32.
        let seed = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
        let spec = TotpSpec::from_uri(&format!(
            "otpauth://totp/Site:me?secret={}&issuer=Site",
            seed.to_lowercase()
        ))
        .unwrap();
        assert_eq!((spec.digits, spec.period), (6, 30));
        assert_eq!(spec.code_at(59).as_str(), "287082");
        let spec = TotpSpec::from_uri(&format!(
            "otpauth://totp/x?secret={seed}&digits=8&period=60&algorithm=SHA1"
        ))
        .unwrap();
        // Period 60: time 119 is step 1, as time 59 is at period 30.
        assert_eq!(spec.code_at(119).as_str(), "94287082");
        let legacy = TotpSpec::from_seed_settings(seed, Some("30;8")).unwrap();
        assert_eq!(legacy.code_at(59).as_str(), "94287082");
        let legacy = TotpSpec::from_seed_settings(&format!("{seed}===="), None).unwrap();
        assert_eq!(legacy.code_at(59).as_str(), "287082");
        assert_eq!(
            TotpSpec::from_uri("otpauth://hotp/x?secret=GEZA").unwrap_err(),
            TotpError::NotTotpUri
        );
        assert_eq!(
            TotpSpec::from_uri(&format!("otpauth://totp/x?secret={seed}&digits=9")).unwrap_err(),
            TotpError::Digits(9)
        );
        assert_eq!(
            TotpSpec::from_uri("otpauth://totp/x?secret=!!").unwrap_err(),
            TotpError::BadSeed
        );
        assert!(TotpSpec::from_seed_settings(seed, Some("30;S")).is_err());
        assert!(!format!("{legacy:?}").contains("GEZ"));
    }
}
