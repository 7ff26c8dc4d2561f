//! The connection to the Docker engine and the errors of talking to it.

use std::path::Path;
use std::time::Duration;

use bollard::Docker;

use crate::config::{DockerConfig, TlsFiles};
use crate::providers::{Detail, ProviderError};

/// A failed Docker step, with what was being done.
#[derive(Debug, thiserror::Error)]
pub enum DockerError {
    /// The engine could not be reached at all (`detail`, the connection error, is for the log;
    /// `at` names the engine, e.g. " at tcp://10.0.0.5:2376", or is empty).
    #[error("the Docker engine{at} does not answer; start it (scripts/setup/docker.sh for this machine's), fix browser.docker.host, or use local mode")]
    Unreachable { at: String, detail: String },
    /// The engine answered with an error; its answer is the source, for the log only.
    #[error("Docker could not {action}; the daemon's log has the engine's answer")]
    Engine {
        action: String,
        #[source]
        source: bollard::errors::Error,
    },
    /// The sidecar image is not there (the engine's answer is the source).
    #[error("the sidecar image {image} is not there; build it with `porthole docker-build` (or POST /api/browser/image/build)")]
    ImageMissing {
        image: String,
        #[source]
        source: bollard::errors::Error,
    },
    /// An image build failed; `output` (the engine's message and the last build lines) is for
    /// the log only.
    #[error("building the sidecar image {image} failed; the daemon's log has the build output")]
    BuildFailed { image: String, output: String },
    /// A step did not finish in time.
    #[error("Docker did not {action} within {after:?}")]
    Timeout { action: String, after: Duration },
    /// Something the user configured or the engine holds is not usable; says what to do.
    #[error("{0}")]
    Invalid(String),
    /// The sidecar started but never became ready.
    #[error("{0}")]
    NotReady(String),
}

impl DockerError {
    /// The engine's own words (its answer, the connection error, the build output), for the
    /// log only.
    pub(crate) fn detail(&self) -> Option<String> {
        match self {
            DockerError::Unreachable { detail, .. } => Some(detail.clone()),
            DockerError::BuildFailed { output, .. } => Some(output.clone()),
            DockerError::Engine { source, .. } | DockerError::ImageMissing { source, .. } => {
                Some(source.to_string())
            }
            DockerError::Timeout { .. } | DockerError::Invalid(_) | DockerError::NotReady(_) => {
                None
            }
        }
    }

    pub fn engine(action: impl Into<String>, source: bollard::errors::Error) -> Self {
        let action = action.into();
        if is_connection_error(&source) {
            return DockerError::Unreachable {
                at: String::new(),
                detail: format!("{action}: {}", error_chain(&source)),
            };
        }
        DockerError::Engine { action, source }
    }
}

/// True for an engine answer "404 no such …".
pub(crate) fn is_not_found(error: &bollard::errors::Error) -> bool {
    matches!(
        error,
        bollard::errors::Error::DockerResponseServerError {
            status_code: 404,
            ..
        }
    )
}

/// True for an engine answer "409 conflict" (name taken, removal already in progress …).
pub(crate) fn is_conflict(error: &bollard::errors::Error) -> bool {
    matches!(
        error,
        bollard::errors::Error::DockerResponseServerError {
            status_code: 409,
            ..
        }
    )
}

fn is_connection_error(error: &bollard::errors::Error) -> bool {
    use bollard::errors::Error as E;
    matches!(
        error,
        E::HyperResponseError { .. }
            | E::HyperLegacyError { .. }
            | E::IOError { .. }
            | E::SocketNotFoundError(_)
    ) || matches!(error, E::RequestTimeoutError)
}

impl From<DockerError> for ProviderError {
    fn from(error: DockerError) -> Self {
        let message = error.to_string();
        match error {
            DockerError::Unreachable { detail, .. } => {
                ProviderError::unavailable(message).caused_by(Detail(detail))
            }
            DockerError::BuildFailed { output, .. } => {
                ProviderError::failed(message).caused_by(Detail(output))
            }
            error => ProviderError::failed(message).caused_by(error),
        }
    }
}

/// Which engine to talk to and how, resolved from `browser.docker` and the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineTarget {
    /// The address as configured (`unix:///…`, `tcp://…`, `ssh://…`), for messages.
    pub host: String,
    pub kind: EngineKind,
}

/// How the engine is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineKind {
    /// A unix socket on this machine.
    Unix,
    /// TCP with mutual TLS.
    Tls(TlsFiles),
    /// TCP in clear text: only ever to a loopback address.
    PlainTcp,
    /// SSH (the system `ssh` client, keys from the user's agent and config).
    Ssh,
}

