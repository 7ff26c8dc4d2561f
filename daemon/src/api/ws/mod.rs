//! One pane's WebSocket (`GET /api/ws/browser`): reads the pane's messages, drives its
//! channel's BrowserSession through the pane's own view (the tab it watches, see
//! `browser::session::pane_view`), and writes notices and that tab's frames back.
//!
//! Three tasks per pane: the reader (this connection's messages, in order), the writer (the
//! only owner of the socket's send half: JSON notices, replies, and the latest frame from the
//! screencast hub; it runs on the one thread of all panes' writers, `writer_thread`), and an
//! input dispatcher per attachment (so a slow CDP round trip never stalls reading). Bad messages
//! get an `error` reply and the connection stays up.

mod commands;
mod input;
mod person;
mod protocol;
mod vault_fill;
mod writer;
mod writer_thread;

use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use futures_util::StreamExt;
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;

use super::AppState;
use crate::browser::InputQueue;
use crate::browser::{BrowserSession, PaneMessage, PaneView};
use crate::channel_id::ChannelId;
use crate::channels::PaneGuard;
use crate::mode::Mode;
use commands::{error_for_pane, run_commands};
use input::dispatch_input;
pub use protocol::ClientMessage;
use writer::write_loop;

/// Subprotocol spoken on this socket.
pub const PROTOCOL: &str = "porthole.v1";

/// Upgrades the request; the owner token was already checked by the admission layer.
pub async fn upgrade(State(state): State<AppState>, ws: WebSocketUpgrade) -> Response {
    let limit = state.inner.max_ws_message_bytes;
    // Files the person hands a page may be larger (`browser.pane_upload_max_mb`).
    let files = person::files_message_limit(state.inner.pane_upload_max_bytes);
    let cap = (limit * 4).max(files.saturating_mul(2));
    ws.protocols([PROTOCOL])
        // Protocol-level cap; messages between `limit` and this get a polite refusal instead.
        .max_message_size(cap)
        .max_frame_size(cap)
        .on_upgrade(move |socket| run_pane(socket, state))
}

/// What the writer task is told to do.
enum Outgoing {
    Json(PaneMessage),
    /// Follow a session's notices through this pane's view (replacing any earlier one).
    Follow(broadcast::Receiver<PaneMessage>, Arc<PaneView>),
    /// Send the frames of the tab the view watches, now and after every move of the view.
    Cast,
    /// Stop following notices and frames.
    Unfollow,
    /// Tell the pane its viewport again before the next frame: its size or scale is about to
    /// change, and frames of the new size can come before the `Cast` that follows.
    TellSize,
    Close(u16, &'static str),
}

/// The channel this pane is attached to.
struct Attachment {
    channel: ChannelId,
    mode: Mode,
    session: Arc<BrowserSession>,
    /// The tab this pane watches, and whether it follows agents.
    view: Arc<PaneView>,
    input: Arc<InputQueue>,
    dispatcher: JoinHandle<()>,
    /// Navigation and tab commands, run one after another in the order the pane sent them.
    commands: mpsc::UnboundedSender<ClientMessage>,
    commander: JoinHandle<()>,
    _pane: PaneGuard,
}

impl Drop for Attachment {
    fn drop(&mut self) {
        self.dispatcher.abort();
        self.commander.abort();
    }
}

struct Pane {
    state: AppState,
    out: mpsc::Sender<Outgoing>,
    attached: Option<Attachment>,
    id: u64,
}

async fn run_pane(socket: WebSocket, state: AppState) {
    let id: u64 = rand::random::<u32>() as u64;
    let span = tracing::info_span!("pane", pane = id);
    let _guard = span.enter();
    tracing::info!(event = "pane_connected");
    drop(_guard);
    let (sink, mut stream) = socket.split();
    let (out, out_rx) = mpsc::channel(64);
    let writer = writer_thread::spawn(write_loop(sink, out_rx));
    let mut pane = Pane {
        state: state.clone(),
        out,
        attached: None,
        id,
    };
    let shutdown = state.inner.shutdown.clone();
    loop {
        let message = tokio::select! {
            _ = shutdown.cancelled() => {
                pane.send(PaneMessage::Stopped { channel_id: pane.channel_name(), reason: "daemon_shutdown".into() }).await;
                let _ = pane.out.send(Outgoing::Close(1001, "daemon shutting down")).await;
                break;
            }
            message = stream.next() => message,
        };
        match message {
            Some(Ok(Message::Text(text))) => pane.on_text(&text).await,
            Some(Ok(Message::Binary(_))) => {
                pane.send(PaneMessage::error(
                    "bad_message",
                    "binary messages are not accepted; send JSON text",
                ))
                .await
            }
            Some(Ok(Message::Close(_))) | None => break,
            Some(Ok(_)) => {}
            Some(Err(error)) => {
                tracing::info!(event = "pane_read_error", pane = pane.id, %error);
                let _ = pane
                    .out
                    .send(Outgoing::Json(PaneMessage::error(
                        "message_too_large",
                        format!("message refused: {error}"),
                    )))
                    .await;
                let _ = pane
                    .out
                    .send(Outgoing::Close(1009, "message too large"))
                    .await;
                break;
            }
        }
    }
    if let Some(attached) = pane.attached.take() {
        // A takeover this pane held ends after agents.stop_secs.
        state
            .inner
            .oversight
            .channel(&attached.channel)
            .pane_left(id);
    }
    drop(pane);
    let _ = writer.await;
    tracing::info!(event = "pane_disconnected", pane = id);
}

impl Pane {
    fn channel_name(&self) -> String {
        self.attached
            .as_ref()
            .map(|a| a.channel.to_string())
            .unwrap_or_default()
    }

