//! Tests against profiles written by the real browsers themselves (Chromium with the basic
//! store and with GNOME Keyring, Firefox ESR running and stopped) and against damaged files.
//! Install the browsers with `scripts/setup/cookie-browsers.sh`.

#[cfg(target_os = "linux")]
mod chromium_real;
mod faults;
#[cfg(target_os = "linux")]
mod firefox_real;
mod properties;
#[cfg(target_os = "linux")]
pub(crate) mod support;
#[cfg(target_os = "linux")]
mod v11;