impl EngineTarget {
    /// True when the engine runs on another machine as far as the daemon knows (anything but
    /// a unix socket): its published ports are not this machine's, so CDP goes by exec.
    pub(crate) fn is_remote(&self) -> bool {
        !matches!(self.kind, EngineKind::Unix)
    }

    /// The environment a `docker` CLI needs to reach this engine (for the fix commands we
    /// print), e.g. `DOCKER_HOST=tcp://… DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH=…`.
    pub(crate) fn cli_env(&self) -> String {
        let mut env = format!("DOCKER_HOST={}", self.host);
        if let EngineKind::Tls(files) = &self.kind {
            match files.ca.parent() {
                Some(dir)
                    if files.cert.parent() == Some(dir)
                        && files.key.parent() == Some(dir)
                        && files.ca.file_name() == Some("ca.pem".as_ref())
                        && files.cert.file_name() == Some("cert.pem".as_ref())
                        && files.key.file_name() == Some("key.pem".as_ref()) =>
                {
                    env.push_str(&format!(
                        " DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH={}",
                        dir.display()
                    ));
                }
                _ => env.push_str(&format!(
                    " DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH=<a directory with ca.pem, cert.pem and key.pem copied from {}, {}, {}>",
                    files.ca.display(),
                    files.cert.display(),
                    files.key.display()
                )),
            }
        }
        env
    }
}

const DEFAULT_SOCKET: &str = "unix:///var/run/docker.sock";

/// Resolves `browser.docker` (then `DOCKER_HOST`, `DOCKER_TLS_VERIFY`, `DOCKER_CERT_PATH`,
/// then the local socket) into an engine target; the TLS files are checked here so an error
/// names the file at fault.
pub(crate) fn resolve(config: &DockerConfig) -> Result<EngineTarget, DockerError> {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    resolve_with(config, env)
}

fn resolve_with(
    config: &DockerConfig,
    env: impl Fn(&str) -> Option<String>,
) -> Result<EngineTarget, DockerError> {
    let (host, from) = match (&config.host, env("DOCKER_HOST")) {
        (Some(host), _) => (host.trim().to_string(), "browser.docker.host"),
        (None, Some(host)) => (host, "DOCKER_HOST"),
        (None, None) => (DEFAULT_SOCKET.to_string(), "the default socket"),
    };
    let invalid = |reason: String| DockerError::Invalid(format!("{from} {host:?}: {reason}"));
    if let Some(path) = host.strip_prefix("unix://") {
        if path.is_empty() {
            return Err(invalid("names no socket path".to_string()));
        }
        return Ok(EngineTarget {
            host,
            kind: EngineKind::Unix,
        });
    }
    if host.starts_with("ssh://") {
        return Ok(EngineTarget {
            host,
            kind: EngineKind::Ssh,
        });
    }
    let Some(rest) = host.strip_prefix("tcp://") else {
        return Err(invalid(
            "is not a Docker engine address: use unix:///path, tcp://host:port or ssh://user@host"
                .to_string(),
        ));
    };
    let authority = rest.split('/').next().unwrap_or_default();
    let (name, port) = match authority.rsplit_once(':') {
        Some((name, port)) if port.parse::<u16>().is_ok() => (name, port),
        _ => return Err(invalid("needs a port, e.g. tcp://host:2376".to_string())),
    };
    let _ = port;
    let tls = match &config.tls {
        Some(files) => Some(files.clone()),
        None => match (env("DOCKER_TLS_VERIFY"), env("DOCKER_CERT_PATH")) {
            (Some(verify), _) if verify == "0" => None,
            (Some(_), Some(dir)) => Some(TlsFiles {
                ca: Path::new(&dir).join("ca.pem"),
                cert: Path::new(&dir).join("cert.pem"),
                key: Path::new(&dir).join("key.pem"),
            }),
            (Some(_), None) => {
                return Err(invalid(
                    "DOCKER_TLS_VERIFY is set but DOCKER_CERT_PATH is not; point it at the directory with ca.pem, cert.pem and key.pem, or set browser.docker.tls".to_string(),
                ))
            }
            (None, _) => None,
        },
    };
    match tls {
        Some(files) => {
            check_tls_files(&files)?;
            Ok(EngineTarget {
                host,
                kind: EngineKind::Tls(files),
            })
        }
        None => {
            let loopback = matches!(
                name.trim_matches(['[', ']']),
                "127.0.0.1" | "localhost" | "::1"
            );
            if !loopback {
                return Err(invalid(
                    "a tcp:// engine beyond loopback needs TLS, or the Docker API and every browser's CDP would cross the network in clear text; set browser.docker.tls {ca, cert, key} (or DOCKER_TLS_VERIFY=1 and DOCKER_CERT_PATH), or use ssh://".to_string(),
                ));
            }
            Ok(EngineTarget {
                host,
                kind: EngineKind::PlainTcp,
            })
        }
    }
}

