//! What `porthole agent add` prints: the token (once, or where it was written), the agent's
//! CDP door URL on the daemon's listen address (DESIGN.md §21), and the `docker run` flags
//! that hand an agent container the agent socket and its token.

use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::NewAgent;

/// Where the socket's directory is mounted inside agent containers.
pub(crate) const CONTAINER_SOCKET_DIR: &str = "/run/porthole";
/// Where a token file is mounted inside agent containers.
pub(crate) const CONTAINER_TOKEN_FILE: &str = "/run/porthole-token";

/// The text `porthole agent add` prints; writes the token to `token_file` (0600) when given.
pub fn added(
    new: &NewAgent,
    socket: Option<&Path>,
    token_file: Option<&Path>,
    listen: std::net::SocketAddr,
) -> std::io::Result<String> {
    let id = &new.identity;
    let mut out = format!(
        "Added agent {} ({:?}) on channel {}.\n",
        id.agent_id, id.name, id.channel_id
    );
    if id.allow_host_mode {
        out.push_str(
            "It may act while the channel is in host mode (your own Chrome): allow_host_mode.\n",
        );
    }
    let token_flags = match token_file {
        Some(path) => {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(path)?;
            file.write_all(new.token.as_bytes())?;
            out.push_str(&format!(
                "Its token is in {} (mode 0600).\n",
                path.display()
            ));
            format!(
                "-v {}:{CONTAINER_TOKEN_FILE}:ro -e PORTHOLE_TOKEN_FILE={CONTAINER_TOKEN_FILE}",
                path.display()
            )
        }
        None => {
            out.push_str(&format!(
                "Token (shown once; only its hash is kept):\n  {}\n",
                new.token
            ));
            "-e PORTHOLE_TOKEN=<the token above>".to_string()
        }
    };
    out.push_str(&cdp_door(listen, token_file.map(|_| "$(cat <token file>)")));
    let mcp_token = if token_file.is_some() {
        format!("--token-file {CONTAINER_TOKEN_FILE}")
    } else {
        String::new()
    };
    match socket.and_then(Path::parent) {
        Some(dir) => out.push_str(&format!(
            "Give it to an agent container (the socket's directory is mounted read-only, so a \
             daemon restart does not break the mount and no container can move the socket):\n  \
             docker run -v {}:{CONTAINER_SOCKET_DIR}:ro {token_flags} <image> \\\n    \
             porthole-mcp --api unix://{CONTAINER_SOCKET_DIR}/{} {mcp_token}\n",
            dir.display(),
            socket
                .and_then(Path::file_name)
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "agents.sock".into()),
        )),
        None => out.push_str(
            "The agent socket is off (server.agent_socket is null): set server.agent_listen \
             and run porthole-mcp --api http://host.docker.internal:<port> in the container.\n",
        ),
    }
    Ok(out)
}

/// How the agent's own CDP client reaches its door: the http form for Playwright and
/// browser-use, the WebSocket form for Puppeteer and chrome-devtools-mcp (whose `browserURL`
/// keeps only the origin). `token`: how the URL writes the token (`None`: `<token>`, the one
/// printed above, so the token is never printed twice).
fn cdp_door(listen: std::net::SocketAddr, token: Option<&str>) -> String {
    let token = token.unwrap_or("<token>");
    format!(
        "Its own CDP client (Playwright, Puppeteer, browser-use) drives the channel through its \
         CDP door, under the same rules:\n  \
         Playwright: chromium.connectOverCDP('http://{listen}/cdp/{token}')\n  \
         Puppeteer / chrome-devtools-mcp: browserWSEndpoint / --wsEndpoint \
         ws://{listen}/cdp/{token}/devtools/browser\n"
    )
}
