//! Each room's handle, lent by the session: it borrows the core and only the part of the
//! session's state that room works on (`session.dialogs()`, `session.agent_tabs()` …). The rest
//! of the daemon reaches the rooms only through these.

use super::handle::BrowserSession;
use super::paused::Paused;
use crate::browser::files::person_files::PersonFiles;
use crate::browser::files::transfers::SessionFiles;
use crate::browser::guard::notes::AgentNotes;
use crate::browser::guard::redirects::UrlGuard;
use crate::browser::guard::sites::Sites;
use crate::browser::prompts::approvals::Approvals;
use crate::browser::prompts::auth::Auth;
use crate::browser::prompts::context_menu::ContextMenus;
use crate::browser::prompts::dialogs::Dialogs;
use crate::browser::prompts::select_popup::Popups;
use crate::browser::tabs::agent_tabs::AgentTabs;
use crate::browser::tabs::logs::TabLogs;
use crate::browser::tabs::navigation::Navigation;
use crate::browser::tabs::ref_books::RefBooks;
use crate::browser::tabs::tracking::TabLife;
use crate::browser::tabs::worlds::Worlds;
use crate::browser::view::find::Find;
use crate::browser::view::zoom::Zoom;

impl BrowserSession {
    // Room handles of prompts/ and view/ (each borrows what it works on).

    /// The JavaScript dialogs of this session's tabs.
    pub(crate) fn dialogs(&self) -> Dialogs<'_> {
        Dialogs::new(&self.core)
    }

    /// The file choosers and files the person hands this session's tabs.
    pub(crate) fn person_files(&self) -> PersonFiles<'_> {
        PersonFiles::new(&self.core, &self.prompts.files, &self.tools.files)
    }

    /// The `<select>` and `<input>` popups open in this session's tabs.
    pub(crate) fn popups(&self) -> Popups<'_> {
        Popups::new(&self.core, &self.prompts.popups)
    }

    /// The context menus the person opened in this session's tabs.
    pub(crate) fn context_menus(&self) -> ContextMenus<'_> {
        ContextMenus::new(&self.core, &self.prompts.popups)
    }

    /// Find in page in this session's tabs.
    pub(crate) fn find(&self) -> Find<'_> {
        Find::new(&self.core)
    }

    /// The pixel ratio and page zoom of this session's tabs.
    pub(crate) fn zoom(&self) -> Zoom<'_> {
        Zoom::new(&self.core)
    }

    // Room handles of guard/, approvals and auth.

    /// The URL guard: agents' tabs kept off browser-internal pages.
    pub(crate) fn url_guard(&self) -> UrlGuard<'_> {
        UrlGuard::new(&self.core, &self.agents.url_guard, &self.agents.notes)
    }

    /// The notes waiting for agents' next tool results.
    pub(crate) fn agent_notes(&self) -> &AgentNotes {
        &self.agents.notes
    }

    /// The sites each agent of this session may open.
    pub(crate) fn sites(&self) -> Sites<'_> {
        Sites::new(&self.core, &self.agents.sites, &self.agents.notes)
    }

    /// Pauses at `Fetch` what the agents' rules need now (documents; data requests once an
    /// agent holds `submit`; every request once one has site rules): called when an agent's
    /// rules are set, before its call acts. A failure refuses agents with rules (see
    /// `prompts::auth`).
    pub(crate) async fn pause_what_rules_need(&self) {
        self.paused().rescope().await;
    }

    /// The requests paused at `Fetch` (owned: it follows them in a task).
    pub(in crate::browser) fn paused(&self) -> Paused {
        Paused::new(
            self.core.clone(),
            self.agents.sites.clone(),
            self.agents.consent.clone(),
            self.prompts.approvals.clone(),
            self.prompts.auth.clone(),
            self.agents.notes.clone(),
        )
    }

    /// The approvals agents' acts wait for.
    pub(crate) fn approvals(&self) -> Approvals<'_> {
        Approvals::new(&self.core, &self.prompts.approvals, &self.agents.consent)
    }

    /// The HTTP authentication prompts of this session's tabs.
    pub(crate) fn auth(&self) -> Auth<'_> {
        Auth::new(&self.core, &self.prompts.auth)
    }

    // Room handles of tabs/ and session/.

    /// Navigation in this session's tabs.
    pub(crate) fn navigation(&self) -> Navigation<'_> {
        Navigation {
            core: &self.core,
            checks: self,
        }
    }

    /// Each agent's tabs (and the owner token's: the active tab).
    pub(crate) fn agent_tabs(&self) -> AgentTabs<'_> {
        AgentTabs {
            life: self.tab_life(),
            current: &self.agents.tabs,
            locks: &self.agents.locks,
        }
    }

    /// The session's tabs coming and going.
    pub(in crate::browser) fn tab_life(&self) -> TabLife<'_> {
        TabLife {
            core: &self.core,
            traffic: &self.traffic,
            hooks: self,
        }
    }

    /// The console and network logs of this session's tabs.
    pub fn logs(&self) -> &TabLogs {
        &self.tools.logs
    }

    /// Uploaded files and downloads of this session's browser.
    pub fn files(&self) -> &SessionFiles {
        &self.tools.files
    }

    /// The MCP tools' element-ref books of this session's tabs.
    pub fn refs(&self) -> RefBooks<'_> {
        RefBooks::new(self.core.tabs())
    }

    /// The MCP tools' isolated worlds in this session's frames.
    pub(crate) fn worlds(&self) -> &Worlds {
        &self.tools.worlds
    }
}
