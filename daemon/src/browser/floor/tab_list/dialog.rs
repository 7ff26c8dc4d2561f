//! The JavaScript dialog open in a tab, as its record keeps it (see `entry`) and tools
//! describe it. Plain data; following and answering dialogs is `prompts::dialogs`.

use crate::browser::floor::DialogKind;

/// A dialog open in a tab.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenDialog {
    pub kind: DialogKind,
    pub message: String,
    pub default_prompt: Option<String>,
}

impl OpenDialog {
    /// How a tool result names it.
    pub fn describe(&self) -> String {
        format!(
            "A {} dialog is open in this tab saying {:?}. The page waits until it is answered: \
             call handle_dialog {{accept: true or false{}}} (the person at the browser may \
             answer it too).",
            self.kind.as_str(),
            self.message,
            if self.kind == DialogKind::Prompt {
                ", text"
            } else {
                ""
            }
        )
    }
}
