//! Finding the browser profiles whose cookies can be read.
//!
//! Owns: the per-OS locations of Chrome, Chromium, Edge, Brave and Firefox user data, the
//! profile names from Chromium's `Local State` (`profile.info_cache.<dir>.name`) and Firefox's
//! `profiles.ini`, and the source ids (`chrome:Default`, `firefox:<profile dir name>`).
//!
//! Must not: open any profile file other than `Local State`, `profiles.ini` and directory
//! listings; a database is only checked for existence here.
//!
//! A Chromium profile is every directory of a user-data root with a `Network/Cookies` (newer)
//! or `Cookies` file, except the internal `System Profile` and the ephemeral `Guest Profile`.
//! A Firefox profile is every `[Profile*]` section of `profiles.ini` whose directory holds a
//! `cookies.sqlite`; both the classic `~/.mozilla/firefox` and the XDG `~/.config/mozilla/firefox`
//! are read on Linux. When two roots yield the same id, the first root wins.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use super::{Browser, CookieSource};

/// An operating system layout of browser directories.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    /// `~/.config/...`, `~/.mozilla/firefox`.
    Linux,
    /// `~/Library/Application Support/...`.
    MacOs,
    /// `%LOCALAPPDATA%\...\User Data`, `%APPDATA%\Mozilla\Firefox`.
    Windows,
}

impl Platform {
    /// The platform this binary runs on.
    pub fn current() -> Self {
        if cfg!(target_os = "macos") {
            Platform::MacOs
        } else if cfg!(windows) {
            Platform::Windows
        } else {
            Platform::Linux
        }
    }
}

/// A Chromium-family browser and its user-data path parts on Linux, macOS and Windows.
type RootNames = (
    Browser,
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
);

/// Where to look for profiles. Tests point it at temp dirs.
#[derive(Debug, Clone)]
pub struct Discovery {
    /// Which layout to expect.
    pub platform: Platform,
    /// The user's home directory.
    pub home: PathBuf,
    /// Linux: `$XDG_CONFIG_HOME` (default `~/.config`).
    pub config_dir: PathBuf,
    /// Windows: `%LOCALAPPDATA%` (default `~\AppData\Local`).
    pub local_app_data: PathBuf,
    /// Windows: `%APPDATA%` (default `~\AppData\Roaming`).
    pub app_data: PathBuf,
    /// More user-data roots (a Chromium `User Data` dir, or a Firefox dir with `profiles.ini`),
    /// searched after the standard ones.
    pub extra_roots: Vec<(Browser, PathBuf)>,
}

impl Discovery {
    /// The standard locations of the current user on the current platform; `None` when the
    /// home directory is unknown (e.g. a daemon in a container without `HOME`).
    pub fn from_env() -> Option<Self> {
        let base = directories::BaseDirs::new()?;
        let mut d = Discovery::for_home(Platform::current(), base.home_dir());
        match d.platform {
            Platform::Linux => d.config_dir = base.config_dir().to_owned(),
            Platform::Windows => {
                d.local_app_data = base.data_local_dir().to_owned();
                d.app_data = base.config_dir().to_owned();
            }
            Platform::MacOs => {}
        }
        Some(d)
    }

    /// The default layout of `platform` under `home`, with no extra roots.
    pub fn for_home(platform: Platform, home: &Path) -> Self {
        Discovery {
            platform,
            home: home.to_owned(),
            config_dir: home.join(".config"),
            local_app_data: home.join("AppData").join("Local"),
            app_data: home.join("AppData").join("Roaming"),
            extra_roots: Vec::new(),
        }
    }

    /// The standard roots for this platform, Chromium family first, then Firefox.
    pub fn standard_roots(&self) -> Vec<(Browser, PathBuf)> {
        let chromium: [RootNames; 4] = [
            (
                Browser::Chrome,
                &["google-chrome"],
                &["Google", "Chrome"],
                &["Google", "Chrome", "User Data"],
            ),
            (
                Browser::Chromium,
                &["chromium"],
                &["Chromium"],
                &["Chromium", "User Data"],
            ),
            (
                Browser::Edge,
                &["microsoft-edge"],
                &["Microsoft Edge"],
                &["Microsoft", "Edge", "User Data"],
            ),
            (
                Browser::Brave,
                &["BraveSoftware", "Brave-Browser"],
                &["BraveSoftware", "Brave-Browser"],
                &["BraveSoftware", "Brave-Browser", "User Data"],
            ),
        ];
        let join =
            |base: &Path, parts: &[&str]| parts.iter().fold(base.to_owned(), |p, s| p.join(s));
        let app_support = self.home.join("Library").join("Application Support");
        let mut roots: Vec<(Browser, PathBuf)> = chromium
            .iter()
            .map(|(browser, linux, mac, windows)| {
                let root = match self.platform {
                    Platform::Linux => join(&self.config_dir, linux),
                    Platform::MacOs => join(&app_support, mac),
                    Platform::Windows => join(&self.local_app_data, windows),
                };
                (*browser, root)
            })
            .collect();
        match self.platform {
            Platform::Linux => {
                roots.push((Browser::Firefox, self.home.join(".mozilla").join("firefox")));
                roots.push((
                    Browser::Firefox,
                    self.config_dir.join("mozilla").join("firefox"),
                ));
            }
            Platform::MacOs => roots.push((Browser::Firefox, app_support.join("Firefox"))),
            Platform::Windows => roots.push((
                Browser::Firefox,
                self.app_data.join("Mozilla").join("Firefox"),
            )),
        }
        roots
    }
}

