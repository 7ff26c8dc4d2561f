//! Arguments of `form_input`: set a form field's value by ref, without typing key by key.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::{check_not_blank, Problem, Validate};

/// The value `form_input` sets, by the kind of field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum FormValue {
    /// Checkbox or radio: checked or not.
    Bool(bool),
    /// Number or range input.
    Number(f64),
    /// Text input, textarea, contenteditable; for a select, the option's value or visible text.
    Text(String),
    /// Multi-select: the options to select (values or visible texts); others are deselected.
    Many(Vec<String>),
}

/// `form_input`: set a field's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FormInputArgs {
    /// The field's ref.
    #[serde(rename = "ref")]
    pub element_ref: String,
    /// Text, true/false, a number, or option(s) of a select.
    pub value: FormValue,
}

impl Validate for FormInputArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        check_not_blank("ref", Some(&self.element_ref))?;
        if let FormValue::Number(n) = self.value {
            if !n.is_finite() {
                return Err("argument `value` must be a finite number".into());
            }
        }
        Ok(())
    }
}
