//! Who may use which item: the person's shares (`vault.share` in config, then
//! `PUT /api/browser/vault/shares`). An item is shared with an agent when a share names the
//! item and the agent's id (or `*`); the share's `origins` narrow the item's own. Nothing is
//! shared by default, and only the owner's API changes shares.

use super::settings::VaultShare;

use super::error::VaultError;
use super::origins::{check_pattern, narrowed};

/// The most shares kept.
pub const MAX_SHARES: usize = 1000;

/// Checks a whole list of shares (nothing is changed when one is bad).
pub fn check(shares: &[VaultShare], sources: &[&str]) -> Result<(), VaultError> {
    if shares.len() > MAX_SHARES {
        return Err(VaultError::BadShare(format!(
            "{} shares; at most {MAX_SHARES}",
            shares.len()
        )));
    }
    for share in shares {
        let Some((source, path)) = super::source::split_item(&share.item) else {
            return Err(VaultError::BadShare(format!(
                "item {:?} is not <source>/<path>",
                cut(&share.item)
            )));
        };
        if !sources.contains(&source) {
            return Err(VaultError::BadShare(format!(
                "item {:?} names source {source:?}, which vault.sources does not have",
                cut(&share.item)
            )));
        }
        if path.len() > 1024 {
            return Err(VaultError::BadShare(
                "an item path is longer than 1024 bytes".into(),
            ));
        }
        if share.agents.is_empty() {
            return Err(VaultError::BadShare(format!(
                "the share of {:?} names no agent (use [\"*\"] for every agent)",
                share.item
            )));
        }
        for agent in &share.agents {
            let ok = agent == "*"
                || (!agent.is_empty()
                    && agent.len() <= 128
                    && agent
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
            if !ok {
                return Err(VaultError::BadShare(format!(
                    "agent {:?} in the share of {:?} is not \"*\" or an agent id",
                    cut(agent),
                    share.item
                )));
            }
        }
        for pattern in &share.origins {
            check_pattern(pattern).map_err(VaultError::BadShare)?;
        }
    }
    Ok(())
}

fn cut(text: &str) -> String {
    text.chars().take(80).collect()
}

/// The origins `agent` may fill `item` into, when it is shared with that agent: the item's
/// own origins, narrowed by each share that names the agent (their union). `None`: not shared.
/// The owner (`agent` None) may use every item at its own origins.
pub fn allowed_origins(
    shares: &[VaultShare],
    agent: Option<&str>,
    item: &str,
    item_origins: &[String],
) -> Option<Vec<String>> {
    let Some(agent) = agent else {
        return Some(item_origins.to_vec());
    };
    let mut allowed: Option<Vec<String>> = None;
    for share in shares.iter().filter(|s| s.item == item) {
        if !share.agents.iter().any(|a| a == "*" || a == agent) {
            continue;
        }
        let list = allowed.get_or_insert_with(Vec::new);
        for origin in narrowed(item_origins, &share.origins) {
            if !list.contains(&origin) {
                list.push(origin);
            }
        }
    }
    allowed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(item: &str, agents: &[&str], origins: &[&str]) -> VaultShare {
        VaultShare {
            item: item.into(),
            agents: agents.iter().map(|a| a.to_string()).collect(),
            origins: origins.iter().map(|a| a.to_string()).collect(),
        }
    }

    #[test]
    fn nothing_is_shared_by_default_and_shares_narrow() {
        let origins = vec![
            "https://a.example".to_string(),
            "https://b.example".to_string(),
        ];
        assert_eq!(allowed_origins(&[], Some("ag1"), "kp/x", &origins), None);
        assert_eq!(
            allowed_origins(&[], None, "kp/x", &origins),
            Some(origins.clone())
        );
        let shares = [share("kp/x", &["ag1"], &["https://b.example"])];
        assert_eq!(
            allowed_origins(&shares, Some("ag1"), "kp/x", &origins),
            Some(vec!["https://b.example".to_string()])
        );
        assert_eq!(
            allowed_origins(&shares, Some("ag2"), "kp/x", &origins),
            None
        );
        assert_eq!(
            allowed_origins(&shares, Some("ag1"), "kp/y", &origins),
            None
        );
        let everyone = [share("kp/x", &["*"], &[])];
        assert_eq!(
            allowed_origins(&everyone, Some("ag2"), "kp/x", &origins),
            Some(origins)
        );
    }

    #[test]
    fn bad_shares_are_named() {
        let sources = ["kp"];
        assert!(check(&[share("kp/x", &["*"], &[])], &sources).is_ok());
        for (bad, says) in [
            (share("x", &["*"], &[]), "<source>/<path>"),
            (share("zz/x", &["*"], &[]), "does not have"),
            (share("kp/x", &[], &[]), "names no agent"),
            (share("kp/x", &["a b"], &[]), "is not"),
            (share("kp/x", &["*"], &["ftp://x"]), "scheme"),
        ] {
            let e = check(&[bad], &sources).unwrap_err().to_string();
            assert!(e.contains(says), "{e}");
        }
    }
}
