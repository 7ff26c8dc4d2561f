//! The vault (issue 37, DESIGN.md §19) with real parts: agents' fill tools and the owner's
//! routes (`tools`), the person's side through the pane (`person`), bad sources and fields
//! (`sources`) and unlocking through a real Secret Service (`keyring`). The web panel's vault
//! is in `web_panel::vault`.

mod bfcache;
mod filters;
mod framing;
mod keyring;
mod person;
mod sources;
mod tools;
mod written;
