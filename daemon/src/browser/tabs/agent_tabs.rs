//! Tabs per agent: which tab an [`Actor`] acts in, which tabs it may see and touch, opening an
//! agent's first tab (in a window of its own, so it paints beside everyone else's), giving a
//! person's tab to an agent. (Panes follow agents through their own views: the session's
//! `pane_view`.)
//!
//! An agent may have at most `agents.max_tabs` tabs ([`crate::bounds`]), its pages' popups
//! included: `new_tab` past that is refused, and a popup past it is closed as it opens (the
//! agent sees it missing from `list_tabs`; the daemon logs `agent_popup_refused`).
//!
//! The owner token ([`Actor::Owner`]) keeps the first release's behaviour: it acts on the
//! session's active tab (the person's last choice in a pane) and sees every tab. Agents never see or touch another owner's tab.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::tracking::TabLife;
use crate::browser::floor::{
    agent_may_stay_on, Actor, SessionError, Tab, TabInfo, TabOwner, OWNER_AGENT,
};

/// Each agent's tabs in one session (borrowed from the session: `session.agent_tabs()`).
pub(crate) struct AgentTabs<'s> {
    pub(in crate::browser) life: TabLife<'s>,
    /// Each agent's current tab (agent id → target id). Short lock.
    pub(in crate::browser) current: &'s Mutex<HashMap<String, String>>,
    /// Serialises finding or opening an agent's tab, per agent. Short lock around the map.
    pub(in crate::browser) locks: &'s Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl AgentTabs<'_> {
    /// `(target_id, session_id)` of the tab `actor` acts in; an agent without a tab gets a new
    /// one of its own (one at a time per agent, so racing calls share it).
    pub(crate) async fn tab_for(&self, actor: &Actor) -> Result<(String, String), SessionError> {
        if !self.life.core.is_alive() {
            return Err(SessionError::Closed);
        }
        let Actor::Agent { id, .. } = actor else {
            return self.owner_tab().await;
        };
        let lock = self.agent_lock(id);
        let _one_at_a_time = lock.lock().await;
        if let Some(found) = self.current_agent_tab(id) {
            return Ok(found);
        }
        let target_id = self.life.open_tab_laid_out(actor.as_owner()).await?;
        self.set_agent_tab(id, &target_id);
        let tab = self.with_session(target_id)?;
        tracing::info!(event = "agent_tab_opened", channel_id = %self.life.core.channel(), agent_id = %id, target_id = %tab.0);
        Ok(tab)
    }

    /// The active tab, unless the URL guard is closing it: then another tab, made active, or a
    /// new one when none is left (`mcp-host-browser`'s guard closes its last tab, and the note
    /// it leaves promises the next call a tab).
    async fn owner_tab(&self) -> Result<(String, String), SessionError> {
        let lock = self.agent_lock(OWNER_AGENT);
        let _one_at_a_time = lock.lock().await;
        let (active, other) = self.life.core.tabs().read(|tabs| {
            let open = |t: &&Tab| tabs.entry(&t.target_id).is_some_and(|e| !e.guard_closing);
            let active = tabs.active().filter(open).map(|t| t.target_id.clone());
            let other = tabs.filtered(|_| true).into_iter().rfind(open);
            (active, other.map(|t| t.target_id.clone()))
        });
        let target_id = match (active, other) {
            (Some(active), _) => active,
            (None, Some(other)) => {
                self.life.switch_tab(&other).await?;
                other
            }
            (None, None) => self.life.new_tab(None).await?.target_id,
        };
        self.with_session(target_id)
    }

    /// `(target_id, session_id)` of a tracked tab.
    fn with_session(&self, target_id: String) -> Result<(String, String), SessionError> {
        match self.life.core.tab_session(&target_id) {
            Some(session_id) => Ok((target_id, session_id)),
            None => Err(SessionError::UnknownTab(target_id)),
        }
    }

    fn agent_lock(&self, agent_id: &str) -> Arc<tokio::sync::Mutex<()>> {
        self.locks
            .lock()
            .expect("agent locks lock")
            .entry(agent_id.to_string())
            .or_default()
            .clone()
    }

    /// The agent's current tab when it is still its own; else its newest own tab, if any. A
    /// tab the URL guard is closing is neither: the agent was told its next call runs in
    /// another tab, and Chrome's word that the tab is gone may come after that call.
    fn current_agent_tab(&self, agent_id: &str) -> Option<(String, String)> {
        self.life.core.tabs().read(|tabs| {
            let mut current = self.current.lock().expect("agent tabs lock");
            let usable = |target_id: &str| {
                tabs.entry(target_id)
                    .filter(|e| e.tab.owner.id() == agent_id && !e.guard_closing)
                    .map(|e| &e.tab)
            };
            let still_ours = current.get(agent_id).and_then(|id| usable(id));
            let tab = match still_ours {
                Some(tab) => tab,
                None => {
                    let newest = tabs.filtered(|o| o.id() == agent_id);
                    let tab = *newest
                        .iter()
                        .rev()
                        .find(|t| usable(&t.target_id).is_some())?;
                    current.insert(agent_id.to_string(), tab.target_id.clone());
                    tab
                }
            };
            Some((tab.target_id.clone(), tab.session_id.clone()))
        })
    }

    fn set_agent_tab(&self, agent_id: &str, target_id: &str) {
        self.current
            .lock()
            .expect("agent tabs lock")
            .insert(agent_id.to_string(), target_id.to_string());
    }

    /// The tab `actor` acts in now, without opening one.
    pub(crate) fn current(&self, actor: &Actor) -> Option<String> {
        match actor {
            Actor::Owner => self.life.core.active_tab().ok().map(|(id, _)| id),
            Actor::Agent { id, .. } => self.current_agent_tab(id).map(|(id, _)| id),
        }
    }

    /// The tabs `actor` may see, in display order.
    pub(crate) fn visible(&self, actor: &Actor) -> Vec<TabInfo> {
        self.life.core.tabs().read(|tabs| {
            tabs.filtered(|owner| actor.may_touch(owner))
                .into_iter()
                .map(|t| t.info())
                .collect()
        })
    }

    /// Ok when `actor` may act on the tracked tab `target_id`.
    pub(crate) fn check_access(&self, actor: &Actor, target_id: &str) -> Result<(), SessionError> {
        let owner = self
            .life
            .core
            .tabs()
            .owner_of(target_id)
            .ok_or_else(|| SessionError::UnknownTab(target_id.to_string()))?;
        if actor.may_touch(&owner) {
            Ok(())
        } else {
            Err(SessionError::NotYours {
                target_id: target_id.to_string(),
                owner: owner.described(),
            })
        }
    }

    /// Makes `target_id` the tab `actor` acts in (the owner: the tab the panes show).
    pub(crate) async fn use_tab(&self, actor: &Actor, target_id: &str) -> Result<(), SessionError> {
        self.check_access(actor, target_id)?;
        match actor {
            Actor::Owner => self.life.switch_tab(target_id).await,
            Actor::Agent { id, .. } => {
                self.set_agent_tab(id, target_id);
                Ok(())
            }
        }
    }

    /// Opens the next agent tab of the session ahead, in the background, so the next agent
    /// tab opened costs only its tracking (`warm.rs`; the CDP door's `newPage`).
    pub(crate) fn keep_next_warm(&self) {
        self.life.keep_warm();
    }

    /// Opens a tab of `actor`'s and makes it the tab it acts in; returns its target id.
    pub(crate) async fn open(&self, actor: &Actor) -> Result<String, SessionError> {
        match actor {
            Actor::Owner => {
                let target_id = self.life.open_tab(None, actor.as_owner(), false).await?;
                self.life.switch_tab(&target_id).await?;
                Ok(target_id)
            }
            Actor::Agent { id, .. } => {
                let open = self.agent_tab_count(id);
                if open >= crate::bounds::get().max_tabs {
                    return Err(SessionError::TabLimit { open });
                }
                let target_id = self.life.open_tab_laid_out(actor.as_owner()).await?;
                self.set_agent_tab(id, &target_id);
                Ok(target_id)
            }
        }
    }

    /// How many tabs agent `agent_id` has.
    fn agent_tab_count(&self, agent_id: &str) -> usize {
        self.life.core.tabs().read(|tabs| {
            tabs.filtered(|o| matches!(o, TabOwner::Agent { id, .. } if id == agent_id))
                .len()
        })
    }

    /// Closes popup `target_id` when `owner` is an agent with all the tabs it may have; true
    /// when it did (the popup must then not be tracked).
    pub(in crate::browser) async fn refuse_popup_over_limit(
        &self,
        owner: &TabOwner,
        target_id: &str,
    ) -> bool {
        let TabOwner::Agent { id, .. } = owner else {
            return false;
        };
        let open = self.agent_tab_count(id);
        let max = crate::bounds::get().max_tabs;
        if open < max {
            return false;
        }
        tracing::info!(event = "agent_popup_refused", channel_id = %self.life.core.channel(), agent_id = %id, %target_id, open, max);
        let closed = self
            .life
            .core
            .cdp()
            .call(
                "Target.closeTarget",
                serde_json::json!({ "targetId": target_id }),
            )
            .await;
        if let Err(error) = closed {
            tracing::debug!(event = "agent_popup_close_failed", %target_id, %error);
        }
        true
    }

    /// Closes a tab `actor` may touch.
    pub(crate) async fn close(&self, actor: &Actor, target_id: &str) -> Result<(), SessionError> {
        self.check_access(actor, target_id)?;
        // Closing forgets it as its agent's current tab too (`forget_tab`, from `untrack`).
        self.life.close_tab(target_id).await
    }

    /// A tab that went is no agent's current tab any more (called when it is forgotten: the
    /// session's `per_tab`).
    pub(in crate::browser) fn forget_tab(&self, target_id: &str) {
        self.current
            .lock()
            .expect("agent tabs lock")
            .retain(|_, current| current != target_id);
    }

    /// Hands a person's tab to an agent (they logged in; the agent goes on there).
    pub(crate) fn give(
        &self,
        target_id: &str,
        agent_id: &str,
        name: &str,
    ) -> Result<(), SessionError> {
        self.life.core.tabs().write(|tabs| {
            let tab = tabs
                .get(target_id)
                .ok_or_else(|| SessionError::UnknownTab(target_id.to_string()))?;
            if tab.owner != TabOwner::Human {
                return Err(SessionError::NotYours {
                    target_id: target_id.to_string(),
                    owner: tab.owner.described(),
                });
            }
            // An agent never gets a tab on a browser-internal page (the person's to keep).
            if !agent_may_stay_on(&tab.url) {
                return Err(SessionError::BadUrl(format!(
                    "the tab shows {}, a page of the browser itself that agents may not use",
                    tab.url
                )));
            }
            tabs.set_owner(
                target_id,
                TabOwner::Agent {
                    id: agent_id.to_string(),
                    name: name.to_string(),
                },
            );
            Ok(())
        })?;
        self.set_agent_tab(agent_id, target_id);
        // An agent's tab never uses service workers (see `tracking`).
        if let Some(session) = self.life.core.tabs().session_of(target_id) {
            let cdp = self.life.core.cdp().clone();
            tokio::spawn(async move {
                let bypass = serde_json::json!({"bypass": true});
                let sent = cdp
                    .call_on(&session, "Network.setBypassServiceWorker", bypass)
                    .await;
                if let Err(error) = sent {
                    tracing::warn!(event = "service_worker_bypass_failed", %error);
                }
            });
        }
        tracing::info!(event = "tab_given", channel_id = %self.life.core.channel(), %agent_id, %target_id);
        self.life.core.notify(self.life.core.tabs_message());
        Ok(())
    }

    /// Agents (the owner included) that own at least one tab of this session.
    pub(crate) fn agents_with_tabs(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.life.core.tabs().read(|tabs| {
            tabs.filtered(|o| matches!(o, TabOwner::Agent { .. }))
                .into_iter()
                .map(|t| t.owner.id().to_string())
                .collect()
        });
        ids.sort();
        ids.dedup();
        ids
    }
}
