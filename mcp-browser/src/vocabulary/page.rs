//! Arguments of the tools that load and read the page: `navigate`, `read_page`,
//! `get_page_text`, `find`, `evaluate`, and [`NoArgs`] for the tools that take none
//! (`go_back`, `go_forward`, `reload`, `page_info`, `list_tabs`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::{check_not_blank, check_range, Problem, Validate};
use super::wait::{impl_has_wait, HasWait};

/// Default `max_chars` for `get_page_text`.
pub const DEFAULT_MAX_CHARS: u32 = 20_000;
/// The largest `max_chars` accepted.
pub const MAX_MAX_CHARS: u32 = 200_000;
/// Default `max_results` for `find`.
pub const DEFAULT_FIND_RESULTS: u32 = 20;
/// The largest `max_results` accepted by `find`.
pub const MAX_FIND_RESULTS: u32 = 100;

/// Arguments of a tool that takes none.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NoArgs {}

impl Validate for NoArgs {}

/// `navigate`: load a URL in the active tab.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NavigateArgs {
    /// URL to load.
    pub url: String,
    /// CSS selector to wait for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for_selector: Option<String>,
    /// Text to wait for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for_text: Option<String>,
    /// Wait limit in ms (default 10000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 60000))]
    pub wait_timeout_ms: Option<u64>,
}
impl_has_wait!(NavigateArgs);

impl Validate for NavigateArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        check_not_blank("url", Some(&self.url))?;
        self.url = normalize_url(&self.url)?;
        self.validate_wait()
    }
}

/// Trims `raw`, gives a scheme-less URL `https://` (`http://` for localhost and loopback IPs),
/// and checks that the result parses. `javascript:` URLs are refused (use `evaluate`).
pub fn normalize_url(raw: &str) -> Result<String, Problem> {
    let raw = raw.trim();
    const KEEP: [&str; 5] = ["about:", "data:", "file:", "chrome:", "blob:"];
    let lower = raw.to_ascii_lowercase();
    if lower.starts_with("javascript:") {
        return Err("argument `url` must not be a javascript: URL; use the evaluate tool".into());
    }
    let with_scheme = if raw.contains("://") || KEEP.iter().any(|k| lower.starts_with(k)) {
        raw.to_owned()
    } else {
        let loopback = ["localhost", "127.", "[::1]", "0.0.0.0"]
            .iter()
            .any(|h| lower.starts_with(h));
        format!("{}://{raw}", if loopback { "http" } else { "https" })
    };
    url::Url::parse(&with_scheme)
        .map(|_| with_scheme.clone())
        .map_err(|e| format!("argument `url` is not a valid URL ({raw:?}: {e})").into())
}

/// Which elements `read_page` lists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
pub enum ReadPageFilter {
    /// Only elements one can act on (links, buttons, fields, …) and the landmarks around them.
    #[default]
    Interactive,
    /// Every element with a role or text.
    All,
}

/// `read_page`'s `max_bytes` when none is given.
pub const DEFAULT_READ_PAGE_BYTES: u32 = 12_000;
/// The smallest `max_bytes` accepted by `read_page`.
pub const MIN_READ_PAGE_BYTES: u32 = 500;
/// The largest `max_bytes` accepted by `read_page` (the hard cap).
pub const MAX_READ_PAGE_BYTES: u32 = 50_000;

/// `read_page`: an accessibility-tree snapshot with refs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadPageArgs {
    /// "interactive" (default) or "all" (adds text, structure and link URLs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<ReadPageFilter>,
    /// Tree levels to include (default all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1000))]
    pub depth: Option<u32>,
    /// Where to continue a cut tree (from its note).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u32>,
    /// Most bytes of tree to return (default 12000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 500, max = 50000))]
    pub max_bytes: Option<u32>,
}

impl ReadPageArgs {
    /// The filter, defaulting to interactive.
    pub fn filter(&self) -> ReadPageFilter {
        self.filter.unwrap_or_default()
    }
    /// The size cap, defaulting to [`DEFAULT_READ_PAGE_BYTES`].
    pub fn max_bytes(&self) -> usize {
        self.max_bytes.unwrap_or(DEFAULT_READ_PAGE_BYTES) as usize
    }
    /// Where the returned part starts, in bytes of the whole snapshot.
    pub fn offset(&self) -> usize {
        self.offset.unwrap_or(0) as usize
    }
}

impl Validate for ReadPageArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        check_range("depth", self.depth, 1, 1000)?;
        check_range(
            "max_bytes",
            self.max_bytes,
            MIN_READ_PAGE_BYTES,
            MAX_READ_PAGE_BYTES,
        )
    }
}

/// `get_page_text`: the page's readable text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetPageTextArgs {
    /// Most characters (default 20000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 200000))]
    pub max_chars: Option<u32>,
}

impl GetPageTextArgs {
    /// The size cap, defaulting to [`DEFAULT_MAX_CHARS`].
    pub fn max_chars(&self) -> usize {
        self.max_chars.unwrap_or(DEFAULT_MAX_CHARS) as usize
    }
}

impl Validate for GetPageTextArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        check_range("max_chars", self.max_chars, 1, MAX_MAX_CHARS)
    }
}

/// `find`: elements matching a description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FindArgs {
    /// Words to match in names, labels, text and roles.
    pub query: String,
    /// Most matches (default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 100))]
    pub max_results: Option<u32>,
}

impl FindArgs {
    /// The result cap, defaulting to [`DEFAULT_FIND_RESULTS`].
    pub fn max_results(&self) -> usize {
        self.max_results.unwrap_or(DEFAULT_FIND_RESULTS) as usize
    }
}

impl Validate for FindArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        check_not_blank("query", Some(&self.query))?;
        check_range("max_results", self.max_results, 1, MAX_FIND_RESULTS)
    }
}

/// `evaluate`: run JavaScript in the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EvaluateArgs {
    /// JavaScript expression (promises awaited).
    pub expression: String,
}

impl Validate for EvaluateArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        check_not_blank("expression", Some(&self.expression))
    }
}
