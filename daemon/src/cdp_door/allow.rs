//! The door's allow table (DESIGN.md §21): every CDP domain and method a client may send, what
//! the door does with it, and why. One place: anything not here is refused with a CDP error
//! naming the rule. Read top to bottom, the first row that names a method decides:
//! [`CONFINED`], then [`REFUSED`], then [`ANSWERED`], then the `Target` domain the door plays itself
//! ([`TARGET_METHODS`]), then [`BROWSER_FORWARDED`] on the browser socket and [`FORWARDED`] on
//! a client's own page session.

/// What the door does with one command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rule {
    /// Sent to Chrome as it is (on the client's own flat session, or at browser level for the
    /// few browser-level reads in [`BROWSER_FORWARDED`]).
    Forward,
    /// A `Target` method the door answers from the agent's own tabs (`targets.rs`).
    Target,
    /// Answered with success by Porthole, never sent: nothing an agent does takes the
    /// person's view or focus, or the browser down.
    NoEffect,
    /// `Browser.close`: the tabs this connection opened close and the connection ends.
    CloseConnection,
    /// Run by the door, confined to what the agent may reach (its sites, its own cookies, its
    /// download directory).
    Confined(Confined),
    /// Refused, with the reason the client reads.
    Refused(&'static str),
}

/// How a confined command is confined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Confined {
    /// A cookie read, write or deletion (`cookies.rs`).
    Cookies(CookieCall),
    /// The client's download behaviour: answered, never applied; the browser keeps saving to
    /// the channel's download directory, and the client gets the download events of its tabs
    /// when it asked for them (`door.rs`).
    Downloads,
    /// `DOM.setFileInputFiles`: only files the agent uploaded, by name (`files.rs`).
    FileInput,
}

/// What a confined cookie command does (`cookies.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CookieCall {
    Read,
    Write,
    Delete,
}

/// Which methods of a domain pass.
pub(super) enum Methods {
    /// Every method of the domain (bar the rows of [`REFUSED`] and [`ANSWERED`]).
    All,
    /// Only these.
    Only(&'static [&'static str]),
}

/// One forwarded domain and why it may pass.
pub(super) struct Domain {
    pub(super) name: &'static str,
    pub(super) methods: Methods,
    /// Why a client may use it on its own tab.
    #[allow(dead_code)] // the table's documentation, read by people and its unit test
    pub(super) reason: &'static str,
}

/// Domains a client may use on a flat session of its own tab. Each acts on that tab's page
/// only; what reaches beyond it (cookies of every site, storage of other origins, the
/// browser's state) is refused above.
pub(super) const FORWARDED: &[Domain] = &[
    Domain { name: "Page", methods: Methods::All, reason: "the tab's own page: navigation (checked against the agent's sites first), lifecycle, frames, screenshots, scripts on new documents" },
    Domain { name: "Runtime", methods: Methods::All, reason: "script in the tab's own documents, as MCP evaluate (which is why `evaluate` in deny_tools closes the door)" },
    Domain { name: "DOM", methods: Methods::All, reason: "the tab's own document tree" },
    Domain { name: "DOMDebugger", methods: Methods::All, reason: "event listeners and breakpoints in the tab's own document" },
    Domain { name: "DOMSnapshot", methods: Methods::All, reason: "a snapshot of the tab's own document" },
    Domain { name: "CSS", methods: Methods::All, reason: "the tab's own style sheets" },
    Domain { name: "Overlay", methods: Methods::All, reason: "highlights drawn in the tab's own page" },
    Domain { name: "Accessibility", methods: Methods::All, reason: "the tab's own accessibility tree" },
    Domain { name: "Emulation", methods: Methods::All, reason: "the tab's own viewport, media and focus emulation" },
    Domain { name: "Input", methods: Methods::All, reason: "input to the tab, refused while the person holds control or uses the tab" },
    Domain { name: "Network", methods: Methods::All, reason: "the tab's own requests; sites hold at the network layer below the client; cookie values in its events are hidden unless the agent set the cookie (cookie_mask.rs), its cookie methods are confined above" },
    Domain { name: "Fetch", methods: Methods::All, reason: "the client's own interception of its tab's requests; a request continued to a new URL is checked against the agent's sites again" },
    Domain { name: "Log", methods: Methods::All, reason: "the tab's own log" },
    Domain { name: "Console", methods: Methods::All, reason: "the tab's own console" },
    Domain { name: "Security", methods: Methods::Only(&["enable", "disable"]), reason: "the tab's security state, read only" },
    Domain { name: "Performance", methods: Methods::All, reason: "the tab's own metrics" },
    Domain { name: "PerformanceTimeline", methods: Methods::All, reason: "the tab's own timeline events" },
    Domain { name: "Debugger", methods: Methods::All, reason: "script in the tab's own documents (as Runtime)" },
    Domain { name: "Profiler", methods: Methods::All, reason: "profiles of the tab's own script" },
    Domain { name: "HeapProfiler", methods: Methods::All, reason: "the tab's own heap" },
    Domain { name: "Animation", methods: Methods::All, reason: "the tab's own animations" },
    Domain { name: "Audits", methods: Methods::All, reason: "issues of the tab's own page" },
    Domain { name: "LayerTree", methods: Methods::All, reason: "the tab's own layers" },
    Domain { name: "Inspector", methods: Methods::All, reason: "the tab's own inspector events" },
    Domain { name: "Media", methods: Methods::All, reason: "the tab's own media players" },
    Domain { name: "IO", methods: Methods::All, reason: "streams the client's own commands returned (PDFs, responses)" },
    Domain { name: "Target", methods: Methods::Only(&["setAutoAttach", "getTargetInfo", "detachFromTarget"]), reason: "the tab's own frames and workers, attached to the client's session" },
    Domain { name: "Schema", methods: Methods::All, reason: "which domains exist" },
];

