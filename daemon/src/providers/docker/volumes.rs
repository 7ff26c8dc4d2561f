//! Which named volume holds each channel's profile. A channel's volume is
//! `porthole-chrome-profile-<channel>` unless the channel took over a warm spare sidecar
//! (`spare`), whose volume was made before its channel was known: those channels are
//! written down in `<data_dir>/profile_volumes.json`, replaced atomically on every change, so
//! the profile is found again after a daemon restart.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

use super::names::volume_name;
use crate::channel_id::ChannelId;

/// The channels whose profile is not on their own named volume. Short lock.
#[derive(Debug)]
pub(crate) struct ProfileVolumes {
    path: PathBuf,
    mapped: Mutex<BTreeMap<String, String>>,
}

impl ProfileVolumes {
    /// Reads the file at `path`; a missing one is empty. A corrupt one is moved aside to
    /// `<path>.corrupt-<unix seconds>` (so the next change does not overwrite what a person
    /// may still recover from it) and logged, and the mapping starts empty.
    pub fn load(path: PathBuf) -> Self {
        let mapped = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|error| {
                let aside = set_aside(&path);
                tracing::error!(event = "profile_volumes_unreadable", path = %path.display(), aside = ?aside.as_ref().map(|p| p.display().to_string()), %error, "channels that took a warm spare start on a new profile; their old one stays on its porthole-spare-profile-* volume");
                BTreeMap::new()
            }),
            Err(_) => BTreeMap::new(),
        };
        Self {
            path,
            mapped: Mutex::new(mapped),
        }
    }

    /// The volume of the channel's profile.
    pub fn volume_of(&self, channel: &ChannelId) -> String {
        self.lock()
            .get(channel.as_str())
            .cloned()
            .unwrap_or_else(|| volume_name(channel))
    }

    /// Whether the channel's profile is on a volume made for a spare.
    pub fn is_mapped(&self, channel: &ChannelId) -> bool {
        self.lock().contains_key(channel.as_str())
    }

    /// Writes down that the channel's profile is on `volume`.
    pub fn assign(&self, channel: &ChannelId, volume: &str) -> std::io::Result<()> {
        let mut mapped = self.lock();
        mapped.insert(channel.to_string(), volume.to_string());
        self.save(&mapped).inspect_err(|_| {
            mapped.remove(channel.as_str());
        })
    }

    /// Forgets the channel's volume (its profile was removed).
    pub fn forget(&self, channel: &ChannelId) {
        let mut mapped = self.lock();
        if mapped.remove(channel.as_str()).is_some() {
            if let Err(error) = self.save(&mapped) {
                tracing::warn!(event = "profile_volumes_unwritable", path = %self.path.display(), %error);
            }
        }
    }

    /// Replaces the file durably: a synced temporary file renamed over it, then the directory
    /// synced, so a crash leaves the old mapping or the new one, never an empty file.
    fn save(&self, mapped: &BTreeMap<String, String>) -> std::io::Result<()> {
        use std::io::Write;
        let text = serde_json::to_vec_pretty(mapped).map_err(std::io::Error::other)?;
        let temp = self.path.with_extension("json.tmp");
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(&text)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&temp, &self.path)?;
        if let Some(dir) = self.path.parent() {
            std::fs::File::open(dir)?.sync_all()?;
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        self.mapped.lock().expect("profile volumes lock")
    }
}

/// Renames a corrupt file out of the way; where it went, if it could be moved.
fn set_aside(path: &std::path::Path) -> Option<PathBuf> {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    let mut aside = path.as_os_str().to_owned();
    aside.push(format!(".corrupt-{seconds}"));
    let aside = PathBuf::from(aside);
    std::fs::rename(path, &aside).ok().map(|()| aside)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mapped_channel_keeps_its_volume_across_a_reload_and_a_forgotten_one_goes_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("profile_volumes.json");
        let channel = ChannelId::parse("work").unwrap();
        let volumes = ProfileVolumes::load(path.clone());
        assert_eq!(volumes.volume_of(&channel), volume_name(&channel));
        volumes
            .assign(&channel, "porthole-spare-profile-abc")
            .unwrap();
        let reloaded = ProfileVolumes::load(path.clone());
        assert!(reloaded.is_mapped(&channel));
        assert_eq!(reloaded.volume_of(&channel), "porthole-spare-profile-abc");
        reloaded.forget(&channel);
        assert_eq!(
            ProfileVolumes::load(path).volume_of(&channel),
            volume_name(&channel)
        );
    }

    #[test]
    fn a_corrupt_file_reads_as_empty_and_is_kept_aside_from_the_next_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("profile_volumes.json");
        std::fs::write(&path, b"{\"work\": \"porthole-spare-profile-abc\"").unwrap();
        let channel = ChannelId::parse("work").unwrap();
        let volumes = ProfileVolumes::load(path.clone());
        assert_eq!(volumes.volume_of(&channel), volume_name(&channel));
        let other = ChannelId::parse("other").unwrap();
        volumes
            .assign(&other, "porthole-spare-profile-def")
            .unwrap();
        let aside: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .filter(|name| name.starts_with("profile_volumes.json.corrupt-"))
            .collect();
        assert_eq!(aside.len(), 1, "{aside:?}");
        let kept = std::fs::read(dir.path().join(&aside[0])).unwrap();
        assert!(
            kept.starts_with(b"{\"work\""),
            "the corrupt text, untouched"
        );
        assert!(ProfileVolumes::load(path).is_mapped(&other));
    }
}
