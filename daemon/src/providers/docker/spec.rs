//! What a sidecar container looks like: [`SidecarSpec`], everything that decides how a
//! channel's (or a warm spare's) sidecar is made, turned into Chromium's arguments and the
//! engine's create request, and its spec hash (when a stopped or paused one may serve a start
//! again). Pure and unit-tested: the engine calls that make and remove containers are
//! `container`'s.

use std::collections::HashMap;
use std::path::PathBuf;

use bollard::models::{
    ContainerCreateBody, HostConfig, Mount, MountType, MountVolumeOptions, PortBinding,
};

use super::names::{LABEL_CHANNEL, LABEL_SPARE};
use super::seccomp::{security_opts, SANDBOX_ARG};

/// The sidecar's gate port inside the container (bridge network).
pub(crate) const GATE_PORT: u16 = 9222;
/// Where the profile volume is mounted and Chromium keeps its user-data dir.
pub(crate) const PROFILE_DIR: &str = "/profile";
/// Where the browser saves downloads: in the profile volume, so they outlive the container.
pub(crate) const DOWNLOADS_DIR: &str = "/profile/downloads";

/// How the sidecar's gate is reached: a plain setting, defined with the configuration.
pub use crate::config::Network;

/// Everything that decides how a channel's sidecar container is made.
#[derive(Debug, Clone)]
pub struct SidecarSpec {
    pub name: String,
    pub image: String,
    pub labels: HashMap<String, String>,
    pub secret: String,
    pub network: Network,
    /// Host network only: the 127.0.0.1 port the gate listens on.
    pub host_port: Option<u16>,
    /// Bridge network: publish the gate on the engine host's 127.0.0.1. Off when CDP goes
    /// through the Docker API (`exec`): then nothing is published and the gate listens on the
    /// container's own loopback only.
    pub publish: bool,
    /// The profile volume, when the profile persists.
    pub volume: Option<String>,
    /// Labels the profile volume gets when the container's create makes it (a create that
    /// mounts a missing named volume creates it); empty: none asked for.
    pub volume_labels: HashMap<String, String>,
    /// Host directories of unpacked extensions, in load order.
    pub extensions: Vec<PathBuf>,
    pub screen: (u32, u32),
    /// Memory cap in MiB (0 = none).
    pub memory_mb: u64,
    /// CPU cap (0 = none).
    pub cpus: f64,
    /// Chromium's own sandbox on: the sidecar's seccomp profile and no `--no-sandbox`
    /// ([`super::seccomp`]).
    pub sandbox: bool,
}

/// The image's unprivileged user (chrome.Dockerfile), named again here so that a rebuilt or
/// foreign image cannot quietly run the browser as root.
pub(crate) const SIDECAR_USER: &str = "porthole";
/// Most tasks (processes and threads) a sidecar may have: Chromium with a few tabs runs a few
/// hundred threads; a fork bomb in the container stops here.
pub(crate) const PIDS_LIMIT: i64 = 2048;
/// Writable scratch space on a read-only root filesystem: `/tmp` (Chromium's shared memory
/// with `--disable-dev-shm-usage`, and the throwaway profile) and the user's home (font and
/// other caches). The profile volume, when there is one, is its own mount.
pub(crate) const TMPFS: &[(&str, &str)] = &[
    ("/tmp", "rw,nosuid,nodev,mode=1777,size=1g"),
    (
        "/home/porthole",
        "rw,nosuid,nodev,uid=1000,gid=1000,mode=0700,size=256m",
    ),
];
/// Chromium flags the daemon adds to the sidecar's own (DESIGN.md §4).
const EXTRA_FLAGS: &[&str] = &[
    "--no-default-browser-check",
    "--password-store=basic",
    "--use-mock-keychain",
];

