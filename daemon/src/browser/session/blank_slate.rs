//! Before an idle pause (docker mode, see `providers::docker::pause`): the browser is left on
//! one about:blank tab, so that the browser the next start resumes looks like a freshly
//! started one to the person and to the agents (whose tabs went with the idle stop).

use std::time::Duration;

use serde_json::json;

use crate::browser::floor::SessionCore;

/// How long Chrome may take to list only the blank tab.
const DEADLINE: Duration = Duration::from_secs(3);
/// How often Chrome's target list is read meanwhile.
const POLL: Duration = Duration::from_millis(100);

/// Opens an about:blank tab and closes every other page. True once Chrome lists only that
/// tab; false (the caller stops the browser instead) when a page stays past [`DEADLINE`]
/// (a `beforeunload` prompt, a hung renderer) or CDP fails.
pub(in crate::browser) async fn leave_one_blank_tab(core: &SessionCore) -> bool {
    let Ok(created) = core
        .cdp()
        .call("Target.createTarget", json!({"url": "about:blank"}))
        .await
    else {
        return false;
    };
    let Some(blank) = created["targetId"].as_str().map(str::to_string) else {
        return false;
    };
    let mut asked = std::collections::HashSet::new();
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let Ok(targets) = core.cdp().call("Target.getTargets", json!({})).await else {
            return false;
        };
        let others: Vec<String> = targets["targetInfos"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["type"] == "page")
            .filter_map(|t| t["targetId"].as_str())
            .filter(|id| *id != blank)
            .map(str::to_string)
            .collect();
        if others.is_empty() {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            tracing::info!(event = "blank_slate_incomplete", channel_id = %core.channel(), pages_left = others.len(), "a page did not close");
            return false;
        }
        for id in others {
            if asked.insert(id.clone()) {
                let _ = core
                    .cdp()
                    .call("Target.closeTarget", json!({"targetId": id}))
                    .await;
            }
        }
        tokio::time::sleep(POLL).await;
    }
}
