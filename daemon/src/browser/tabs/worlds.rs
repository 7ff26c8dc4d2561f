//! The MCP tools' isolated JavaScript worlds in a session's frames, by flat CDP session: made
//! and used by `tools::tab::world`, kept here so they live and die with the session (and a tab's
//! with the tab), never in a process-wide cache.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

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

/// A tab's world made by Chrome in each new document: the helper's install registered with
/// `Page.addScriptToEvaluateOnNewDocument` under `name`, with `nonce`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewDocumentWorld {
    pub name: String,
    pub nonce: String,
}

/// The worlds of one session's frames. Short lock, never held across an await.
///
/// Two tasks learn worlds from the same CDP events (the session's event task, and a tool's
/// own wait), each in order but not in step: one can handle a document's
/// `executionContextsCleared` after the other has already learnt the next document's world.
/// So each world is kept with when its source was received from Chrome, and a clear removes
/// only what was learnt before it was received.
#[derive(Debug, Default)]
pub struct Worlds {
    by_session: Mutex<HashMap<String, (IsolatedWorld, Instant)>>,
    /// Tab sessions whose new documents get the world from Chrome (see
    /// [`Worlds::context_created`]).
    on_new_documents: Mutex<HashMap<String, NewDocumentWorld>>,
}

impl Worlds {
    /// The world of the frame behind flat session `session`, if one was made.
    pub fn get(&self, session: &str) -> Option<IsolatedWorld> {
        self.by_session
            .lock()
            .expect("worlds lock")
            .get(session)
            .map(|(world, _)| world.clone())
    }

    /// Keeps `world`, made by the tools just now.
    pub fn remember(&self, session: &str, world: IsolatedWorld) {
        self.learnt(session, world, Instant::now());
    }

    /// Keeps `world`, learnt from what Chrome sent at `received`, unless a world learnt from
    /// something later is kept already.
    fn learnt(&self, session: &str, world: IsolatedWorld, received: Instant) {
        let mut worlds = self.by_session.lock().expect("worlds lock");
        if worlds
            .get(session)
            .is_some_and(|(_, kept_from)| *kept_from > received)
        {
            return;
        }
        worlds.insert(session.to_string(), (world, received));
    }

    /// Forgets `world` (its context is gone) unless a newer one took its place.
    pub fn forget(&self, session: &str, world: &IsolatedWorld) {
        let mut worlds = self.by_session.lock().expect("worlds lock");
        if worlds
            .get(session)
            .is_some_and(|(w, _)| w.unique_id == world.unique_id)
        {
            worlds.remove(session);
        }
    }

    /// Forgets the world of a session whose documents went (`Runtime.executionContextsCleared`,
    /// received at `received`), unless it was learnt from something received later.
    /// The worlds of the in-process frames in that session's documents (`<session>/<frame>`)
    /// went with them.
    pub fn cleared(&self, session: &str, received: Instant) {
        let mut worlds = self.by_session.lock().expect("worlds lock");
        worlds.retain(|key, (_, kept_from)| !(in_session(key, session) && *kept_from <= received));
    }

    /// Forgets everything of a session that ended (its tab closed).
    pub fn drop_session(&self, session: &str) {
        self.by_session
            .lock()
            .expect("worlds lock")
            .retain(|key, _| !in_session(key, session));
        self.on_new_documents
            .lock()
            .expect("worlds lock")
            .remove(session);
    }

    /// The world registered for the new documents of `session`, if one is.
    pub fn on_new_documents(&self, session: &str) -> Option<NewDocumentWorld> {
        self.on_new_documents
            .lock()
            .expect("worlds lock")
            .get(session)
            .cloned()
    }

    /// Notes that new documents of `session` get `world`.
    pub fn register_new_documents(&self, session: &str, world: NewDocumentWorld) {
        self.on_new_documents
            .lock()
            .expect("worlds lock")
            .insert(session.to_string(), world);
    }

    /// A `Runtime.executionContextCreated` of `session` (`context` its `context` field,
    /// `received` when it came);
    /// `main_frame` says whether it is in the tab's main frame (asked only for a context of the
    /// registered world: every frame's contexts pass here). The world Chrome made in a new
    /// document is the session's world from now on, with no round trip to make one.
    pub fn context_created(
        &self,
        session: &str,
        context: &serde_json::Value,
        received: Instant,
        main_frame: impl FnOnce() -> bool,
    ) {
        let Some(registered) = self.on_new_documents(session) else {
            return;
        };
        if context["name"] != registered.name.as_str() || !main_frame() {
            return;
        }
        let (Some(unique_id), Some(context_id)) =
            (context["uniqueId"].as_str(), context["id"].as_i64())
        else {
            return;
        };
        self.learnt(
            session,
            IsolatedWorld {
                unique_id: unique_id.to_string(),
                context_id,
                nonce: registered.nonce,
            },
            received,
        );
    }
}

/// Whether the world kept under `key` is in a document of flat session `session`: its main
/// frame's (`key` is the session), or an in-process frame's (`<session>/<frame id>`).
fn in_session(key: &str, session: &str) -> bool {
    key.strip_prefix(session)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use serde_json::json;

    use super::{NewDocumentWorld, Worlds};

    fn worlds() -> Worlds {
        let worlds = Worlds::default();
        worlds.register_new_documents(
            "s",
            NewDocumentWorld {
                name: "tools".into(),
                nonce: "n".into(),
            },
        );
        worlds
    }

    fn created(worlds: &Worlds, unique_id: &str, received: Instant) {
        let context = json!({"name": "tools", "uniqueId": unique_id, "id": 7});
        worlds.context_created("s", &context, received, || true);
    }

    #[test]
    fn a_clear_handled_late_keeps_the_world_learnt_after_it() {
        let worlds = worlds();
        let t0 = Instant::now();
        let (cleared_at, created_at) = (t0, t0 + Duration::from_millis(1));
        // One task saw the clear and the new document's world; the other handles the clear now.
        created(&worlds, "new", created_at);
        worlds.cleared("s", cleared_at);
        assert_eq!(worlds.get("s").map(|w| w.unique_id), Some("new".into()));
        // The same events handled again by the lagging task change nothing.
        created(&worlds, "new", created_at);
        assert_eq!(worlds.get("s").map(|w| w.unique_id), Some("new".into()));
        // A later document's clear removes it.
        worlds.cleared("s", created_at + Duration::from_millis(1));
        assert_eq!(worlds.get("s"), None);
    }

    #[test]
    fn a_clear_takes_the_worlds_of_the_sessions_in_process_frames() {
        let worlds = worlds();
        let world = |id: &str| super::IsolatedWorld {
            unique_id: id.into(),
            context_id: 1,
            nonce: "n".into(),
        };
        worlds.remember("s/F1", world("f1"));
        worlds.remember("s2/F2", world("f2"));
        worlds.cleared("s", Instant::now() + Duration::from_millis(1));
        assert_eq!(worlds.get("s/F1"), None);
        assert!(worlds.get("s2/F2").is_some());
        worlds.drop_session("s2");
        assert_eq!(worlds.get("s2/F2"), None);
    }

    #[test]
    fn an_older_world_never_replaces_a_newer_one() {
        let worlds = worlds();
        let t0 = Instant::now();
        created(&worlds, "newer", t0 + Duration::from_millis(2));
        created(&worlds, "older", t0);
        assert_eq!(worlds.get("s").map(|w| w.unique_id), Some("newer".into()));
    }
}
