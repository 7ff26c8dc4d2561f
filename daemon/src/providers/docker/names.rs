//! The names and labels this daemon gives what it makes on the engine: a channel's container
//! and profile volume, a warm spare's, the labels that say whose they are, and the random
//! tokens in names and secrets. Plain facts; imports nothing of the other docker files, so
//! every one of them may use it.

use crate::channel_id::ChannelId;

/// Label naming the channel of a container or volume.
pub(crate) const LABEL_CHANNEL: &str = "porthole.channel";
/// Label of a container (and its volume) made as a warm spare, before its channel was known.
pub(crate) const LABEL_SPARE: &str = "porthole.spare";
/// Label naming the daemon (its data dir's id) that owns a container or volume.
pub(crate) const LABEL_DAEMON: &str = "porthole.daemon";
/// Label with the Porthole version that made a container or image.
pub(crate) const LABEL_VERSION: &str = "porthole.version";
/// Label with the build time of an image (RFC 3339, UTC).
pub(crate) const LABEL_BUILT_AT: &str = "porthole.built_at";

/// This build's version, written into labels.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Name prefix of an untaken spare's container.
pub(crate) const SPARE_PREFIX: &str = "porthole-spare-";
/// Name prefix of an untaken spare's profile volume.
pub(crate) const SPARE_VOLUME_PREFIX: &str = "porthole-spare-profile-";

/// The container of a channel. Channel ids are already limited to `[A-Za-z0-9_.-]` starting
/// with a letter or digit (see `channel_id`), which is exactly Docker's name alphabet, and are
/// used unchanged, so two channels never share a name.
pub(crate) fn container_name(channel: &ChannelId) -> String {
    format!("porthole-chrome-{channel}")
}

/// The profile volume of a channel.
pub(crate) fn volume_name(channel: &ChannelId) -> String {
    format!("porthole-chrome-profile-{channel}")
}

/// The volume of the spare container `name` (made with it).
pub(crate) fn spare_volume(name: &str) -> Option<String> {
    name.strip_prefix(SPARE_PREFIX)
        .map(|id| format!("{SPARE_VOLUME_PREFIX}{id}"))
}

/// A random string of `[a-z0-9]`.
pub(crate) fn random_token(len: usize) -> String {
    use rand::Rng;
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rng();
    (0..len)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_channel_id() {
        let channel = ChannelId::parse("team-1.dev_x").unwrap();
        assert_eq!(container_name(&channel), "porthole-chrome-team-1.dev_x");
        assert_eq!(
            volume_name(&channel),
            "porthole-chrome-profile-team-1.dev_x"
        );
        let upper = ChannelId::parse("Team").unwrap();
        assert_ne!(
            container_name(&upper),
            container_name(&ChannelId::parse("team").unwrap())
        );
    }

    #[test]
    fn a_spares_volume_is_named_after_its_container() {
        assert_eq!(
            spare_volume(&format!("{SPARE_PREFIX}abc")).as_deref(),
            Some("porthole-spare-profile-abc")
        );
        let channel = ChannelId::parse("work").unwrap();
        assert_eq!(spare_volume(&container_name(&channel)), None);
    }
}
