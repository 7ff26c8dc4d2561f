//! Arguments of `computer`: mouse, keyboard, scrolling, waiting and screenshots in the common
//! computer-use action set, aimed by viewport coordinates or by a `ref` from `read_page`.
//!
//! Owns the per-action rules (which arguments each action needs) and the parsed forms the
//! backend acts on ([`PointTarget`], [`Modifiers`], the wait duration). Dispatching input is
//! the backend's job.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::{check_not_blank, check_range, Problem, Validate};
use super::wait::{impl_has_wait, HasWait};

/// The longest `duration` accepted for `wait`, in seconds.
pub const MAX_WAIT_SECONDS: f64 = 60.0;
/// `scroll_amount` when none is given.
pub const DEFAULT_SCROLL_AMOUNT: u32 = 3;
/// Pixels one scroll tick moves.
pub const SCROLL_TICK_PX: f64 = 100.0;

/// What `computer` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
pub enum ComputerAction {
    /// Click the left button at `coordinate` or on `ref`.
    LeftClick,
    /// Click the right button at `coordinate` or on `ref`.
    RightClick,
    /// Double-click at `coordinate` or on `ref`.
    DoubleClick,
    /// Triple-click (select a line/paragraph) at `coordinate` or on `ref`.
    TripleClick,
    /// Move the mouse to `coordinate` or `ref` without clicking.
    MouseMove,
    /// Press at `start_coordinate` (or `ref`), drag to `coordinate`, release.
    LeftClickDrag,
    /// Scroll `scroll_direction` by `scroll_amount` ticks at `coordinate`/`ref` (default: page centre).
    Scroll,
    /// Type `text` (into `ref`/`coordinate` after clicking it, or wherever focus is).
    Type,
    /// Press the key or chord in `text`, e.g. "Enter", "ctrl+a"; space-separated keys in turn.
    Key,
    /// Hover over `coordinate` or `ref` (same as mouse_move).
    Hover,
    /// Wait `duration` seconds, or until wait_for_selector / wait_for_text match.
    Wait,
    /// Take a screenshot of the viewport.
    Screenshot,
}

impl ComputerAction {
    /// The action's name as the model writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            ComputerAction::LeftClick => "left_click",
            ComputerAction::RightClick => "right_click",
            ComputerAction::DoubleClick => "double_click",
            ComputerAction::TripleClick => "triple_click",
            ComputerAction::MouseMove => "mouse_move",
            ComputerAction::LeftClickDrag => "left_click_drag",
            ComputerAction::Scroll => "scroll",
            ComputerAction::Type => "type",
            ComputerAction::Key => "key",
            ComputerAction::Hover => "hover",
            ComputerAction::Wait => "wait",
            ComputerAction::Screenshot => "screenshot",
        }
    }

    /// True for `wait` and `screenshot`, which wait for wait_for_* *before* acting; every other
    /// action waits after acting.
    pub fn waits_first(self) -> bool {
        matches!(self, ComputerAction::Wait | ComputerAction::Screenshot)
    }
}

/// Which way `scroll` moves the content into view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
pub enum ScrollDirection {
    /// Towards the top.
    Up,
    /// Towards the bottom.
    Down,
    /// Towards the left edge.
    Left,
    /// Towards the right edge.
    Right,
}

/// `computer`: act on the page like a person with a mouse and keyboard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ComputerArgs {
    /// What to do.
    pub action: ComputerAction,
    /// [x, y] in viewport pixels (or use ref).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coordinate: Option<[f64; 2]>,
    /// Drag start [x, y]; coordinate is the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_coordinate: Option<[f64; 2]>,
    /// Element ref, e.g. "e12".
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub element_ref: Option<String>,
    /// type: text. key: keys, e.g. "Enter", "ctrl+a", "Tab Tab".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// For scroll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scroll_direction: Option<ScrollDirection>,
    /// Scroll ticks of 100 px (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 50))]
    pub scroll_amount: Option<u32>,
    /// wait: seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 60))]
    pub duration: Option<f64>,
    /// Held keys, e.g. "ctrl+shift".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modifiers: Option<String>,
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
impl_has_wait!(ComputerArgs);

