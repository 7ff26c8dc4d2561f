//! `notify.command` (DESIGN.md §20a): a program the daemon runs once per approval (and once
//! per `request_human`, kind `handoff`) so the person hears of it with no pane open
//! (`["notify-send", "Porthole"]` on Linux). An argv, never a shell; what the approval is about travels in the environment
//! (`PORTHOLE_APPROVAL_KIND`, `PORTHOLE_APPROVAL_ID`, `PORTHOLE_AGENT`, `PORTHOLE_AGENT_ID`,
//! `PORTHOLE_CHANNEL`), never its detail (a script, a body, a secret), in argv or env. A
//! notifier that fails or hangs is logged and killed; the approval never waits for it.

use std::process::Stdio;
use std::time::Duration;

/// How long a notifier may run before it is killed.
const DEADLINE: Duration = Duration::from_secs(10);

/// What the notifier is told of an approval (no detail, on purpose).
#[derive(Debug, Clone)]
pub struct ApprovalNotice {
    pub id: String,
    pub kind: String,
    pub agent_id: String,
    /// The agent's name.
    pub agent: String,
    pub channel_id: String,
}

/// The configured command.
#[derive(Debug, Clone)]
pub struct Notifier {
    argv: Vec<String>,
}

/// Why `notify.command` cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("notify.command must name a program first (an argv array, e.g. [\"notify-send\", \"Porthole\"])")]
pub struct EmptyCommand;

impl Notifier {
    /// The notifier for `argv` (`None`-worthy when empty: see [`EmptyCommand`]).
    pub fn new(argv: Vec<String>) -> Result<Self, EmptyCommand> {
        match argv.first() {
            Some(program) if !program.trim().is_empty() => Ok(Self { argv }),
            _ => Err(EmptyCommand),
        }
    }

    /// Starts the command for `notice` in a task of its own and returns at once.
    pub fn run(&self, notice: ApprovalNotice) {
        let argv = self.argv.clone();
        tokio::spawn(async move {
            let program = argv[0].clone();
            let mut command = tokio::process::Command::new(&program);
            command
                .args(&argv[1..])
                .env("PORTHOLE_APPROVAL_ID", &notice.id)
                .env("PORTHOLE_APPROVAL_KIND", &notice.kind)
                .env("PORTHOLE_AGENT", &notice.agent)
                .env("PORTHOLE_AGENT_ID", &notice.agent_id)
                .env("PORTHOLE_CHANNEL", &notice.channel_id)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .kill_on_drop(true);
            let mut child = match command.spawn() {
                Ok(child) => child,
                Err(error) => {
                    tracing::warn!(event = "notifier_failed", %program, id = %notice.id, %error, "notify.command could not start");
                    return;
                }
            };
            match tokio::time::timeout(DEADLINE, child.wait()).await {
                Ok(Ok(status)) if status.success() => {
                    tracing::debug!(event = "notifier_ran", %program, id = %notice.id);
                }
                Ok(Ok(status)) => {
                    tracing::warn!(event = "notifier_failed", %program, id = %notice.id, %status, "notify.command failed");
                }
                Ok(Err(error)) => {
                    tracing::warn!(event = "notifier_failed", %program, id = %notice.id, %error, "notify.command failed");
                }
                Err(_) => {
                    let _ = child.kill().await;
                    tracing::warn!(event = "notifier_failed", %program, id = %notice.id, "notify.command ran past 10 s and was killed");
                }
            }
        });
    }
}
