//! The page and its tabs: navigation, history, page info and text, screenshots and the window
//! ([`browse`]), `evaluate` ([`evaluate`]), the tab tools ([`tab_list`]) and `handle_dialog`
//! ([`dialog_answers`]).

pub(crate) mod browse;
pub(crate) mod dialog_answers;
pub(crate) mod evaluate;
pub(crate) mod tab_list;