/// Where a pointer action lands.
#[derive(Debug, Clone, PartialEq)]
pub enum PointTarget {
    /// Viewport CSS pixels.
    Coordinate {
        /// x
        x: f64,
        /// y
        y: f64,
    },
    /// An element ref from `read_page` / `find`.
    Ref(String),
}

impl ComputerArgs {
    /// `ref` if given, else `coordinate` (for every action but left_click_drag's start).
    pub fn target(&self) -> Option<PointTarget> {
        point(self.element_ref.as_deref(), self.coordinate)
    }

    /// Where left_click_drag starts: `ref` if given, else `start_coordinate`.
    pub fn drag_start(&self) -> Option<PointTarget> {
        point(self.element_ref.as_deref(), self.start_coordinate)
    }

    /// The modifier keys (validated; empty when none).
    pub fn modifier_bits(&self) -> Modifiers {
        self.modifiers
            .as_deref()
            .map(Modifiers::parse)
            .transpose()
            .ok()
            .flatten()
            .unwrap_or_default()
    }

    /// For wait: the pause, when `duration` was given.
    pub fn wait_duration(&self) -> Option<Duration> {
        self.duration.map(Duration::from_secs_f64)
    }

    /// For scroll: ticks, defaulting to [`DEFAULT_SCROLL_AMOUNT`].
    pub fn scroll_amount(&self) -> u32 {
        self.scroll_amount.unwrap_or(DEFAULT_SCROLL_AMOUNT)
    }
}

fn point(element_ref: Option<&str>, coordinate: Option<[f64; 2]>) -> Option<PointTarget> {
    match (element_ref, coordinate) {
        (Some(r), _) => Some(PointTarget::Ref(r.to_owned())),
        (None, Some([x, y])) => Some(PointTarget::Coordinate { x, y }),
        (None, None) => None,
    }
}

fn check_coordinate(name: &str, c: Option<[f64; 2]>) -> Result<(), Problem> {
    match c {
        Some([x, y]) if !(x.is_finite() && y.is_finite() && x >= 0.0 && y >= 0.0) => Err(format!(
            "argument `{name}` must be two non-negative numbers [x, y], got [{x}, {y}]"
        )
        .into()),
        _ => Ok(()),
    }
}

impl Validate for ComputerArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        use ComputerAction as A;
        check_coordinate("coordinate", self.coordinate)?;
        check_coordinate("start_coordinate", self.start_coordinate)?;
        check_not_blank("ref", self.element_ref.as_deref())?;
        check_range("scroll_amount", self.scroll_amount, 1, 50)?;
        if let Some(d) = self.duration {
            if !(d.is_finite() && (0.0..=MAX_WAIT_SECONDS).contains(&d)) {
                return Err(format!(
                    "argument `duration` is in seconds and must be between 0 and {MAX_WAIT_SECONDS}, got {d}"
                ).into());
            }
        }
        if let Some(m) = &self.modifiers {
            Modifiers::parse(m)?;
        }
        self.validate_wait()?;
        let action = self.action.as_str();
        match self.action {
            A::LeftClick
            | A::RightClick
            | A::DoubleClick
            | A::TripleClick
            | A::MouseMove
            | A::Hover => {
                if self.element_ref.is_none() && self.coordinate.is_none() {
                    return Err(format!(
                        "action `{action}` needs `coordinate` [x, y] or `ref` (from read_page or find)"
                    ).into());
                }
            }
            A::LeftClickDrag => {
                if self.drag_start().is_none() || self.coordinate.is_none() {
                    return Err(
                        "action `left_click_drag` needs `start_coordinate` (or `ref`) where the drag starts and `coordinate` where it ends"
                            .into(),
                    );
                }
            }
            A::Scroll => {
                if self.scroll_direction.is_none() {
                    return Err(
                        "action `scroll` needs `scroll_direction` (up, down, left or right)".into(),
                    );
                }
            }
            A::Type | A::Key => {
                if matches!(self.text.as_deref(), None | Some("")) {
                    let what = if self.action == A::Type {
                        "the text to type"
                    } else {
                        "the key, e.g. \"Enter\" or \"ctrl+a\""
                    };
                    return Err(format!("action `{action}` needs `text`: {what}").into());
                }
            }
            A::Wait => {
                if self.duration.is_none() && self.wait().is_none() {
                    return Err(
                        "action `wait` needs `duration` (seconds) or `wait_for_selector` / `wait_for_text`"
                            .into(),
                    );
                }
            }
            A::Screenshot => {}
        }
        Ok(())
    }
}