/// Browser-level methods sent to Chrome as they are: reads about the browser itself.
pub(super) const BROWSER_FORWARDED: &[Domain] = &[
    Domain {
        name: "Browser",
        methods: Methods::Only(&["getVersion"]),
        reason: "the browser's product and protocol version, as json/version says",
    },
    Domain {
        name: "Schema",
        methods: Methods::All,
        reason: "which domains exist",
    },
];

/// The `Target` methods the door answers itself at browser level, from the agent's tabs
/// only, so the person's and other agents' tabs never exist for the client.
pub(super) const TARGET_METHODS: &[&str] = &[
    "getTargets",
    "getTargetInfo",
    "setDiscoverTargets",
    "setAutoAttach",
    "attachToTarget",
    "detachFromTarget",
    "createTarget",
    "closeTarget",
    "getBrowserContexts",
    "sendMessageToTarget",
    "attachToBrowserTarget",
];

/// Answered with success and no effect (a method, or a prefix ending in `*`).
pub(super) const ANSWERED: &[(&str, &str)] = &[
    (
        "Browser.crash*",
        "the browser is shared; a client never takes it down",
    ),
    ("Browser.setWindowBounds", "the window is the person's view"),
    (
        "Target.activateTarget",
        "nothing an agent does takes the person's focus",
    ),
    (
        "Page.bringToFront",
        "nothing an agent does takes the person's focus",
    ),
];

/// Run by the door, confined, with why (checked before [`REFUSED`], whose `Storage.*` row
/// would name the `Storage` cookie methods).
pub(super) const CONFINED: &[(&str, Confined, &str)] = &[
    ("Network.getCookies", Confined::Cookies(CookieCall::Read), "cookies of sites the agent may open only, each value hidden unless the agent set that cookie through the door (the cookie-import promise: values never leave)"),
    ("Network.getAllCookies", Confined::Cookies(CookieCall::Read), "cookies of sites the agent may open only, each value hidden unless the agent set that cookie through the door"),
    ("Page.getCookies", Confined::Cookies(CookieCall::Read), "the older name of Network.getCookies, confined the same way"),
    ("Storage.getCookies", Confined::Cookies(CookieCall::Read), "cookies of sites the agent may open only, each value hidden unless the agent set that cookie through the door"),
    ("Network.setCookie", Confined::Cookies(CookieCall::Write), "cookie writes for sites the agent may open only"),
    ("Network.setCookies", Confined::Cookies(CookieCall::Write), "cookie writes for sites the agent may open only, all of a call or none"),
    ("Storage.setCookies", Confined::Cookies(CookieCall::Write), "cookie writes for sites the agent may open only, all of a call or none"),
    ("Network.deleteCookies", Confined::Cookies(CookieCall::Delete), "cookie deletions that name a site the agent may open"),
    ("Browser.setDownloadBehavior", Confined::Downloads, "downloads go to the channel's download directory (listed by `list_downloads`), never to a path the client names"),
    ("Page.setDownloadBehavior", Confined::Downloads, "downloads go to the channel's download directory (listed by `list_downloads`), never to a path the client names"),
    ("DOM.setFileInputFiles", Confined::FileInput, "only files the agent uploaded to the channel with upload_file, by name; a path on the host is never read"),
];

/// Refused with the rule (a method, or a prefix ending in `*`).
pub(super) const REFUSED: &[(&str, &str)] = &[
    (
        "Storage.clear*",
        "browser-wide: it clears every site's data, the person's too",
    ),
    (
        "Network.clearBrowserCookies",
        "browser-wide: it clears every site's cookies, the person's too",
    ),
    (
        "Network.clearBrowserCache",
        "browser-wide: it clears the person's cache too",
    ),
    (
        "Security.setIgnoreCertificateErrors",
        "browser-wide: it turns off certificate checks for every tab",
    ),
    (
        "Tracing.*",
        "browser-wide: a trace records every tab, the person's too",
    ),
    (
        "SystemInfo.*",
        "host-reaching: it describes the machine the browser runs on",
    ),
    (
        "Extensions.*",
        "host-reaching: it loads and reads the browser's extensions",
    ),
    (
        "Target.exposeDevToolsProtocol",
        "it would hand a page the raw protocol, past the door",
    ),
    (
        "Browser.executeBrowserCommand",
        "browser-wide: it runs the browser's own commands",
    ),
    (
        "Target.createBrowserContext",
        "Porthole cannot yet apply every rule inside a new browser context",
    ),
    (
        "Target.disposeBrowserContext",
        "browser contexts are not the door's to dispose",
    ),
    ("Storage.*", "storage of every origin, the person's too"),
];

