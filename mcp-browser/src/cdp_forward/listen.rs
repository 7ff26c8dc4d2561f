//! Who may use the forwarder: it listens only on a loopback address (anything that can reach
//! the port drives the agent's browser with its token), and it answers only requests whose
//! `Host` and `Origin` (when sent) are loopback, as Chrome's own debugging port does — a web
//! page the person visits cannot reach it by DNS rebinding or a cross-site WebSocket.

use std::net::SocketAddr;

/// The `--listen` address is not a loopback `ip:port`.
#[derive(Debug, thiserror::Error)]
pub enum ListenError {
    #[error("--listen {0} is not an ip:port (use a loopback address such as 127.0.0.1:9222)")]
    NotAnAddress(String),
    #[error(
        "--listen {0} is not a loopback address: the forwarder hands the agent's browser to \
         whoever reaches the port, so it listens only on 127.0.0.1 or [::1] (such as \
         127.0.0.1:9222)"
    )]
    NotLoopback(String),
}

/// `given` as a loopback socket address, or why not.
pub fn loopback_listen(given: &str) -> Result<SocketAddr, ListenError> {
    let addr: SocketAddr = given
        .parse()
        .map_err(|_| ListenError::NotAnAddress(given.to_string()))?;
    if !addr.ip().is_loopback() {
        return Err(ListenError::NotLoopback(given.to_string()));
    }
    Ok(addr)
}

/// Whether a `Host` header (`host[:port]`) names this machine's loopback.
pub(super) fn loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Whether an `Origin` header is a loopback page's (`http://127.0.0.1:…`, `http://localhost`).
pub(super) fn loopback_origin(origin: &str) -> bool {
    origin
        .split_once("://")
        .is_some_and(|(_, host)| loopback_host(host.trim_end_matches('/')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_listens() {
        assert!(loopback_listen("127.0.0.1:9222").is_ok());
        assert!(loopback_listen("[::1]:9222").is_ok());
        assert!(matches!(
            loopback_listen("0.0.0.0:9222"),
            Err(ListenError::NotLoopback(_))
        ));
        assert!(matches!(
            loopback_listen("192.168.1.5:9222"),
            Err(ListenError::NotLoopback(_))
        ));
        assert!(matches!(
            loopback_listen("localhost"),
            Err(ListenError::NotAnAddress(_))
        ));
    }

    #[test]
    fn hosts_and_origins() {
        for ok in [
            "127.0.0.1:9222",
            "localhost:9222",
            "[::1]:9222",
            "localhost",
        ] {
            assert!(loopback_host(ok), "{ok}");
        }
        for bad in ["evil.example:9222", "10.0.0.1:9222", "evil.example"] {
            assert!(!loopback_host(bad), "{bad}");
        }
        assert!(loopback_origin("http://127.0.0.1:9222"));
        assert!(!loopback_origin("https://evil.example"));
        assert!(!loopback_origin("null"));
    }
}
