//! Arguments of the vault tools (DESIGN.md §19): `list_logins` (no arguments), `fill_login`
//! and `fill_totp`. They name an item and, optionally, the fields; the secret itself never
//! travels in a call or its answer.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::{check_not_blank, Problem, Validate};

/// `fill_login`: type a shared login's user name and password into the active tab.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FillLoginArgs {
    /// From list_logins.
    pub item: String,
    /// Default: found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username_ref: Option<String>,
    /// Default: found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_ref: Option<String>,
    /// Press Enter after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submit: Option<bool>,
}

/// `fill_totp`: type a shared login's current one-time code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FillTotpArgs {
    /// From list_logins.
    pub item: String,
    /// Default: found.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element_ref: Option<String>,
    /// Press Enter after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submit: Option<bool>,
}

fn check_item(item: &str) -> Result<(), Problem> {
    check_not_blank("item", Some(item))?;
    if item.chars().count() > 1024 {
        return Err("argument `item` must be at most 1024 characters".into());
    }
    Ok(())
}

fn check_ref(name: &str, r: Option<&String>) -> Result<(), Problem> {
    match r {
        Some(r) => check_not_blank(name, Some(r)),
        None => Ok(()),
    }
}

impl Validate for FillLoginArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        check_item(&self.item)?;
        check_ref("username_ref", self.username_ref.as_ref())?;
        check_ref("password_ref", self.password_ref.as_ref())
    }
}

impl Validate for FillTotpArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        check_item(&self.item)?;
        check_ref("ref", self.element_ref.as_ref())
    }
}