    async fn send(&self, message: PaneMessage) {
        let _ = self.out.send(Outgoing::Json(message)).await;
    }

    async fn on_text(&mut self, text: &str) {
        let oversize = text.len() > self.state.inner.max_ws_message_bytes;
        let files_cap = self.state.inner.pane_upload_max_bytes;
        let files_allowed = match oversize {
            true => match person::oversize_files_message(text, files_cap) {
                Ok(allowed) => allowed,
                Err(refusal) => return self.send(refusal.into_message()).await,
            },
            false => false,
        };
        if oversize && !files_allowed {
            return self
                .send(PaneMessage::error(
                    "message_too_large",
                    format!(
                        "message of {} bytes refused; the limit is {} bytes",
                        text.len(),
                        self.state.inner.max_ws_message_bytes
                    ),
                ))
                .await;
        }
        let message = match serde_json::from_str::<ClientMessage>(text) {
            Ok(message) => message,
            Err(error) => {
                return self
                    .send(PaneMessage::error(
                        "bad_message",
                        format!("cannot read this message: {error}"),
                    ))
                    .await
            }
        };
        match message {
            ClientMessage::Start {
                channel_id,
                mode,
                width,
                height,
            } => self.start(&channel_id, mode, width.zip(height)).await,
            ClientMessage::Stop { channel_id } => self.stop(&channel_id).await,
            ClientMessage::Screencast {
                width,
                height,
                quality,
                scale,
            } => self.screencast(width.zip(height), quality, scale).await,
            ClientMessage::Input(event) => self.input(event).await,
            ClientMessage::GiveTab {
                target_id,
                agent_id,
            } => self.give_tab(&target_id, &agent_id).await,
            control @ (ClientMessage::Takeover {}
            | ClientMessage::Release {}
            | ClientMessage::StopAgents {}
            | ClientMessage::HandoffDone { .. }
            | ClientMessage::FollowAgents { .. }) => self.oversee(control).await,
            ClientMessage::DialogAnswer {
                target_id,
                accept,
                text,
            } => {
                self.answer_dialog(&target_id, accept, text.as_deref())
                    .await
            }
            person @ (ClientMessage::FileChooserAnswer { .. }
            | ClientMessage::DropFiles { .. }
            | ClientMessage::AuthAnswer { .. }
            | ClientMessage::ApprovalAnswer { .. }) => self.person_answer(person),
            ClientMessage::Find { query, backwards } => self.find(&query, backwards).await,
            ClientMessage::SelectAnswer {
                id,
                index,
                indices,
                value,
                cancel,
            } => self.answer_select(&id, index, indices, value, cancel).await,
            ClientMessage::Zoom { factor } => self.zoom(factor).await,
            ClientMessage::CopyImage { id } => self.copy_image(&id).await,
            ClientMessage::VaultFill { item, target_id } => self.vault_fill(item, target_id).await,
            other => self.browser_command(other).await,
        }
    }

