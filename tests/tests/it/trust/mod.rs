//! Trust boundaries through the real daemon (DESIGN.md §16, issue 38): host mode per agent,
//! one daemon per data directory, the agent socket and the owner token (`boundaries`),
//! channels' lifetimes and agents' bounds (`channels`), and bounds on what a page or a
//! download can make the daemon keep (`bounds`).

mod boundaries;
mod bounds;
mod channels;
