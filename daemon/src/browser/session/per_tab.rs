//! What the session keeps, installs and closes per tab, decided here for every room: the parts
//! a tab's record holds (its console and network logs, its screencast, its layout, the tools'
//! isolated world, its open popups and menus), the scripts each of its documents runs (the
//! title observer, the pane's world, the file picker), what an agent's popup's first page
//! meets (the URL guard), and what waits for the person in a tab that goes (login prompts, file
//! choosers and handed files, approvals). `tabs::tracking` calls these when a tab is tracked
//! and in `untrack`, the one place a tab is forgotten.

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
    }
}
