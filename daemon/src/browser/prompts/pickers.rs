//! The popups of `<input>` elements for the person (DESIGN.md §15 "Popups"): `<input list>`
//! suggestions (a `<datalist>`) and the date, time, datetime-local, month, week and colour
//! pickers. Chrome's screencast paints none of them, so they travel the `<select>` path (see
//! `select_popup`) with a `kind`: a datalist's suggestions go as options (re-sent under the
//! same id as the person types; an `index` or a free `value` answers), a picker goes with the
//! field's `value` (and `min`/`max`/`step` where set) and the pane draws a real `<input>` of
//! that kind so the person's own browser shows its native picker; a `value` answers.
//!
//! Owns the popup kinds, the shapes of the values each takes, and the datalist part of the
//! pane world's script. Pickers open when Chrome's own picker does (`:open`, Chromium 156:
//! the calendar or clock icon, a colour well, Alt+Down), watched by `select_popup`'s script.

use crate::browser::floor::PopupKind;

/// Longest `value` a pane may answer (characters).
pub const MAX_VALUE: usize = 10_000;

impl PopupKind {
    /// From the world's report (`picker`): the input type, `select` or `datalist`.
    pub fn from_report(name: &str) -> Option<Self> {
        Some(match name {
            "select" => PopupKind::Select,
            "datalist" => PopupKind::Datalist,
            "date" => PopupKind::Date,
            "time" => PopupKind::Time,
            "datetime-local" => PopupKind::DatetimeLocal,
            "month" => PopupKind::Month,
            "week" => PopupKind::Week,
            "color" => PopupKind::Color,
            _ => return None,
        })
    }

    /// How its value is written, for a person reading a refusal.
    pub fn shape(self) -> &'static str {
        match self {
            PopupKind::Select => "option indices",
            PopupKind::Datalist => "any text",
            PopupKind::Date => "YYYY-MM-DD",
            PopupKind::Time => "HH:MM or HH:MM:SS",
            PopupKind::DatetimeLocal => "YYYY-MM-DDTHH:MM",
            PopupKind::Month => "YYYY-MM",
            PopupKind::Week => "YYYY-Www",
            PopupKind::Color => "#rrggbb",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PopupKind::Select => "select",
            PopupKind::Datalist => "datalist",
            PopupKind::Date => "date",
            PopupKind::Time => "time",
            PopupKind::DatetimeLocal => "datetime-local",
            PopupKind::Month => "month",
            PopupKind::Week => "week",
            PopupKind::Color => "color",
        }
    }

    /// Whether `value` is written the way this kind's field takes it (an empty value clears a
    /// date or time field; a colour is never empty). Whether the date exists and lies within
    /// `min`/`max` is the page's to say (see the script).
    pub fn value_fits(self, value: &str) -> bool {
        const TIMES: &[&str] = &[
            "dd:dd",
            "dd:dd:dd",
            "dd:dd:dd.d",
            "dd:dd:dd.dd",
            "dd:dd:dd.ddd",
        ];
        let date = |v: &str| fits(v, "dddd-dd-dd");
        let time = |v: &str| TIMES.iter().any(|t| fits(v, t));
        match self {
            PopupKind::Select => false,
            PopupKind::Datalist => true,
            _ if value.is_empty() => self != PopupKind::Color,
            PopupKind::Date => date(value),
            PopupKind::Time => time(value),
            PopupKind::DatetimeLocal => value
                .split_once(['T', ' '])
                .is_some_and(|(d, t)| date(d) && time(t)),
            PopupKind::Month => fits(value, "dddd-dd"),
            PopupKind::Week => fits(value, "dddd-Wdd"),
            PopupKind::Color => fits(value, "#hhhhhh"),
        }
    }
}

/// `value` against `template`: `d` a digit, `h` a hex digit, anything else itself.
fn fits(value: &str, template: &str) -> bool {
    value.len() == template.len()
        && value.chars().zip(template.chars()).all(|(c, t)| match t {
            'd' => c.is_ascii_digit(),
            'h' => c.is_ascii_hexdigit(),
            t => c == t,
        })
}

/// Part of the pane world's script, after `select_popup`'s (whose `selects`, `selectSeq`,
/// `describe` and `report` it uses): an `<input list>` shows its suggestions on a press, as
/// the person types, and on ArrowDown. ArrowUp/ArrowDown move a highlight the pane draws
/// (`selected`) and Enter takes it; where Chrome shows a suggestion popup of its own (invisible
/// in frames) it takes those keys before the page sees them, and its pick closes the list.
/// Escape and leaving the field close it too. Offers `window.__portholeLists`.
pub(in crate::browser) const SCRIPT: &str = include_str!("js/pickers.js");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_fit_their_kind() {
        use PopupKind::*;
        for (kind, good, bad) in [
            (Date, "2026-12-01", "2026-12-1"),
            (Date, "", "12/01/2026"),
            (Time, "09:30", "9:30"),
            (Time, "09:30:15.250", "09:30:15.2500"),
            (DatetimeLocal, "2026-12-01T09:30", "2026-12-01"),
            (Month, "2026-12", "2026-12-01"),
            (Week, "2026-W49", "2026-49"),
            (Color, "#1a2B3c", ""),
            (Color, "#000000", "red"),
        ] {
            assert!(kind.value_fits(good), "{kind:?} {good}");
            assert!(!kind.value_fits(bad), "{kind:?} {bad}");
        }
        assert!(!Select.value_fits("1"));
        assert_eq!(
            PopupKind::from_report("datetime-local"),
            Some(DatetimeLocal)
        );
        assert_eq!(PopupKind::from_report("text"), None);
        assert_eq!(
            serde_json::to_value(DatetimeLocal).unwrap(),
            serde_json::json!("datetime-local")
        );
    }
}
