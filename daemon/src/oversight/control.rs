//! [`ChannelOversight`]: who holds control of one channel — the agents, or the person at the
//! pane (taken over, stopped for `agents.stop_secs`, or a handoff open) — with the `control`
//! messages panes get, the cancellation of agent calls in flight on `stop_agents`, and the
//! guards and handoffs of the channel.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use porthole_mcp::ToolName;
use tokio_util::sync::CancellationToken;

use super::guard::{HumanActivity, ReopenLoop};
use super::handoff::{AlreadyAsking, Handoffs};
use super::{may_run_while_held, OversightSettings};
use crate::browser::{Holder, PaneMessage};
use crate::channel_id::ChannelId;
use crate::channels::ChannelService;

/// A pane's oversight request that does not apply now; the pane shows the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    /// Release while the agents already hold control.
    #[error("nothing to release: the agents already have control")]
    NothingToRelease,
    /// Done on a handoff that is not open (answered, timed out or cancelled already).
    #[error("no handoff {id} is open")]
    NoSuchHandoff { id: String },
}

/// Why the person holds control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    Takeover,
    Stop,
    Handoff,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hold {
    Agents,
    Human {
        why: Why,
        /// When control goes back to the agents by itself.
        until: Option<Instant>,
        /// The pane that took over (its disconnect starts the countdown).
        pane: Option<u64>,
    },
}

/// Oversight of one channel.
pub struct ChannelOversight {
    channel: ChannelId,
    settings: OversightSettings,
    channels: Arc<ChannelService>,
    /// Short lock, never held across an await.
    hold: Mutex<Hold>,
    /// Bumped on every change of `hold`, so a timer set for an old state does nothing.
    generation: AtomicU64,
    /// Cancelled by `stop_agents` (then replaced): every agent call selects on it. Short lock.
    stop: Mutex<CancellationToken>,
    pub activity: HumanActivity,
    pub loops: ReopenLoop,
    pub handoffs: Handoffs,
}

impl ChannelOversight {
    pub(super) fn new(
        channel: ChannelId,
        settings: OversightSettings,
        channels: Arc<ChannelService>,
    ) -> Self {
        Self {
            channel,
            settings,
            channels,
            hold: Mutex::new(Hold::Agents),
            generation: AtomicU64::new(0),
            stop: Mutex::new(CancellationToken::new()),
            activity: HumanActivity::default(),
            loops: ReopenLoop::default(),
            handoffs: Handoffs::default(),
        }
    }

    /// How long agents stay out of a tab after the person's last input there.
    pub fn human_quiet(&self) -> Duration {
        self.settings.human_quiet
    }

    /// Tells every pane of the channel.
    pub fn announce(&self, message: PaneMessage) {
        if let Some(session) = self.channels.current_session(&self.channel) {
            session.announce(message);
        }
    }

    fn current(&self) -> Hold {
        let mut hold = self.hold.lock().expect("hold lock");
        if let Hold::Human {
            until: Some(until), ..
        } = *hold
        {
            if Instant::now() >= until {
                *hold = Hold::Agents;
            }
        }
        *hold
    }