    /// Files and logins from the person (`person`), in a task of their own: a large file
    /// never stalls reading.
    fn person_answer(&self, message: ClientMessage) {
        let Some(attached) = &self.attached else {
            let out = self.out.clone();
            tokio::spawn(async move {
                let message = PaneMessage::error(
                    "not_started",
                    "send {\"type\":\"start\",\"channel_id\":…} first",
                );
                let _ = out.send(Outgoing::Json(message)).await;
            });
            return;
        };
        let (view, out) = (attached.view.clone(), self.out.clone());
        let cap = self.state.inner.pane_upload_max_bytes;
        tokio::spawn(async move {
            if let Some(error) = person::handle(&view, message, cap).await {
                let _ = out.send(Outgoing::Json(error)).await;
            }
        });
    }

    /// Finds text in the page this pane watches.
    async fn find(&self, query: &str, backwards: bool) {
        use crate::browser::MAX_FIND_QUERY as MAX_QUERY;
        let Some(attached) = &self.attached else {
            return self.not_started().await;
        };
        if query.chars().count() > MAX_QUERY {
            let reason = format!("find: the query is longer than {MAX_QUERY} characters");
            return self.send(PaneMessage::error("bad_request", reason)).await;
        }
        let found = match attached.view.watched_tab() {
            Ok((target, tab)) => {
                let session = &attached.session;
                session
                    .find()
                    .in_page(&target, &tab, query, backwards)
                    .await
            }
            Err(error) => Err(error),
        };
        match found {
            Ok(result) => self.send(result).await,
            Err(error) => {
                if let Some(message) = error_for_pane(&error) {
                    self.send(message).await;
                }
            }
        }
    }

    /// Answers a select popup open in one of the channel's tabs.
    async fn answer_select(
        &self,
        id: &str,
        index: Option<u32>,
        indices: Option<Vec<u32>>,
        value: Option<String>,
        cancel: bool,
    ) {
        use crate::browser::SelectChoice;
        let Some(attached) = &self.attached else {
            return self.not_started().await;
        };
        let answered = match SelectChoice::from_answer(index, indices, value, cancel) {
            Ok(choice) => attached.session.popups().answer(id, choice).await,
            Err(error) => Err(error),
        };
        if let Err(error) = answered {
            self.send(PaneMessage::error(error.code(), error.to_string()))
                .await;
        }
    }

    /// Copy image from a context menu, in a task of its own (the image may be large).
    async fn copy_image(&self, id: &str) {
        let Some(attached) = &self.attached else {
            return self.not_started().await;
        };
        let (session, out, id) = (attached.session.clone(), self.out.clone(), id.to_string());
        tokio::spawn(async move {
            let message = match session.context_menus().copy_image(&id).await {
                Ok(image) => image,
                Err(error) => PaneMessage::error(error.code(), error.to_string()),
            };
            let _ = out.send(Outgoing::Json(message)).await;
        });
    }

    /// The person fills an item of her vault into a tab (answered by `vault_result`).
    async fn vault_fill(&self, item: String, target_id: Option<String>) {
        let Some(attached) = &self.attached else {
            return self.not_started().await;
        };
        vault_fill::spawn(
            &self.state,
            &attached.view,
            self.out.clone(),
            item,
            target_id,
        );
    }

    async fn not_started(&self) {
        self.send(PaneMessage::error(
            "not_started",
            "send {\"type\":\"start\",\"channel_id\":…} first",
        ))
        .await
    }

