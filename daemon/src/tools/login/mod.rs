//! The vault's mechanics on a tab (DESIGN.md §19): `list_logins`, opening an item for a
//! caller, finding the sign-in fields and their frames' origins, and the trusted typing
//! ([`fields`]). Which fills are allowed, approved and recorded is the call pipeline's
//! (`calls`), never this room's.

pub(crate) mod fields;
pub(crate) mod vault_tools;
