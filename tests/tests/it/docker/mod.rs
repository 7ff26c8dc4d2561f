//! Docker mode against the real engine and the real sidecar image: the sidecar's life
//! (`sidecar`), a start step by step (`start`), the idle pause (`pause`), the warm spare
//! (`spare`), profile resets across modes (`reset`) and the sidecar hub's bounds (`bounds`).
//! A remote engine is in `remote`; the pane in docker mode in `pane::docker`.

mod bounds;
mod pause;
mod reset;
mod sidecar;
mod spare;
mod start;
