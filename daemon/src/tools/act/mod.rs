//! The acting tools: `computer` ([`computer`]), `form_input` ([`forms`]), the read-back of what
//! the page kept ([`readback`]), and `wait_for_*` and settling after an act ([`waits`]).

pub(crate) mod computer;
pub(crate) mod forms;
pub(crate) mod readback;
pub(crate) mod waits;
