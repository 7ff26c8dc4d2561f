//! The sidecar's configuration: its command line and environment, read into a [`Config`] or
//! refused with a [`ConfigError`] that names the setting.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::http;

/// Everything the sidecar is told, from its arguments and environment.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Config {
    pub(crate) secret: String,
    pub(crate) listen: SocketAddr,
    pub(crate) chromium: PathBuf,
    pub(crate) stop_grace: Duration,
    pub(crate) chrome_args: Vec<String>,
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Invocation {
    Run(Config),
    Help,
    Version,
    /// `cdp-pipe`: relay CDP between stdin/stdout and Chrome (see `pipe`).
    CdpPipe,
}

/// Reads the configuration from `args` (without argv[0]) and an environment lookup.
pub(crate) fn parse_config(
    args: &[String],
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Invocation, ConfigError> {
    let chrome_args = match args.first().map(String::as_str) {
        None => Vec::new(),
        Some("--") => args[1..].to_vec(),
        Some("-h") | Some("--help") => return Ok(Invocation::Help),
        Some("-V") | Some("--version") => return Ok(Invocation::Version),
        Some("cdp-pipe") => return Ok(Invocation::CdpPipe),
        Some(other) => return Err(ConfigError::UnexpectedArgument(other.to_string())),
    };
    let secret = env("PORTHOLE_SECRET").unwrap_or_default();
    if secret.is_empty() {
        return Err(ConfigError::NoSecret);
    }
    if !http::valid_secret(&secret) {
        return Err(ConfigError::BadSecret);
    }
    let listen = env("PORTHOLE_LISTEN").unwrap_or_else(|| "0.0.0.0:9222".into());
    let listen: SocketAddr = listen
        .parse()
        .map_err(|_| ConfigError::BadListen(listen.clone()))?;
    let stop_grace = match env("PORTHOLE_STOP_GRACE_SECS") {
        None => Duration::from_secs(8),
        Some(s) => Duration::from_secs(
            s.parse::<u64>()
                .map_err(|_| ConfigError::BadStopGrace(s.clone()))?,
        ),
    };
    let chromium =
        PathBuf::from(env("PORTHOLE_CHROMIUM").unwrap_or_else(|| "/usr/bin/chromium".into()));
    Ok(Invocation::Run(Config {
        secret,
        listen,
        chromium,
        stop_grace,
        chrome_args,
    }))
}

/// A command line or environment the sidecar refuses; the message names the setting.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ConfigError {
    /// An argument before `--`.
    UnexpectedArgument(String),
    NoSecret,
    BadSecret,
    /// `PORTHOLE_LISTEN` as given.
    BadListen(String),
    /// `PORTHOLE_STOP_GRACE_SECS` as given.
    BadStopGrace(String),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::UnexpectedArgument(other) => write!(
                f,
                "unexpected argument {other:?}: Chromium arguments go after `--`"
            ),
            ConfigError::NoSecret => {
                f.write_str("PORTHOLE_SECRET is not set: the daemon passes a per-container secret")
            }
            ConfigError::BadSecret => {
                f.write_str("PORTHOLE_SECRET must be 1-256 characters of A-Z a-z 0-9 - . _ ~")
            }
            ConfigError::BadListen(listen) => write!(
                f,
                "PORTHOLE_LISTEN {listen:?} is not an address like 0.0.0.0:9222"
            ),
            ConfigError::BadStopGrace(s) => write!(
                f,
                "PORTHOLE_STOP_GRACE_SECS {s:?} is not a number of seconds"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn parse(args: &[&str], env: &[(&str, &str)]) -> Result<Invocation, ConfigError> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let env: HashMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        parse_config(&args, &|k| env.get(k).cloned())
    }

    #[test]
    fn defaults_and_chrome_args_after_double_dash() {
        let got = parse(
            &["--", "--window-size=800,600", "--"],
            &[("PORTHOLE_SECRET", "s3cret")],
        );
        assert_eq!(
            got,
            Ok(Invocation::Run(Config {
                secret: "s3cret".into(),
                listen: "0.0.0.0:9222".parse().unwrap(),
                chromium: "/usr/bin/chromium".into(),
                stop_grace: Duration::from_secs(8),
                chrome_args: vec!["--window-size=800,600".into(), "--".into()],
            }))
        );
    }

    #[test]
    fn env_overrides() {
        let env = [
            ("PORTHOLE_SECRET", "abc"),
            ("PORTHOLE_LISTEN", "127.0.0.1:0"),
            ("PORTHOLE_CHROMIUM", "/opt/chrome"),
            ("PORTHOLE_STOP_GRACE_SECS", "2"),
        ];
        match parse(&[], &env) {
            Ok(Invocation::Run(c)) => {
                assert_eq!(c.listen, "127.0.0.1:0".parse().unwrap());
                assert_eq!(c.chromium, PathBuf::from("/opt/chrome"));
                assert_eq!(c.stop_grace, Duration::from_secs(2));
                assert!(c.chrome_args.is_empty());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn refuses_bad_configuration() {
        assert!(parse(&["--"], &[])
            .unwrap_err()
            .to_string()
            .contains("PORTHOLE_SECRET"));
        assert!(parse(&[], &[("PORTHOLE_SECRET", "a/b")]).is_err());
        assert!(parse(&["--window-size=1,1"], &[("PORTHOLE_SECRET", "s")])
            .unwrap_err()
            .to_string()
            .contains("after `--`"));
        let s = ("PORTHOLE_SECRET", "s");
        assert!(parse(&[], &[s, ("PORTHOLE_LISTEN", "nope")]).is_err());
        assert!(parse(&[], &[s, ("PORTHOLE_STOP_GRACE_SECS", "soon")]).is_err());
    }

    #[test]
    fn help_and_version() {
        assert_eq!(parse(&["--help"], &[]), Ok(Invocation::Help));
        assert_eq!(parse(&["-V"], &[]), Ok(Invocation::Version));
    }
}