/// What the door does with `method`, sent on a client's page session (`on_page`) or the
/// browser socket.
pub(super) fn rule(method: &str, on_page: bool) -> Rule {
    if let Some((_, confined, _)) = CONFINED.iter().find(|(m, _, _)| *m == method) {
        return Rule::Confined(*confined);
    }
    if let Some((_, why)) = REFUSED.iter().find(|(m, _)| names(m, method)) {
        return Rule::Refused(why);
    }
    if method == "Browser.close" && !on_page {
        return Rule::CloseConnection;
    }
    if ANSWERED.iter().any(|(m, _)| names(m, method)) {
        return Rule::NoEffect;
    }
    let Some((domain, name)) = method.split_once('.') else {
        return Rule::Refused(NOT_ON_TABLE);
    };
    if domain == "Target" && !on_page {
        return match TARGET_METHODS.contains(&name) {
            true => Rule::Target,
            false => Rule::Refused(NOT_ON_TABLE),
        };
    }
    let table = if on_page {
        FORWARDED
    } else {
        BROWSER_FORWARDED
    };
    match table.iter().find(|d| d.name == domain) {
        Some(Domain {
            methods: Methods::All,
            ..
        }) => Rule::Forward,
        Some(Domain {
            methods: Methods::Only(only),
            ..
        }) if only.contains(&name) => Rule::Forward,
        _ => Rule::Refused(NOT_ON_TABLE),
    }
}

/// The reason of a method the table does not name.
pub(super) const NOT_ON_TABLE: &str = "it is not on the CDP door's allow table (DESIGN.md §21): the door forwards only what acts on the agent's own tabs";

/// Whether table row `row` (a method, or a prefix ending in `*`) names `method`.
fn names(row: &str, method: &str) -> bool {
    match row.strip_suffix('*') {
        Some(prefix) => method.starts_with(prefix),
        None => row == method,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_named_rules_of_the_contract_hold() {
        for refused in [
            "Storage.clearDataForOrigin",
            "Network.clearBrowserCookies",
            "Security.setIgnoreCertificateErrors",
            "Tracing.start",
            "SystemInfo.getInfo",
            "Extensions.loadUnpacked",
            "Target.exposeDevToolsProtocol",
            "Browser.executeBrowserCommand",
            "Target.createBrowserContext",
            "Nope.nothing",
            "no dot",
            "Browser.getBrowserCommandLine",
        ] {
            assert!(
                matches!(rule(refused, true), Rule::Refused(_)),
                "{refused} on a page"
            );
            assert!(
                matches!(rule(refused, false), Rule::Refused(_)),
                "{refused}"
            );
        }
        for answered in [
            "Browser.crashGpuProcess",
            "Browser.crash",
            "Target.activateTarget",
            "Page.bringToFront",
            "Browser.setWindowBounds",
        ] {
            assert_eq!(rule(answered, false), Rule::NoEffect, "{answered}");
        }
        assert_eq!(rule("Browser.close", false), Rule::CloseConnection);
        assert_eq!(rule("Target.getTargets", false), Rule::Target);
        assert_eq!(rule("Target.setAutoAttach", true), Rule::Forward);
        assert_eq!(
            rule("Target.createTarget", true),
            Rule::Refused(NOT_ON_TABLE)
        );
        assert_eq!(rule("Page.navigate", true), Rule::Forward);
        assert_eq!(rule("Page.navigate", false), Rule::Refused(NOT_ON_TABLE));
        assert_eq!(rule("Security.enable", true), Rule::Forward);
        for level in [true, false] {
            assert_eq!(
                rule("Storage.getCookies", level),
                Rule::Confined(Confined::Cookies(CookieCall::Read))
            );
            assert_eq!(
                rule("Network.setCookies", level),
                Rule::Confined(Confined::Cookies(CookieCall::Write))
            );
            assert_eq!(
                rule("Browser.setDownloadBehavior", level),
                Rule::Confined(Confined::Downloads)
            );
            assert_eq!(
                rule("DOM.setFileInputFiles", level),
                Rule::Confined(Confined::FileInput)
            );
            assert!(matches!(
                rule("Storage.clearCookies", level),
                Rule::Refused(_)
            ));
            assert!(matches!(
                rule("Storage.getUsageAndQuota", level),
                Rule::Refused(_)
            ));
        }
    }

    #[test]
    fn every_forwarded_domain_says_why() {
        for domain in FORWARDED.iter().chain(BROWSER_FORWARDED) {
            assert!(domain.reason.len() > 10, "{}", domain.name);
        }
        for (method, _, reason) in CONFINED {
            assert!(reason.len() > 10, "{method}");
        }
    }
}