/// Every readable cookie store under the roots of `discovery`. Directories that are missing
/// or unreadable are skipped silently: "no browsers found" is an empty list, not an error.
pub fn discover_sources(discovery: &Discovery) -> Vec<CookieSource> {
    let mut roots = discovery.standard_roots();
    roots.extend(discovery.extra_roots.iter().cloned());
    let mut seen_ids = BTreeSet::new();
    let mut seen_paths = BTreeSet::new();
    let mut out = Vec::new();
    for (browser, root) in roots {
        let found = match browser {
            Browser::Firefox => firefox_profiles(&root),
            _ => chromium_profiles(browser, &root),
        };
        for source in found {
            let canonical = fs::canonicalize(&source.path).unwrap_or_else(|_| source.path.clone());
            if seen_paths.insert(canonical) && seen_ids.insert(source.id.clone()) {
                out.push(source);
            }
        }
    }
    tracing::debug!(sources = out.len(), "cookies.sources_discovered");
    out
}

/// Chromium-family profiles of one user-data root, sorted by directory name.
fn chromium_profiles(browser: Browser, root: &Path) -> Vec<CookieSource> {
    let Ok(entries) = fs::read_dir(root) else {
        return Vec::new();
    };
    let names = local_state_names(root);
    let mut dirs: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.path())))
        .filter(|(name, _)| name != "System Profile" && name != "Guest Profile")
        .collect();
    dirs.sort();
    dirs.into_iter()
        .filter_map(|(dir_name, dir)| {
            let path = [dir.join("Network").join("Cookies"), dir.join("Cookies")]
                .into_iter()
                .find(|p| p.is_file())?;
            let name = names
                .as_ref()
                .and_then(|v| v.get(&dir_name))
                .and_then(|p| p.get("name"))
                .and_then(|n| n.as_str())
                .map(str::to_owned)
                .unwrap_or_else(|| dir_name.clone());
            Some(CookieSource {
                id: format!("{}:{dir_name}", browser.id_prefix()),
                browser,
                profile: dir_name,
                name,
                path,
            })
        })
        .collect()
}