    fn set(&self, new: Hold) -> u64 {
        *self.hold.lock().expect("hold lock") = new;
        self.generation.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// The `control` message for the state now.
    pub fn control_message(&self) -> PaneMessage {
        match self.current() {
            Hold::Agents => PaneMessage::Control {
                holder: Holder::Agents,
                until: None,
            },
            Hold::Human { until, .. } => PaneMessage::Control {
                holder: Holder::Human,
                until: until.map(unix_ms),
            },
        }
    }

    /// What a pane that attaches should be told: control (when the person holds it) and
    /// every open handoff.
    pub fn messages_for_new_pane(&self) -> Vec<PaneMessage> {
        let mut out = Vec::new();
        if self.current() != Hold::Agents {
            out.push(self.control_message());
        }
        out.extend(self.handoffs.messages());
        out
    }

    /// The person takes control until they release it.
    pub fn takeover(&self, pane: u64) {
        self.set(Hold::Human {
            why: Why::Takeover,
            until: None,
            pane: Some(pane),
        });
        tracing::info!(event = "control_taken", channel_id = %self.channel, pane);
        self.announce(self.control_message());
    }

    /// Control goes back to the agents; an error when the person held nothing.
    pub fn release(&self) -> Result<(), ControlError> {
        if self.current() == Hold::Agents {
            return Err(ControlError::NothingToRelease);
        }
        self.set(Hold::Agents);
        tracing::info!(event = "control_released", channel_id = %self.channel);
        self.announce(self.control_message());
        Ok(())
    }

    /// Cancels every agent call in flight and refuses agents for `agents.stop_secs`.
    pub fn stop_agents(self: &Arc<Self>, pane: u64) {
        let old = std::mem::take(&mut *self.stop.lock().expect("stop lock"));
        old.cancel();
        let generation = self.set(Hold::Human {
            why: Why::Stop,
            until: Some(Instant::now() + self.settings.stop),
            pane: Some(pane),
        });
        tracing::info!(event = "agents_stopped", channel_id = %self.channel, pane);
        self.announce(self.control_message());
        self.give_back_after(generation, self.settings.stop);
    }

    /// A pane went away: a takeover it held ends after `agents.stop_secs`.
    pub fn pane_left(self: &Arc<Self>, pane: u64) {
        let held = {
            let mut hold = self.hold.lock().expect("hold lock");
            match *hold {
                Hold::Human {
                    why: Why::Takeover,
                    until: None,
                    pane: Some(holder),
                } if holder == pane => {
                    *hold = Hold::Human {
                        why: Why::Takeover,
                        until: Some(Instant::now() + self.settings.stop),
                        pane: None,
                    };
                    true
                }
                _ => false,
            }
        };
        if held {
            let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
            self.announce(self.control_message());
            self.give_back_after(generation, self.settings.stop);
        }
    }

    /// Gives control back to the agents after `after`, unless it changed meanwhile.
    fn give_back_after(self: &Arc<Self>, generation: u64, after: Duration) {
        let this = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(after).await;
            if this.generation.load(Ordering::SeqCst) == generation {
                this.set(Hold::Agents);
                tracing::info!(event = "control_returned", channel_id = %this.channel);
                this.announce(this.control_message());
            }
        });
    }

    /// Resolves when `stop_agents` is pressed (for a call that starts now).
    pub fn stop_token(&self) -> CancellationToken {
        self.stop.lock().expect("stop lock").clone()
    }

    /// Why `tool` is refused now, if it is (reading tools never are).
    pub fn refusal(&self, tool: ToolName) -> Option<String> {
        if may_run_while_held(tool) {
            return None;
        }
        let Hold::Human { why, until, .. } = self.current() else {
            return None;
        };
        let left = until
            .map(|u| u.saturating_duration_since(Instant::now()).as_secs().max(1))
            .map(|s| format!(" for {s} more seconds"))
            .unwrap_or_default();
        Some(match why {
            Why::Takeover => format!(
                "Refused: the person at the browser has taken control of this channel{left}. \
                 Tools that change anything are paused; reading tools (read_page, \
                 get_page_text, find, page_info, list_tabs, screenshot) still work. Wait and \
                 try again later, or ask them with request_human."
            ),
            Why::Stop => format!(
                "Refused: the person at the browser stopped the agents{left}. Tools that change \
                 anything are refused until then; reading tools still work. Do not retry in a \
                 loop: wait, then continue, or ask with request_human what they want."
            ),
            Why::Handoff => "Refused: the person at the browser is handling a request \
                 (request_human) and holds control until they press Done. Reading tools still \
                 work."
                .to_string(),
        })
    }

    /// Opens a handoff and gives control to the person; see [`Handoffs::open`] (an `Err` is
    /// the refusal for the agent: it has one open already).
    pub fn begin_handoff(
        &self,
        agent_id: &str,
        name: &str,
        reason: &str,
        target_id: Option<String>,
    ) -> Result<(String, tokio::sync::oneshot::Receiver<Option<String>>), AlreadyAsking> {
        let (message, wait) = self.handoffs.open(agent_id, name, reason, target_id)?;
        let id = match &message {
            PaneMessage::Handoff { id, .. } => id.clone(),
            _ => unreachable!("Handoffs::open makes a handoff message"),
        };
        self.set(Hold::Human {
            why: Why::Handoff,
            until: None,
            pane: None,
        });
        tracing::info!(event = "handoff_opened", channel_id = %self.channel, handoff = %id, %agent_id);
        self.announce(message);
        self.announce(self.control_message());
        Ok((id, wait))
    }

    /// The person pressed Done on `id`; an error when no such handoff is open.
    pub fn finish_handoff(&self, id: &str, note: Option<String>) -> Result<(), ControlError> {
        if !self.handoffs.finish(id, note) {
            return Err(ControlError::NoSuchHandoff { id: id.to_string() });
        }
        self.handoff_over(id, "done");
        Ok(())
    }

    /// A handoff ended without the person (timeout, cancelled).
    pub fn abandon_handoff(&self, id: &str, outcome: &str) {
        if self.handoffs.abandon(id) {
            self.handoff_over(id, outcome);
        }
    }

    fn handoff_over(&self, id: &str, outcome: &str) {
        tracing::info!(event = "handoff_ended", channel_id = %self.channel, handoff = %id, outcome);
        self.announce(PaneMessage::HandoffEnded {
            id: id.to_string(),
            outcome: outcome.to_string(),
        });
        let handoff_held = matches!(
            self.current(),
            Hold::Human {
                why: Why::Handoff,
                ..
            }
        );
        if handoff_held && !self.handoffs.any_open() {
            self.set(Hold::Agents);
            self.announce(self.control_message());
        }
    }
}

fn unix_ms(at: Instant) -> u64 {
    let from_now = at.saturating_duration_since(Instant::now());
    (SystemTime::now() + from_now)
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