/// Reads and parses each PEM file so a bad one is named (bollard reads the client key only
/// during the handshake, where its failure names nothing).
fn check_tls_files(files: &TlsFiles) -> Result<(), DockerError> {
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::{CertificateDer, PrivateKeyDer};
    let read = |key: &str, path: &Path| {
        std::fs::read(path).map_err(|e| {
            DockerError::Invalid(format!(
                "the TLS {key} file {} cannot be read: {e}; fix browser.docker.tls.{key} (or DOCKER_CERT_PATH)",
                path.display()
            ))
        })
    };
    let not_pem = |key: &str, path: &Path, what: &str| {
        DockerError::Invalid(format!(
            "the TLS {key} file {} holds no {what} in PEM form; fix browser.docker.tls.{key} (or DOCKER_CERT_PATH)",
            path.display()
        ))
    };
    let mut chains = Vec::new();
    for (key, path) in [("ca", &files.ca), ("cert", &files.cert)] {
        let bytes = read(key, path)?;
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&bytes)
            .collect::<Result<_, _>>()
            .map_err(|_| not_pem(key, path, "certificate"))?;
        if certs.is_empty() {
            return Err(not_pem(key, path, "certificate"));
        }
        chains.push(certs);
    }
    let certs = chains.pop().expect("the cert file's chain, read last");
    let bytes = read("key", &files.key)?;
    let key = PrivateKeyDer::from_pem_slice(&bytes)
        .map_err(|_| not_pem("key", &files.key, "private key"))?;
    // A key that is not the certificate's fails only inside the handshake, where the engine's
    // answer can be lost to a reset; compare the public keys here instead.
    let provider = rustls::crypto::ring::default_provider();
    if let Err(rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch)) =
        rustls::sign::CertifiedKey::from_der(certs, key, &provider)
    {
        return Err(DockerError::Invalid(key_mismatch(files)));
    }
    Ok(())
}

/// A TLS key that is not the TLS certificate's, for a person.
fn key_mismatch(files: &TlsFiles) -> String {
    format!(
        "the TLS key file {} does not belong to the TLS cert file {}; fix browser.docker.tls (or DOCKER_CERT_PATH)",
        files.key.display(),
        files.cert.display()
    )
}

/// Connects to the engine `browser.docker` names, negotiates the API version (the engine
/// here speaks 1.41) and pings it, all within `deadline`.
pub async fn connect(
    config: &DockerConfig,
    deadline: Duration,
) -> Result<(Docker, EngineTarget), DockerError> {
    let target = resolve(config)?;
    let docker = connect_to(&target, deadline).await?;
    Ok((docker, target))
}

/// Connects to a resolved engine target within `deadline`.
pub(crate) async fn connect_to(
    target: &EngineTarget,
    deadline: Duration,
) -> Result<Docker, DockerError> {
    const TIMEOUT_SECS: u64 = 120;
    let api = bollard::API_DEFAULT_VERSION;
    let unreachable = |detail: String| DockerError::Unreachable {
        at: format!(" at {}", target.host),
        detail: format!("{}: {detail}", target.host),
    };
    let docker = match &target.kind {
        EngineKind::Unix => Docker::connect_with_unix(&target.host, TIMEOUT_SECS, api),
        EngineKind::PlainTcp => Docker::connect_with_http(&target.host, TIMEOUT_SECS, api),
        EngineKind::Tls(files) => pooled_tls(&target.host, files, TIMEOUT_SECS, api),
        EngineKind::Ssh => Docker::connect_with_ssh(&target.host, TIMEOUT_SECS, api, None),
    }
    .map_err(|e| unreachable(e.to_string()))?;
    let failed = |e: bollard::errors::Error| {
        let detail = error_chain(&e);
        match &target.kind {
            EngineKind::Tls(files) => match tls_failure(&detail, files, &target.host) {
                Some(what) => DockerError::Invalid(format!("{what} ({detail})")),
                None => unreachable(detail),
            },
            _ => unreachable(detail),
        }
    };
    let ready = async {
        let docker = docker.negotiate_version().await.map_err(failed)?;
        docker.ping().await.map_err(failed)?;
        Ok::<_, DockerError>(docker)
    };
    match tokio::time::timeout(deadline, ready).await {
        Ok(result) => result,
        Err(_) => Err(unreachable(format!("no answer within {deadline:?}"))),
    }
}