    async fn start(&mut self, channel_id: &str, mode: Option<Mode>, size: Option<(u32, u32)>) {
        let channel = match ChannelId::parse(channel_id) {
            Ok(channel) => channel,
            Err(error) => {
                return self
                    .send(PaneMessage::error("bad_channel_id", error.to_string()))
                    .await
            }
        };
        // The current attachment stays until the new start succeeds: a failed switch (host mode
        // without Chrome) leaves the pane usable where it was.
        let progress_out = self.out.clone();
        let progress_channel = channel.clone();
        let progress: crate::providers::ProgressFn = Arc::new(move |stage: &str, message: &str| {
            tracing::info!(event = "progress", channel_id = %progress_channel, stage, message);
            let _ = progress_out.try_send(Outgoing::Json(PaneMessage::Progress {
                stage: stage.to_string(),
                message: message.to_string(),
            }));
        });
        let channels = self.state.inner.channels.clone();
        let session = match channels.start(&channel, mode, progress).await {
            Ok(session) => session,
            Err(error) => {
                tracing::warn!(event = "pane_start_failed", pane = self.id, channel_id = %channel, %error);
                let code = super::error::ApiError::from(error.clone()).code;
                return self.send(PaneMessage::error(code, error.to_string())).await;
            }
        };
        let mode = session.mode();
        self.attached = None;
        let pane_guard = channels.attach_pane(&channel, mode);
        let input = Arc::new(InputQueue::new());
        let view = PaneView::new(session.clone());
        let dispatcher = tokio::spawn(dispatch_input(
            view.clone(),
            input.clone(),
            self.out.clone(),
            self.state.inner.oversight.channel(&channel),
            self.state.inner.timeline.clone(),
        ));
        let (commands, queued) = mpsc::unbounded_channel();
        let commander = tokio::spawn(run_commands(view.clone(), queued, self.out.clone()));
        let _ = self
            .out
            .send(Outgoing::Follow(session.subscribe(), view.clone()))
            .await;
        self.attached = Some(Attachment {
            channel: channel.clone(),
            mode,
            session: session.clone(),
            view: view.clone(),
            input,
            dispatcher,
            commands,
            commander,
            _pane: pane_guard,
        });
        tracing::info!(event = "pane_started", pane = self.id, channel_id = %channel, %mode);
        self.send(PaneMessage::Started {
            channel_id: channel.to_string(),
            mode,
        })
        .await;
        self.send(view.tabs_message()).await;
        // Control held by the person, open handoffs and dialogs: a new pane sees them too.
        for message in self
            .state
            .inner
            .oversight
            .channel(&channel)
            .messages_for_new_pane()
        {
            self.send(message).await;
        }
        for chooser in session.person_files().all() {
            self.send(chooser.message()).await;
        }
        for prompt in session.auth().all() {
            self.send(prompt.message()).await;
        }
        for approval in session.approvals().all() {
            self.send(approval).await;
        }
        for (target_id, dialog) in session.dialogs().all() {
            self.send(PaneMessage::Dialog {
                target_id,
                kind: dialog.kind,
                message: dialog.message,
                default_prompt: dialog.default_prompt,
            })
            .await;
        }
        let watched = view.watched().unwrap_or_default();
        if let Some(info) = session.page_info_of(&watched) {
            self.send(info).await;
        }
        if let Some((width, height)) = size {
            self.resize(&view, width, height).await;
        } else if let Some(frame) = session.screencast().last_frame(&watched) {
            self.send(PaneMessage::Viewport {
                width: frame.width,
                height: frame.height,
            })
            .await;
        }
    }

    async fn resize(&self, view: &PaneView, width: u32, height: u32) {
        view.set_size(width, height);
        let resized = match view.watched_tab() {
            Ok((_, tab)) => view.session().set_viewport_on(&tab, width, height).await,
            Err(error) => Err(error),
        };
        if let Err(error) = resized {
            if let Some(message) = error_for_pane(&error) {
                self.send(message).await;
            }
        }
    }

    async fn stop(&mut self, channel_id: &str) {
        let channel = match ChannelId::parse(channel_id) {
            Ok(channel) => channel,
            Err(error) => {
                return self
                    .send(PaneMessage::error("bad_channel_id", error.to_string()))
                    .await
            }
        };
        let mode = match &self.attached {
            Some(attached) if attached.channel == channel => attached.mode,
            _ => self.state.inner.channels.mode_of(&channel),
        };
        if self.attached.as_ref().is_some_and(|a| a.channel == channel) {
            self.attached = None;
            let _ = self.out.send(Outgoing::Unfollow).await;
        }
        match self
            .state
            .inner
            .channels
            .stop(&channel, mode, "stopped_by_pane")
            .await
        {
            Ok(()) => {
                self.send(PaneMessage::Stopped {
                    channel_id: channel.to_string(),
                    reason: "stopped_by_pane".into(),
                })
                .await
            }
            Err(error) => {
                let code = super::error::ApiError::from(error.clone()).code;
                self.send(PaneMessage::error(code, error.to_string())).await
            }
        }
    }

    async fn screencast(&self, size: Option<(u32, u32)>, quality: Option<u8>, scale: Option<f64>) {
        let Some(attached) = &self.attached else {
            return self.not_started().await;
        };
        let rescaled = match scale.map(|s| attached.session.zoom().set_pixel_ratio(s)) {
            Some(Err(reason)) => {
                return self
                    .send(PaneMessage::error("bad_scale", reason.to_string()))
                    .await
            }
            Some(Ok(changed)) => changed,
            None => false,
        };
        if size.is_some() || rescaled {
            let _ = self.out.send(Outgoing::TellSize).await;
        }
        if let Some((width, height)) = size {
            self.resize(&attached.view, width, height).await;
        } else if rescaled {
            if let Ok((_, tab)) = attached.view.watched_tab() {
                if let Err(error) = attached.session.zoom().relayout(&tab).await {
                    if let Some(message) = error_for_pane(&error) {
                        self.send(message).await;
                    }
                }
            }
        }
        let session = &attached.session;
        session.screencast().set_quality(quality);
        let _ = self.out.send(Outgoing::Cast).await;
    }

