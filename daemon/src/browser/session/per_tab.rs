//! What the session keeps, installs and closes per tab, decided here for every room, so that
//! what dies with a tab is one list:
//! - the parts a tab's record holds, left when the record drops (`parts`): its console and
//!   network logs, its screencast, its layout and pixel scale, the tools' isolated world, its
//!   open popups and context menus (the record's own fields, its dialog, element refs and the
//!   URL guard's mark, and the frames it holds in the tab list, go with it too);
//! - what is keyed by the tab's target id and closes when it goes, tracked or not (`closed`):
//!   its login prompts, its file choosers and the files handed to it, the approvals its agent
//!   waits for, and its agent's pointer to it as its current tab;
//! - the scripts each of its documents runs (`scripts`): the title observer, the pane's world,
//!   the file picker;
//! - what an agent's popup's first page meets (`landed`): the URL guard.
//!
//! `tabs::tracking` calls these when a tab is tracked and in `untrack`, the one place a tab is
//! forgotten. Not here, on purpose: the URL guard's record of what each target shows mirrors
//! Chrome's targets, tracked or not, and forgets one on Chrome's `Target.targetDestroyed` in its
//! own follower (`guard::redirects`); an approved new site's pass expires by itself
//! (`prompts::consent`).

use futures_util::future::BoxFuture;

use super::handle::BrowserSession;
use crate::browser::floor::{install_pane_world, TabPart};
use crate::browser::tabs::tracking::TabHooks;

impl TabHooks for BrowserSession {
    fn parts(&self, target_id: &str, session_id: &str) -> Vec<TabPart> {
        let (target, session) = (target_id.to_string(), session_id.to_string());
        let logs = self.tools.logs.open(session_id);
        let hub = self.screencast.clone();
        let layouts = self.core.layouts().clone();
        let worlds = self.tools.worlds.clone();
        let popups = self.prompts.popups.clone();
        vec![
            // The recorder reaches them by a weak link: the record's is the last `Arc`.
            TabPart::new("logs", move || drop(logs)),
            TabPart::new("cast", {
                let target = target.clone();
                move || hub.forget(&target)
            }),
            TabPart::new("layout", {
                let session = session.clone();
                move || layouts.forget(&session)
            }),
            TabPart::new("world", move || worlds.drop_session(&session)),
            TabPart::new("popups", move || popups.forget_tab(&target)),
        ]
    }

    fn scripts(&self, session_id: &str) -> BoxFuture<'static, ()> {
        let (cdp, session) = (self.core.cdp().clone(), session_id.to_string());
        Box::pin(async move {
            tokio::join!(
                biased;
                crate::browser::tabs::titles::watch(&cdp, &session),
                install_pane_world(&cdp, &session, super::pane_reports::script()),
                crate::browser::files::file_pickers::install(&cdp, &session),
            );
        })
    }

    fn landed(&self, target_id: &str, url: &str) {
        self.url_guard().landing(target_id, url);
    }

    fn closed(&self, target_id: &str) {
        self.auth().forget(target_id);
        self.person_files().forget_tab(target_id);
        self.approvals().forget(target_id);
        self.agent_tabs().forget_tab(target_id);
    }
}
