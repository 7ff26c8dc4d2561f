//! `screenshot {badges: true}`: what gets a badge and where ([`badge_scan`]), drawn on the
//! image ([`badges`]).

pub(crate) mod badge_scan;
pub(crate) mod badges;