/// Modifier keys as CDP's bitmask: Alt=1, Ctrl=2, Meta=4, Shift=8.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Modifiers(pub u8);

impl Modifiers {
    /// Alt / Option.
    pub const ALT: u8 = 1;
    /// Control.
    pub const CTRL: u8 = 2;
    /// Meta / Command / Super.
    pub const META: u8 = 4;
    /// Shift.
    pub const SHIFT: u8 = 8;

    /// Parses "ctrl+shift" (also "Control", "cmd", "ControlOrMeta"; separators `+`, `,` or
    /// spaces). An unknown name is an error naming it.
    pub fn parse(s: &str) -> Result<Self, Problem> {
        let mut bits = 0;
        for name in s
            .split(['+', ',', ' '])
            .map(str::trim)
            .filter(|n| !n.is_empty())
        {
            bits |= match name.to_ascii_lowercase().as_str() {
                "alt" | "option" | "opt" => Self::ALT,
                "ctrl" | "control" | "controlormeta" => Self::CTRL,
                "meta" | "cmd" | "command" | "super" | "win" | "os" => Self::META,
                "shift" => Self::SHIFT,
                _ => {
                    return Err(format!(
                        "argument `modifiers`: unknown modifier `{name}` (use ctrl, shift, alt, meta joined by +)"
                    ).into())
                }
            };
        }
        Ok(Self(bits))
    }

    /// True when `bit` (one of the constants) is held.
    pub fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocabulary::args::{parse_args, ArgError};
    use serde_json::json;

    fn parse(v: serde_json::Value) -> Result<ComputerArgs, ArgError> {
        parse_args::<ComputerArgs>("computer", &v)
    }

    #[test]
    fn actions_need_their_arguments() {
        assert!(parse(json!({"action": "left_click"}))
            .unwrap_err()
            .problem
            .contains("`coordinate`"));
        assert!(parse(json!({"action": "left_click", "ref": "e3"})).is_ok());
        assert!(parse(json!({"action": "scroll"}))
            .unwrap_err()
            .problem
            .contains("scroll_direction"));
        assert!(parse(json!({"action": "key"}))
            .unwrap_err()
            .problem
            .contains("`text`"));
        assert!(parse(json!({"action": "wait"}))
            .unwrap_err()
            .problem
            .contains("duration"));
        assert!(parse(json!({"action": "wait", "duration": 120}))
            .unwrap_err()
            .problem
            .contains("seconds"));
        assert!(parse(json!({"action": "left_click_drag", "coordinate": [1, 2]})).is_err());
        assert!(parse(json!({"action": "clik"}))
            .unwrap_err()
            .problem
            .contains("unknown variant `clik`"));
        let a = parse(json!({"action": "key", "text": "a", "modifiers": "Ctrl+Shift"})).unwrap();
        assert_eq!(
            a.modifier_bits(),
            Modifiers(Modifiers::CTRL | Modifiers::SHIFT)
        );
        assert!(
            parse(json!({"action": "key", "text": "a", "modifiers": "hyper"}))
                .unwrap_err()
                .problem
                .contains("`hyper`")
        );
        let w = parse(json!({"action": "wait", "duration": 0.5})).unwrap();
        assert_eq!(w.wait_duration(), Some(Duration::from_millis(500)));
    }
}
