//! The MCP tools' isolated JavaScript worlds in a session's frames, by flat CDP session: made
//! and used by `tools::world`, kept here so they live and die with the session (and a tab's
//! with the tab), never in a process-wide cache.

use std::collections::HashMap;
use std::sync::Mutex;

/// A frame's isolated world with the tools' helper installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IsolatedWorld {
    /// The context's `uniqueId`: the only safe way to address it across navigations.
    pub unique_id: String,
    /// The numeric context id, for `DOM.resolveNode` (check `nonce` on what it returns).
    pub context_id: i64,
    /// A secret stored on the helper in this world: code that finds it there knows it runs in
    /// this world and not in a page's look-alike.
    pub nonce: String,
}

/// The worlds of one session's frames. Short lock, never held across an await.
#[derive(Debug, Default)]
pub struct Worlds {
    by_session: Mutex<HashMap<String, IsolatedWorld>>,
}

impl Worlds {
    /// The world of the frame behind flat session `session`, if one was made.
    pub fn get(&self, session: &str) -> Option<IsolatedWorld> {
        self.by_session
            .lock()
            .expect("worlds lock")
            .get(session)
            .cloned()
    }

    pub fn remember(&self, session: &str, world: IsolatedWorld) {
        self.by_session
            .lock()
            .expect("worlds lock")
            .insert(session.to_string(), world);
    }

    /// Forgets `world` (its context is gone) unless a newer one took its place.
    pub fn forget(&self, session: &str, world: &IsolatedWorld) {
        let mut worlds = self.by_session.lock().expect("worlds lock");
        if worlds
            .get(session)
            .is_some_and(|w| w.unique_id == world.unique_id)
        {
            worlds.remove(session);
        }
    }

    /// Forgets the world of a session that ended (its tab closed).
    pub fn drop_session(&self, session: &str) {
        self.by_session.lock().expect("worlds lock").remove(session);
    }
}

impl super::BrowserSession {
    /// The main frame's id of the tab behind flat session `session` (a tab's main frame has
    /// its target's id), so a world can be made there without asking Chrome; `None` for a
    /// session that is not a tab's (an out-of-process frame's).
    pub fn main_frame_of(&self, session: &str) -> Option<String> {
        let tabs = self.tabs.lock().expect("tabs lock");
        tabs.by_session(session).map(|t| t.target_id.clone())
    }
}
