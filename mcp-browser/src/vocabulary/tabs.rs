//! Arguments of the tab tools: `new_tab`, `switch_tab`, `close_tab` (and `list_tabs`, which
//! takes none), and [`TabRef`], a tab named by its `list_tabs` number or its target id.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::{check_not_blank, Problem, Validate};

/// A tab: its 1-based number as `list_tabs` shows it (`[2]` → 2), or its target id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum TabRef {
    /// The number `list_tabs` shows, starting at 1.
    Index(u32),
    /// The tab's target id.
    Id(String),
}

impl TabRef {
    /// Turns "2" and "[2]" into `Index(2)`; refuses 0 and blanks.
    fn normalize(&mut self, name: &str) -> Result<(), Problem> {
        if let TabRef::Id(s) = self {
            check_not_blank(name, Some(s))?;
            let digits = s.trim().trim_start_matches('[').trim_end_matches(']');
            if !digits.is_empty() && digits.len() <= 6 && digits.bytes().all(|b| b.is_ascii_digit())
            {
                *self = TabRef::Index(
                    digits
                        .parse()
                        .map_err(|e| Problem::from(format!("{name}: {e}")))?,
                );
            }
        }
        if *self == TabRef::Index(0) {
            return Err(format!(
                "argument `{name}`: tab numbers start at 1, as list_tabs shows them"
            )
            .into());
        }
        Ok(())
    }
}

/// `new_tab`: open a tab and make it the active one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NewTabArgs {
    /// URL to open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl Validate for NewTabArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        if let Some(url) = &self.url {
            self.url = Some(super::page::normalize_url(url)?);
        }
        Ok(())
    }
}

/// `switch_tab`: make a tab the active one and bring it to the front.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SwitchTabArgs {
    /// Number from list_tabs, or target id.
    pub tab: TabRef,
}

impl Validate for SwitchTabArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        self.tab.normalize("tab")
    }
}

/// `close_tab`: close a tab.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CloseTabArgs {
    /// Number from list_tabs, or target id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<TabRef>,
}

impl Validate for CloseTabArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        match &mut self.tab {
            Some(tab) => tab.normalize("tab"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocabulary::args::parse_args;
    use serde_json::json;

    #[test]
    fn tab_refs() {
        let t = |v| parse_args::<SwitchTabArgs>("switch_tab", &v).map(|a| a.tab);
        assert_eq!(t(json!({"tab": 2})).unwrap(), TabRef::Index(2));
        assert_eq!(t(json!({"tab": "[3]"})).unwrap(), TabRef::Index(3));
        assert_eq!(
            t(json!({"tab": "A1B2C3"})).unwrap(),
            TabRef::Id("A1B2C3".into())
        );
        assert!(t(json!({"tab": 0}))
            .unwrap_err()
            .problem
            .contains("start at 1"));
        assert!(t(json!({})).unwrap_err().problem.contains("`tab`"));
    }
}