/// `profile.info_cache` of `<root>/Local State`, if readable.
fn local_state_names(root: &Path) -> Option<serde_json::Map<String, serde_json::Value>> {
    let text = fs::read_to_string(root.join("Local State")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json.get("profile")?.get("info_cache")?.as_object().cloned()
}

/// Firefox profiles listed in `<root>/profiles.ini` that hold a `cookies.sqlite`.
fn firefox_profiles(root: &Path) -> Vec<CookieSource> {
    let Ok(text) = fs::read_to_string(root.join("profiles.ini")) else {
        return Vec::new();
    };
    parse_profiles_ini(&text)
        .into_iter()
        .filter_map(|p| {
            let dir = if p.is_relative {
                root.join(&p.path)
            } else {
                PathBuf::from(&p.path)
            };
            let path = dir.join("cookies.sqlite");
            if !path.is_file() {
                return None;
            }
            let dir_name = dir.file_name()?.to_string_lossy().into_owned();
            Some(CookieSource {
                id: format!("firefox:{dir_name}"),
                browser: Browser::Firefox,
                name: p.name.unwrap_or_else(|| dir_name.clone()),
                profile: dir_name,
                path,
            })
        })
        .collect()
}

#[derive(Debug, Default, PartialEq)]
struct IniProfile {
    name: Option<String>,
    path: String,
    is_relative: bool,
}

/// The `[Profile*]` sections of a `profiles.ini`, in file order.
fn parse_profiles_ini(text: &str) -> Vec<IniProfile> {
    let mut out = Vec::new();
    let mut current: Option<IniProfile> = None;
    let flush = |current: &mut Option<IniProfile>, out: &mut Vec<IniProfile>| {
        if let Some(p) = current.take().filter(|p| !p.path.is_empty()) {
            out.push(p);
        }
    };
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') && line.ends_with(']') {
            flush(&mut current, &mut out);
            if line[1..line.len() - 1].starts_with("Profile") {
                // Firefox writes relative profiles unless told otherwise.
                current = Some(IniProfile {
                    is_relative: true,
                    ..Default::default()
                });
            }
            continue;
        }
        let (Some(p), Some((key, value))) = (current.as_mut(), line.split_once('=')) else {
            continue;
        };
        match key.trim() {
            "Name" => p.name = Some(value.trim().to_owned()),
            "Path" => p.path = value.trim().replace('\\', "/"),
            "IsRelative" => p.is_relative = value.trim() == "1",
            _ => {}
        }
    }
    flush(&mut current, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_ini() {
        let ini = "[Install4F96D1932A9F858E]\nDefault=abc.default-release\nLocked=1\n\n\
                   [Profile1]\nName=default\nIsRelative=1\nPath=xyz.default\nDefault=1\n\n\
                   [Profile0]\nName=Work stuff\nIsRelative=0\nPath=/abs/Work Dir\n\n\
                   [General]\nStartWithLastProfile=1\nVersion=2\n";
        let p = parse_profiles_ini(ini);
        assert_eq!(p.len(), 2);
        assert_eq!(
            p[0],
            IniProfile {
                name: Some("default".into()),
                path: "xyz.default".into(),
                is_relative: true
            }
        );
        assert_eq!(
            p[1],
            IniProfile {
                name: Some("Work stuff".into()),
                path: "/abs/Work Dir".into(),
                is_relative: false
            }
        );
    }

    #[test]
    fn standard_roots_per_platform() {
        let home = Path::new("/h");
        let roots = |p| {
            Discovery::for_home(p, home)
                .standard_roots()
                .into_iter()
                .map(|(b, r)| (b, r.to_string_lossy().replace('\\', "/")))
                .collect::<Vec<_>>()
        };
        let linux = roots(Platform::Linux);
        assert!(linux.contains(&(Browser::Chrome, "/h/.config/google-chrome".into())));
        assert!(linux.contains(&(
            Browser::Brave,
            "/h/.config/BraveSoftware/Brave-Browser".into()
        )));
        assert!(linux.contains(&(Browser::Firefox, "/h/.mozilla/firefox".into())));
        assert!(linux.contains(&(Browser::Firefox, "/h/.config/mozilla/firefox".into())));
        let mac = roots(Platform::MacOs);
        assert!(mac.contains(&(
            Browser::Edge,
            "/h/Library/Application Support/Microsoft Edge".into()
        )));
        assert!(mac.contains(&(
            Browser::Firefox,
            "/h/Library/Application Support/Firefox".into()
        )));
        let win = roots(Platform::Windows);
        assert!(win.contains(&(
            Browser::Chrome,
            "/h/AppData/Local/Google/Chrome/User Data".into()
        )));
        assert!(win.contains(&(
            Browser::Firefox,
            "/h/AppData/Roaming/Mozilla/Firefox".into()
        )));
    }

    #[test]
    fn discovers_chromium_and_firefox_profiles_in_a_fake_home() {
        let home = tempfile::tempdir().unwrap();
        let chrome = home.path().join(".config/google-chrome");
        fs::create_dir_all(chrome.join("Default/Network")).unwrap();
        fs::write(chrome.join("Default/Network/Cookies"), b"").unwrap();
        fs::create_dir_all(chrome.join("Profile 1")).unwrap();
        fs::write(chrome.join("Profile 1/Cookies"), b"").unwrap();
        fs::create_dir_all(chrome.join("Profile 2")).unwrap(); // no cookies: not a source
        fs::create_dir_all(chrome.join("System Profile")).unwrap();
        fs::write(chrome.join("System Profile/Cookies"), b"").unwrap();
        fs::write(
            chrome.join("Local State"),
            r#"{"profile":{"info_cache":{"Default":{"name":"Person 1"},"Profile 1":{"name":"Work"}}}}"#,
        )
        .unwrap();
        let ff = home.path().join(".config/mozilla/firefox");
        fs::create_dir_all(ff.join("ab12.default-release")).unwrap();
        fs::write(ff.join("ab12.default-release/cookies.sqlite"), b"").unwrap();
        fs::write(
            ff.join("profiles.ini"),
            "[Profile0]\nName=default-release\nIsRelative=1\nPath=ab12.default-release\n",
        )
        .unwrap();

        let found = discover_sources(&Discovery::for_home(Platform::Linux, home.path()));
        let ids: Vec<(&str, &str)> = found
            .iter()
            .map(|s| (s.id.as_str(), s.name.as_str()))
            .collect();
        assert_eq!(
            ids,
            [
                ("chrome:Default", "Person 1"),
                ("chrome:Profile 1", "Work"),
                ("firefox:ab12.default-release", "default-release"),
            ]
        );
        assert!(found[0].path.ends_with("Default/Network/Cookies"));
        assert_eq!(found[2].browser, Browser::Firefox);
        assert_eq!(found[2].profile, "ab12.default-release");
    }
}