impl SidecarSpec {
    /// Arguments after `--`: Chromium's, on top of the sidecar's base flags.
    pub fn chromium_args(&self) -> Vec<String> {
        let mut args: Vec<String> = EXTRA_FLAGS.iter().map(|s| s.to_string()).collect();
        if self.sandbox {
            args.push(SANDBOX_ARG.to_string());
        }
        if self.volume.is_some() {
            args.push(format!("--user-data-dir={PROFILE_DIR}"));
        }
        let (width, height) = self.screen;
        args.push(format!("--window-size={width},{height}"));
        if self.extensions.is_empty() {
            args.push("--disable-extensions".to_string());
        } else {
            let dirs: Vec<String> = (0..self.extensions.len())
                .map(|i| format!("/extensions/{i}"))
                .collect();
            args.push(format!("--load-extension={}", dirs.join(",")));
        }
        args.push("about:blank".to_string());
        args
    }

    /// The create request for the engine.
    pub(crate) fn create_body(&self) -> ContainerCreateBody {
        let mut cmd = vec!["--".to_string()];
        cmd.extend(self.chromium_args());
        let mut env = vec![
            format!("PORTHOLE_SECRET={}", self.secret),
            // A UTF-8 locale: without one Chromium cannot name a file with non-ASCII
            // characters and saves every such download as "download".
            "LANG=C.UTF-8".to_string(),
        ];
        let mut mounts = Vec::new();
        if let Some(volume) = &self.volume {
            mounts.push(Mount {
                target: Some(PROFILE_DIR.to_string()),
                source: Some(volume.clone()),
                typ: Some(MountType::VOLUME),
                read_only: Some(false),
                volume_options: (!self.volume_labels.is_empty()).then(|| MountVolumeOptions {
                    labels: Some(self.volume_labels.clone()),
                    ..Default::default()
                }),
                ..Default::default()
            });
        }
        for (i, dir) in self.extensions.iter().enumerate() {
            mounts.push(Mount {
                target: Some(format!("/extensions/{i}")),
                source: Some(dir.display().to_string()),
                typ: Some(MountType::BIND),
                read_only: Some(true),
                ..Default::default()
            });
        }
        let mut host = HostConfig {
            mounts: Some(mounts),
            memory: (self.memory_mb > 0).then(|| (self.memory_mb * 1024 * 1024) as i64),
            nano_cpus: (self.cpus > 0.0).then_some((self.cpus * 1e9) as i64),
            // Least privilege (DESIGN.md §13): no capabilities, no way to gain any, nothing
            // writable but the profile and scratch tmpfs, a bounded number of tasks.
            cap_drop: Some(vec!["ALL".to_string()]),
            security_opt: Some(security_opts(self.sandbox)),
            readonly_rootfs: Some(true),
            tmpfs: Some(
                TMPFS
                    .iter()
                    .map(|(path, options)| (path.to_string(), options.to_string()))
                    .collect(),
            ),
            pids_limit: Some(PIDS_LIMIT),
            ..Default::default()
        };
        let mut exposed = None;
        match self.network {
            Network::Bridge if !self.publish => {
                env.push(format!("PORTHOLE_LISTEN=127.0.0.1:{GATE_PORT}"));
            }
            Network::Bridge => {
                let port = format!("{GATE_PORT}/tcp");
                host.port_bindings = Some(HashMap::from([(
                    port.clone(),
                    Some(vec![PortBinding {
                        host_ip: Some("127.0.0.1".to_string()),
                        host_port: Some(String::new()),
                    }]),
                )]));
                exposed = Some(vec![port]);
            }
            Network::Host => {
                host.network_mode = Some("host".to_string());
                let port = self.host_port.unwrap_or(GATE_PORT);
                env.push(format!("PORTHOLE_LISTEN=127.0.0.1:{port}"));
            }
        }
        ContainerCreateBody {
            image: Some(self.image.clone()),
            user: Some(SIDECAR_USER.to_string()),
            cmd: Some(cmd),
            env: Some(env),
            labels: Some(self.labels.clone()),
            exposed_ports: exposed,
            host_config: Some(host),
            ..Default::default()
        }
    }
}

/// Label with [`SidecarSpec::spec_hash`] of the spec a container was made from: a stopped
/// sidecar is started again only while its label equals the hash of what a new one would be.
pub(crate) const LABEL_SPEC: &str = "porthole.spec";