    /// Zooms the watched tab's page (`layouts`); a bad factor → `bad_zoom`, nothing changed.
    async fn zoom(&self, factor: f64) {
        let Some(attached) = &self.attached else {
            return self.not_started().await;
        };
        if let Err(reason) = attached.session.zoom().check(factor) {
            return self
                .send(PaneMessage::error("bad_zoom", reason.to_string()))
                .await;
        }
        let zoomed = match attached.view.watched_tab() {
            Ok((_, tab)) => attached.session.zoom().set(&tab, factor).await,
            Err(error) => Err(error),
        };
        if let Some(message) = zoomed.err().as_ref().and_then(error_for_pane) {
            self.send(message).await;
        }
    }

    async fn input(&self, event: crate::browser::InputEvent) {
        let Some(attached) = &self.attached else {
            return self.not_started().await;
        };
        if let Err(reason) = event.validate() {
            return self
                .send(PaneMessage::error("bad_input", reason.to_string()))
                .await;
        }
        if let Err(full) = attached.input.push(event) {
            self.send(PaneMessage::error("input_overflow", full.to_string()))
                .await;
        }
    }

    /// Take over, release, stop agents, handoff done, follow agents.
    async fn oversee(&self, message: ClientMessage) {
        let Some(attached) = &self.attached else {
            return self.not_started().await;
        };
        let oversight = self.state.inner.oversight.channel(&attached.channel);
        let result = match message {
            ClientMessage::Takeover {} => {
                oversight.takeover(self.id);
                Ok(())
            }
            ClientMessage::Release {} => oversight.release(),
            ClientMessage::StopAgents {} => {
                oversight.stop_agents(self.id);
                Ok(())
            }
            ClientMessage::HandoffDone { id, note } => oversight.finish_handoff(&id, note),
            ClientMessage::FollowAgents { on } => {
                attached.view.set_follow_agents(on);
                Ok(())
            }
            _ => Ok(()),
        };
        if let Err(reason) = result {
            self.send(PaneMessage::error("bad_request", reason.to_string()))
                .await;
        }
    }

    /// Answers the dialog open in a tab.
    async fn answer_dialog(&self, target_id: &str, accept: bool, text: Option<&str>) {
        let Some(attached) = &self.attached else {
            return self.not_started().await;
        };
        if let Err(error) = attached
            .session
            .dialogs()
            .answer(target_id, accept, text)
            .await
        {
            if let Some(message) = error_for_pane(&error) {
                self.send(message).await;
            }
        }
    }

    /// Hands one of the person's tabs to an agent of this channel.
    async fn give_tab(&self, target_id: &str, agent_id: &str) {
        let Some(attached) = &self.attached else {
            return self.not_started().await;
        };
        let agent = match self.state.inner.agents.list() {
            Ok(agents) => agents.into_iter().find(|a| a.agent_id == agent_id),
            Err(error) => {
                tracing::warn!(event = "state_unreadable", %error);
                return self
                    .send(PaneMessage::error(
                        "state_unavailable",
                        "the daemon cannot read its agent list right now; try again",
                    ))
                    .await;
            }
        };
        let Some(agent) = agent.filter(|a| a.channel_id == attached.channel.as_str()) else {
            return self
                .send(PaneMessage::error(
                    "unknown_agent",
                    format!(
                        "there is no agent {agent_id} on channel {}; GET /api/browser/agents lists them",
                        attached.channel
                    ),
                ))
                .await;
        };
        if let Err(error) =
            attached
                .session
                .agent_tabs()
                .give(target_id, &agent.agent_id, &agent.name)
        {
            self.send(PaneMessage::error(error.code(), error.to_string()))
                .await;
        }
    }

    /// Navigation and tab commands go to the attachment's command task: a slow page never
    /// stalls reading, and commands still run in the order the pane sent them.
    async fn browser_command(&self, command: ClientMessage) {
        let Some(attached) = &self.attached else {
            return self.not_started().await;
        };
        let _ = attached.commands.send(command);
    }
}
