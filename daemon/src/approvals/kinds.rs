//! The kinds of approval (`confirm [kind…]`) and a parsed `confirm` list.

use serde::{Deserialize, Serialize};

/// One kind of act the person may be asked about.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalKind {
    /// A request other than GET/HEAD/OPTIONS (a form post, `fetch`/XHR) from the agent's tab
    /// while one of its calls is in flight or settling.
    Submit,
    /// A page load to a site not yet approved for this agent in this channel.
    NewSite,
    /// Files handed to a page (`upload_file`).
    Upload,
    /// A download in the agent's tab.
    Download,
    /// The agent's own script (`evaluate`).
    Evaluate,
    /// A vault fill (`fill_login`, `fill_totp`).
    Login,
}

impl ApprovalKind {
    pub const ALL: [ApprovalKind; 6] = [
        ApprovalKind::Submit,
        ApprovalKind::NewSite,
        ApprovalKind::Upload,
        ApprovalKind::Download,
        ApprovalKind::Evaluate,
        ApprovalKind::Login,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalKind::Submit => "submit",
            ApprovalKind::NewSite => "new_site",
            ApprovalKind::Upload => "upload",
            ApprovalKind::Download => "download",
            ApprovalKind::Evaluate => "evaluate",
            ApprovalKind::Login => "login",
        }
    }

    /// The act in words, for the agent and the timeline.
    pub fn describe(self) -> &'static str {
        match self {
            ApprovalKind::Submit => "a request that sends data (a form post, fetch or XHR)",
            ApprovalKind::NewSite => "a page load on a new site",
            ApprovalKind::Upload => "handing files to the page",
            ApprovalKind::Download => "a download",
            ApprovalKind::Evaluate => "running your script in the page",
            ApprovalKind::Login => "a sign-in from the vault",
        }
    }

    fn parse(text: &str) -> Result<Self, ConfirmError> {
        Self::ALL
            .into_iter()
            .find(|k| k.as_str() == text)
            .ok_or_else(|| ConfirmError::UnknownKind(text.chars().take(60).collect()))
    }
}

/// A bad `confirm` list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfirmError {
    #[error("unknown approval kind {0:?} in confirm; the kinds are submit, new_site, upload, download, evaluate and login")]
    UnknownKind(String),
}

/// The kinds an agent (or every agent) must ask the person about, as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(transparent)]
pub struct Confirm(pub Vec<String>);

impl Confirm {
    /// The kinds, each once, in order; the error names the first unknown one.
    pub fn kinds(&self) -> Result<Vec<ApprovalKind>, ConfirmError> {
        let mut kinds = self
            .0
            .iter()
            .map(|k| ApprovalKind::parse(k.trim()))
            .collect::<Result<Vec<_>, _>>()?;
        kinds.sort();
        kinds.dedup();
        Ok(kinds)
    }

    /// The same list, checked and written the one way (`["submit","evaluate"]`).
    pub fn normalized(&self) -> Result<Confirm, ConfirmError> {
        Ok(Confirm(
            self.kinds()?
                .into_iter()
                .map(|k| k.as_str().to_string())
                .collect(),
        ))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse_once_each_and_unknown_ones_are_named() {
        let confirm = Confirm(vec!["evaluate".into(), "submit".into(), "submit".into()]);
        assert_eq!(
            confirm.kinds().unwrap(),
            vec![ApprovalKind::Submit, ApprovalKind::Evaluate]
        );
        let bad = Confirm(vec!["submit".into(), "post".into()])
            .kinds()
            .unwrap_err();
        assert!(bad.to_string().contains("\"post\""), "{bad}");
        for kind in ApprovalKind::ALL {
            assert_eq!(ApprovalKind::parse(kind.as_str()).unwrap(), kind);
        }
    }
}