/// How long an idle connection to a TLS engine is kept for the next request.
const POOL_IDLE: Duration = Duration::from_secs(60);

/// A client of the TLS engine at `host` (`tcp://…`) that keeps its connections: bollard's own
/// TLS transport opens a new one for every request (a TCP connect and a TLS handshake, two
/// round trips more to an engine far away); here a request takes an idle connection when
/// there is one. Attach and exec streams take theirs out of the pool (upgraded).
fn pooled_tls(
    host: &str,
    files: &TlsFiles,
    timeout: u64,
    api: &bollard::ClientVersion,
) -> Result<Docker, bollard::errors::Error> {
    use hyper_util::client::legacy::{connect::HttpConnector, Client};
    let config = tls_client_config(files).map_err(|reason| bollard::errors::Error::IOError {
        err: std::io::Error::other(reason),
    })?;
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_nodelay(true);
    let https = hyper_rustls::HttpsConnector::from((http, config));
    let client = std::sync::Arc::new(
        Client::builder(hyper_util::rt::TokioExecutor::new())
            .pool_idle_timeout(POOL_IDLE)
            .pool_timer(hyper_util::rt::TokioTimer::new())
            .build(https),
    );
    let address = host.replacen("tcp://", "https://", 1);
    Docker::connect_with_custom_transport(
        move |request: bollard::BollardRequest| {
            let client = client.clone();
            async move {
                client
                    .request(request)
                    .await
                    .map_err(bollard::errors::Error::from)
            }
        },
        Some(address),
        timeout,
        api,
    )
}

/// The TLS client settings of `files`: the engine's CA, the client certificate and key (ring,
/// as bollard's own transport).
fn tls_client_config(files: &TlsFiles) -> Result<rustls::ClientConfig, String> {
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::{CertificateDer, PrivateKeyDer};
    let read = |path: &Path| std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()));
    let certs = |path: &Path| -> Result<Vec<CertificateDer<'static>>, String> {
        CertificateDer::pem_slice_iter(&read(path)?)
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    let mut roots = rustls::RootCertStore::empty();
    roots.add_parsable_certificates(certs(&files.ca)?);
    let key = PrivateKeyDer::from_pem_slice(&read(&files.key)?)
        .map_err(|e| format!("{}: {e}", files.key.display()))?;
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_client_auth_cert(certs(&files.cert)?, key)
        .map_err(|e| e.to_string())
}

/// Which TLS file a failed handshake points at, for a person; `None` when it was not TLS.
fn tls_failure(detail: &str, files: &TlsFiles, host: &str) -> Option<String> {
    let fix = "fix browser.docker.tls (or DOCKER_CERT_PATH)";
    if detail.contains("invalid peer certificate") {
        if detail.contains("NotValidForName") {
            return Some(format!(
                "the engine's TLS certificate is not valid for the name in {host}; use the name or address its certificate was made for"
            ));
        }
        return Some(format!(
            "the engine's TLS certificate is not signed by the CA in {} (the TLS ca file); {fix}",
            files.ca.display()
        ));
    }
    if detail.contains("DecryptError") {
        return Some(key_mismatch(files));
    }
    let refused = [
        "BadCertificate",
        "CertificateRequired",
        "UnknownCA",
        "CertificateUnknown",
    ];
    if refused.iter().any(|alert| detail.contains(alert)) {
        return Some(format!(
            "the engine refused the client certificate in {} (the TLS cert file: not signed by a CA the engine trusts); {fix}",
            files.cert.display()
        ));
    }
    // With TLS 1.3 the engine judges the client certificate after the client's side of the
    // handshake is done, and may close the connection before its alert is read: a connection
    // that is reset or closed unanswered (not refused) is that.
    let cut_off = [
        "Connection reset by peer",
        "connection closed before message completed",
        "unexpected EOF",
        "close_notify",
    ];
    if cut_off.iter().any(|text| detail.contains(text)) {
        return Some(format!(
            "the engine closed the TLS connection without answering: it most likely refused the client certificate in {} (the TLS cert file: not signed by a CA the engine trusts); {fix}",
            files.cert.display()
        ));
    }
    None
}

