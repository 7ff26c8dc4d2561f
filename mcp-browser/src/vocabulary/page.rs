//! Arguments of the tools that load and read the page: `navigate`, `read_page`,
//! `get_page_text`, `find`, `evaluate`, and [`NoArgs`] for the tools that take none
//! (`go_back`, `go_forward`, `reload`, `page_info`, `list_tabs`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::{check_not_blank, check_range, Validate};
use super::wait::{impl_has_wait, HasWait};

/// Default and largest `max_chars` for `read_page` and `get_page_text`.
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
    /// The URL to load, e.g. "https://example.com/login". A URL without a scheme gets https://.
    pub url: String,
    /// CSS selector to wait for after loading: the call succeeds only once an element matches
    /// it (polled every 250 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for_selector: Option<String>,
    /// Text to wait for after loading: the call succeeds only once it appears in the page's
    /// visible text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for_text: Option<String>,
    /// How long to wait for wait_for_selector / wait_for_text, in milliseconds (default 10000,
    /// max 60000). Timing out is an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 60000))]
    pub wait_timeout_ms: Option<u64>,
}
impl_has_wait!(NavigateArgs);

impl Validate for NavigateArgs {
    fn validate(&mut self) -> Result<(), String> {
        check_not_blank("url", Some(&self.url))?;
        self.url = normalize_url(&self.url)?;
        self.validate_wait()
    }
}

/// Trims `raw`, gives a scheme-less URL `https://` (`http://` for localhost and loopback IPs),
/// and checks that the result parses. `javascript:` URLs are refused (use `evaluate`).
pub fn normalize_url(raw: &str) -> Result<String, String> {
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
        .map_err(|e| format!("argument `url` is not a valid URL ({raw:?}: {e})"))
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

/// `read_page`: an accessibility-tree snapshot with refs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadPageArgs {
    /// "interactive" (default): only elements one can act on; "all": every element with a role
    /// or text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<ReadPageFilter>,
    /// How many levels of the tree to include (default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1000))]
    pub depth: Option<u32>,
    /// Cut the snapshot after this many characters, with a note saying so (default 20000, max
    /// 200000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 200000))]
    pub max_chars: Option<u32>,
}

impl ReadPageArgs {
    /// The filter, defaulting to interactive.
    pub fn filter(&self) -> ReadPageFilter {
        self.filter.unwrap_or_default()
    }
    /// The size cap, defaulting to [`DEFAULT_MAX_CHARS`].
    pub fn max_chars(&self) -> usize {
        self.max_chars.unwrap_or(DEFAULT_MAX_CHARS) as usize
    }
}

impl Validate for ReadPageArgs {
    fn validate(&mut self) -> Result<(), String> {
        check_range("depth", self.depth, 1, 1000)?;
        check_range("max_chars", self.max_chars, 1, MAX_MAX_CHARS)
    }
}

/// `get_page_text`: the page's readable text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetPageTextArgs {
    /// Cut the text after this many characters, with a note saying so (default 20000, max
    /// 200000).
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
    fn validate(&mut self) -> Result<(), String> {
        check_range("max_chars", self.max_chars, 1, MAX_MAX_CHARS)
    }
}

/// `find`: elements matching a description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FindArgs {
    /// What to look for, e.g. "login button", "email", "Add to cart". Matched (case-insensitive)
    /// against each element's accessible name, text, label, placeholder and role.
    pub query: String,
    /// At most this many matches (default 20, max 100).
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
    fn validate(&mut self) -> Result<(), String> {
        check_not_blank("query", Some(&self.query))?;
        check_range("max_results", self.max_results, 1, MAX_FIND_RESULTS)
    }
}

/// `evaluate`: run JavaScript in the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EvaluateArgs {
    /// A JavaScript expression, evaluated in the active tab's main frame; a promise is awaited.
    /// The value is returned as JSON, e.g. "document.title" or
    /// "[...document.querySelectorAll('a')].map(a => a.href)".
    pub expression: String,
}

impl Validate for EvaluateArgs {
    fn validate(&mut self) -> Result<(), String> {
        check_not_blank("expression", Some(&self.expression))
    }
}
