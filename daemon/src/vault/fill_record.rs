//! One fill as the timeline records it: plain facts, never a value. A leaf, so the timeline
//! imports it without importing the tools or the call pipeline that make it.

/// One fill (or a refusal of one), by an agent's tool or by the person at a pane.
#[derive(Debug, Clone)]
pub struct FillRecord {
    pub target_id: Option<String>,
    pub title: String,
    /// The origin of the frame filled (or looked at).
    pub origin: Option<String>,
    /// `username`, `password`, `one-time code`.
    pub fields: Vec<&'static str>,
    pub ok: bool,
    /// Why not, when it was refused.
    pub why: Option<String>,
    /// The person filled it from a pane (`vault_fill`), not an agent's tool.
    pub by_person: bool,
}