/// An error with its sources (TLS failures hide the reason two levels down).
pub(crate) fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn resolve_in(
        config: &DockerConfig,
        env: &[(&str, &str)],
    ) -> Result<EngineTarget, DockerError> {
        let env: HashMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        resolve_with(config, |name| env.get(name).cloned())
    }

    fn host(host: &str) -> DockerConfig {
        DockerConfig {
            host: Some(host.to_string()),
            ..Default::default()
        }
    }

    fn pem_dir() -> tempfile::TempDir {
        // A self-signed certificate and key are enough for the PEM checks.
        let dir = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("openssl")
            .args([
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            ])
            .args(["-subj", "/CN=test", "-keyout"])
            .arg(dir.path().join("key.pem"))
            .arg("-out")
            .arg(dir.path().join("cert.pem"))
            .stderr(std::process::Stdio::null())
            .status()
            .expect("openssl runs");
        assert!(status.success());
        std::fs::copy(dir.path().join("cert.pem"), dir.path().join("ca.pem")).unwrap();
        dir
    }

    #[test]
    fn defaults_follow_docker_host_then_the_local_socket() {
        let target = resolve_in(&DockerConfig::default(), &[]).unwrap();
        assert_eq!(target.host, DEFAULT_SOCKET);
        assert!(!target.is_remote());
        let target = resolve_in(
            &DockerConfig::default(),
            &[("DOCKER_HOST", "unix:///x.sock")],
        )
        .unwrap();
        assert_eq!(target.host, "unix:///x.sock");
        let target =
            resolve_in(&host("tcp://127.0.0.1:1"), &[("DOCKER_HOST", "unix:///x")]).unwrap();
        assert_eq!(target.kind, EngineKind::PlainTcp);
        assert!(target.is_remote());
        assert_eq!(
            resolve_in(&host("ssh://me@box"), &[]).unwrap().kind,
            EngineKind::Ssh
        );
    }

    #[test]
    fn bad_addresses_and_clear_text_beyond_loopback_are_refused() {
        let error = resolve_in(&host("http://box:2375"), &[])
            .unwrap_err()
            .to_string();
        assert!(error.contains("browser.docker.host"), "{error}");
        let error = resolve_in(&host("tcp://box"), &[]).unwrap_err().to_string();
        assert!(error.contains("port"), "{error}");
        let error = resolve_in(&host("tcp://10.0.0.5:2375"), &[])
            .unwrap_err()
            .to_string();
        assert!(error.contains("clear text"), "{error}");
        let error = resolve_in(&host("tcp://box:2376"), &[("DOCKER_TLS_VERIFY", "1")])
            .unwrap_err()
            .to_string();
        assert!(error.contains("DOCKER_CERT_PATH"), "{error}");
    }

    #[test]
    fn tls_files_come_from_config_or_env_and_a_bad_one_is_named() {
        let dir = pem_dir();
        let env_dir = dir.path().to_str().unwrap();
        let target = resolve_in(
            &host("tcp://box:2376"),
            &[("DOCKER_TLS_VERIFY", "1"), ("DOCKER_CERT_PATH", env_dir)],
        )
        .unwrap();
        let EngineKind::Tls(files) = &target.kind else {
            panic!("tls expected: {target:?}");
        };
        assert_eq!(files.key, dir.path().join("key.pem"));
        assert!(
            target
                .cli_env()
                .contains(&format!("DOCKER_CERT_PATH={env_dir}")),
            "{}",
            target.cli_env()
        );
        let files = TlsFiles {
            ca: dir.path().join("ca.pem"),
            cert: dir.path().join("cert.pem"),
            key: dir.path().join("cert.pem"),
        };
        let config = DockerConfig {
            host: Some("tcp://box:2376".to_string()),
            tls: Some(files),
            ..Default::default()
        };
        let error = resolve_in(&config, &[]).unwrap_err().to_string();
        assert!(error.contains("TLS key file"), "{error}");
        assert!(error.contains("cert.pem"), "{error}");
        let missing = dir.path().join("nope.pem");
        let config = DockerConfig {
            tls: Some(TlsFiles {
                ca: missing.clone(),
                cert: dir.path().join("cert.pem"),
                key: dir.path().join("key.pem"),
            }),
            ..config
        };
        let error = resolve_in(&config, &[]).unwrap_err().to_string();
        assert!(error.contains(&missing.display().to_string()), "{error}");
        assert!(error.contains("TLS ca file"), "{error}");
    }
}