impl SidecarSpec {
    /// A short hash of everything that decides the container, on the image `image_id`: the
    /// create request without what differs per container and not per spec (its name, its
    /// channel and spare labels, its volume's name and creation labels, the secret, the
    /// host-network port) and without [`LABEL_SPEC`] itself. A warm spare and the channel
    /// that takes it over therefore hash alike.
    pub(crate) fn spec_hash(&self, image_id: &str) -> String {
        use sha2::{Digest, Sha256};
        let mut neutral = SidecarSpec {
            name: String::new(),
            secret: String::new(),
            host_port: None,
            volume: self.volume.as_ref().map(|_| "profile".to_string()),
            volume_labels: HashMap::new(),
            ..self.clone()
        };
        for label in [LABEL_SPEC, LABEL_CHANNEL, LABEL_SPARE] {
            neutral.labels.remove(label);
        }
        let body = serde_json::to_value(neutral.create_body()).unwrap_or_default();
        let mut text = format!("{image_id}\n");
        canonical_json(&body, &mut text);
        Sha256::digest(text.as_bytes())
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// `value` as JSON text with object keys sorted, whatever order its maps keep.
fn canonical_json(value: &serde_json::Value, out: &mut String) {
    match value {
        serde_json::Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::Value::String(key.clone()).to_string());
                out.push(':');
                canonical_json(&map[key], out);
            }
            out.push('}');
        }
        serde_json::Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical_json(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A bridge sidecar of channel `a` with a profile volume (the other files' tests use it too).
    pub(crate) fn spec() -> SidecarSpec {
        SidecarSpec {
            name: "porthole-chrome-a".into(),
            image: "porthole-chrome:latest".into(),
            labels: HashMap::from([("porthole.channel".into(), "a".into())]),
            secret: "s3cret".into(),
            network: Network::Bridge,
            host_port: None,
            publish: true,
            volume: Some("porthole-chrome-profile-a".into()),
            volume_labels: HashMap::new(),
            extensions: Vec::new(),
            screen: (800, 600),
            memory_mb: 512,
            cpus: 1.5,
            sandbox: false,
        }
    }

    #[test]
    fn bridge_publishes_the_gate_on_loopback_only_with_a_random_port() {
        let body = spec().create_body();
        let host = body.host_config.unwrap();
        let bindings = host.port_bindings.unwrap();
        let binding = &bindings["9222/tcp"].as_ref().unwrap()[0];
        assert_eq!(binding.host_ip.as_deref(), Some("127.0.0.1"));
        assert_eq!(binding.host_port.as_deref(), Some(""));
        assert_eq!(host.memory, Some(512 * 1024 * 1024));
        assert_eq!(host.nano_cpus, Some(1_500_000_000));
        assert!(body
            .env
            .unwrap()
            .contains(&"PORTHOLE_SECRET=s3cret".to_string()));
    }

    #[test]
    fn the_container_gets_least_privilege() {
        let body = spec().create_body();
        assert_eq!(body.user.as_deref(), Some("porthole"));
        let host = body.host_config.unwrap();
        assert_eq!(host.cap_drop, Some(vec!["ALL".to_string()]));
        assert!(host.cap_add.is_none());
        assert_eq!(
            host.security_opt,
            Some(vec!["no-new-privileges:true".to_string()])
        );
        let sandboxed = SidecarSpec {
            sandbox: true,
            ..spec()
        };
        let opts = sandboxed
            .create_body()
            .host_config
            .unwrap()
            .security_opt
            .unwrap();
        assert!(opts[1].starts_with("seccomp={"), "{}", &opts[1][..40]);
        assert!(sandboxed.chromium_args().contains(&SANDBOX_ARG.to_string()));
        assert!(!spec().chromium_args().contains(&SANDBOX_ARG.to_string()));
        assert_eq!(host.readonly_rootfs, Some(true));
        assert_eq!(host.pids_limit, Some(PIDS_LIMIT));
        assert!(host.privileged.is_none());
        let tmpfs = host.tmpfs.unwrap();
        assert!(tmpfs.contains_key("/tmp") && tmpfs.contains_key("/home/porthole"));
    }

    #[test]
    fn unpublished_bridge_sidecars_bind_nothing_on_the_host() {
        let body = SidecarSpec {
            publish: false,
            ..spec()
        }
        .create_body();
        let host = body.host_config.unwrap();
        assert!(host.port_bindings.is_none());
        assert!(body.exposed_ports.is_none());
        assert!(body
            .env
            .unwrap()
            .contains(&"PORTHOLE_LISTEN=127.0.0.1:9222".to_string()));
    }

    #[test]
    fn the_profile_volume_is_mounted_only_when_it_persists() {
        let body = spec().create_body();
        let mounts = body.host_config.unwrap().mounts.unwrap();
        assert_eq!(mounts.len(), 1);
        assert_eq!(mounts[0].target.as_deref(), Some("/profile"));
        assert!(spec()
            .chromium_args()
            .contains(&"--user-data-dir=/profile".into()));
        let throwaway = SidecarSpec {
            volume: None,
            ..spec()
        };
        assert!(throwaway
            .create_body()
            .host_config
            .unwrap()
            .mounts
            .unwrap()
            .is_empty());
        assert!(!throwaway
            .chromium_args()
            .iter()
            .any(|a| a.starts_with("--user-data-dir")));
    }

    #[test]
    fn extensions_are_read_only_binds_loaded_in_order_else_disabled() {
        assert!(spec()
            .chromium_args()
            .contains(&"--disable-extensions".into()));
        let with = SidecarSpec {
            extensions: vec!["/x/first".into(), "/y/second".into()],
            ..spec()
        };
        let args = with.chromium_args();
        assert!(args.contains(&"--load-extension=/extensions/0,/extensions/1".into()));
        assert!(!args.contains(&"--disable-extensions".into()));
        let mounts = with.create_body().host_config.unwrap().mounts.unwrap();
        let binds: Vec<_> = mounts
            .iter()
            .filter(|m| m.typ == Some(MountType::BIND))
            .map(|m| {
                (
                    m.source.clone().unwrap(),
                    m.target.clone().unwrap(),
                    m.read_only,
                )
            })
            .collect();
        assert_eq!(
            binds,
            vec![
                ("/x/first".into(), "/extensions/0".into(), Some(true)),
                ("/y/second".into(), "/extensions/1".into(), Some(true)),
            ]
        );
    }

    #[test]
    fn the_spec_hash_ignores_the_secret_and_follows_the_image_and_the_config() {
        let base = spec().spec_hash("sha256:one");
        let other_secret = SidecarSpec {
            secret: "another".into(),
            volume_labels: HashMap::from([("n".into(), "1".into())]),
            ..spec()
        };
        assert_eq!(other_secret.spec_hash("sha256:one"), base);
        let mut labelled = spec();
        labelled.labels.insert(LABEL_SPEC.into(), base.clone());
        assert_eq!(labelled.spec_hash("sha256:one"), base);
        assert_ne!(spec().spec_hash("sha256:two"), base);
        let bigger = SidecarSpec {
            memory_mb: 1024,
            ..spec()
        };
        assert_ne!(bigger.spec_hash("sha256:one"), base);
        let wider = SidecarSpec {
            screen: (1024, 600),
            ..spec()
        };
        assert_ne!(wider.spec_hash("sha256:one"), base);
    }

    #[test]
    fn a_warm_spare_and_the_channel_that_takes_it_over_hash_alike() {
        let mut channel = spec();
        channel.name = "porthole-chrome-work".into();
        channel.volume = Some("porthole-chrome-profile-work".into());
        channel.labels.insert(LABEL_CHANNEL.into(), "work".into());
        let mut spare = spec();
        spare.name = "porthole-spare-abc".into();
        spare.volume = Some("porthole-spare-profile-abc".into());
        spare.labels.insert(LABEL_SPARE.into(), "1".into());
        assert_eq!(
            channel.spec_hash("sha256:one"),
            spare.spec_hash("sha256:one")
        );
        let throwaway = SidecarSpec {
            volume: None,
            ..channel.clone()
        };
        assert_ne!(
            throwaway.spec_hash("sha256:one"),
            channel.spec_hash("sha256:one"),
            "a profile volume or none still differs"
        );
    }
}
