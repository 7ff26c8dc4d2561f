//! The sidecar image (`browser.chrome_image`): when to rebuild it ([`decide`]), the build
//! context embedded in the binary, the base images (pulled, else the local debootstrap ones),
//! and the build itself with progress to the log and to panes.
//!
//! Builds are serialised by one async lock; every caller waiting for the image sees the
//! progress of the build in flight. Touches only the configured image tag and the
//! builder-stage leftovers labelled `porthole.stage=builder`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use bollard::query_parameters::{
    BuildImageOptionsBuilder, CreateImageOptionsBuilder, PruneImagesOptionsBuilder,
    RemoveImageOptionsBuilder,
};
use bollard::Docker;
use futures_util::StreamExt;
use serde::Serialize;
use tokio::sync::broadcast;

use super::engine::{connect, is_not_found, DockerError, EngineTarget};
use super::names::{LABEL_BUILT_AT, LABEL_VERSION, VERSION};
use crate::providers::ProgressFn;

include!(concat!(env!("OUT_DIR"), "/sidecar_context.rs"));

/// `chrome.Dockerfile`'s own defaults for its base images.
pub(crate) const DEFAULT_BASE_IMAGE: &str = "debian:bookworm-slim";
pub(crate) const DEFAULT_BUILDER_IMAGE: &str = "rust:1-slim-bookworm";
/// How long a pull of a base image may take before the local fallback is used.
const PULL_DEADLINE: Duration = Duration::from_secs(120);

/// Pulling the base image failed (logged; the build falls back to a copy on the engine).
#[derive(Debug, thiserror::Error)]
enum PullError {
    /// The engine or the registry refused the pull.
    #[error("{0}")]
    Engine(#[from] bollard::errors::Error),
    /// The pull did not finish within [`PULL_DEADLINE`].
    #[error("no answer within {PULL_DEADLINE:?}")]
    TimedOut,
}

/// Where the image comes from.
#[derive(Debug, Clone)]
pub(crate) struct ImageSettings {
    /// The tag to build and run, e.g. `porthole-chrome:latest`.
    pub image: String,
    /// Base of the final stage (`None`: [`DEFAULT_BASE_IMAGE`]).
    pub base_image: Option<String>,
    /// Image the sidecar is compiled in (`None`: [`DEFAULT_BUILDER_IMAGE`]).
    pub builder_image: Option<String>,
    /// Pull the bases before building.
    pub pull: bool,
    /// Local stand-ins used when no registry answers (scripts/setup/base-images.sh).
    pub local_base_image: String,
    pub local_builder_image: String,
    /// Labels added to the image besides version and build time.
    pub extra_labels: HashMap<String, String>,
    /// A development build of Porthole: an image that exists is used whatever its labels.
    pub dev: bool,
    /// The engine builds happen on: `None` for this machine's own; for another one, the
    /// environment a `docker` CLI needs to reach it (`DOCKER_HOST=… DOCKER_TLS_VERIFY=1 …`),
    /// so a missing base image comes with the command that copies it there.
    pub remote_engine_env: Option<String>,
}

impl ImageSettings {
    /// The image settings the config asks for, on `engine`.
    pub(crate) fn from_config(
        config: &crate::config::BrowserConfig,
        engine: &EngineTarget,
    ) -> Self {
        Self {
            image: config.chrome_image.clone(),
            base_image: config.base_image.clone(),
            builder_image: config.builder_image.clone(),
            pull: config.image_pull,
            local_base_image: config.local_base_image.clone(),
            local_builder_image: config.local_builder_image.clone(),
            extra_labels: config.container_labels.clone().into_iter().collect(),
            dev: is_dev_build(),
            remote_engine_env: engine.is_remote().then(|| engine.cli_env()),
        }
    }
}

/// Why the image gets built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BuildReason {
    Missing,
    Unlabelled,
    OtherVersion(String),
    /// Built from other sidecar sources (chrome.Dockerfile or sidecar/ changed since).
    OtherSource,
    Requested,
}

impl std::fmt::Display for BuildReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildReason::Missing => f.write_str("the image is missing"),
            BuildReason::Unlabelled => f.write_str("the image has no porthole.version label"),
            BuildReason::OtherVersion(v) => write!(f, "the image was built by Porthole {v}"),
            BuildReason::OtherSource => {
                f.write_str("the image was built from other sidecar sources than this Porthole's")
            }
            BuildReason::Requested => f.write_str("a rebuild was requested"),
        }
    }
}

/// What to do about the image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decision {
    Use,
    Build(BuildReason),
}

/// The rebuild rules (DESIGN.md §4): build when the image is missing (`labels` is `None`),
/// unlabelled or labelled with another version; a dev build uses any image that exists.
pub(crate) fn decide(
    labels: Option<&HashMap<String, String>>,
    version: &str,
    dev: bool,
) -> Decision {
    let Some(labels) = labels else {
        return Decision::Build(BuildReason::Missing);
    };
    if dev {
        return Decision::Use;
    }
    match labels.get(LABEL_VERSION) {
        None => Decision::Build(BuildReason::Unlabelled),
        Some(found) if found != version => {
            Decision::Build(BuildReason::OtherVersion(found.clone()))
        }
        Some(_) => Decision::Use,
    }
}

/// The label holding a hash of the build context the image was built from.
pub(crate) const LABEL_SOURCE: &str = "porthole.source";

/// A short hash of the embedded build context (chrome.Dockerfile and the sidecar's sources).
pub(crate) fn source_hash() -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for (path, bytes) in SIDECAR_CONTEXT {
        hasher.update(path.as_bytes());
        hasher.update([0]);
        hasher.update(bytes);
        hasher.update([0]);
    }
    hasher
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// [`decide`], plus: an image Porthole built (it carries `porthole.version`) from other
/// sidecar sources is rebuilt, dev builds included (a sidecar older than the daemon's calls
/// would not understand them). An image Porthole did not build is never rebuilt by a dev build.
pub(crate) fn decide_with_source(
    labels: Option<&HashMap<String, String>>,
    version: &str,
    dev: bool,
    source: &str,
) -> Decision {
    let decision = decide(labels, version, dev);
    let ours = labels.is_some_and(|l| l.contains_key(LABEL_VERSION));
    let same_source = labels
        .and_then(|l| l.get(LABEL_SOURCE))
        .is_some_and(|s| s == source);
    match decision {
        Decision::Use if ours && !same_source => Decision::Build(BuildReason::OtherSource),
        decision => decision,
    }
}

/// `GET /api/browser/image`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ImageStatus {
    pub image: String,
    pub present: bool,
    pub id: Option<String>,
    pub labels: HashMap<String, String>,
    pub building: bool,
    /// This daemon is a development build (an existing image is never rebuilt on its own).
    pub dev: bool,
    /// Why the last build failed, if it did.
    pub last_error: Option<String>,
}

/// Builds and checks the sidecar image.
pub(crate) struct ImageManager {
    docker: Docker,
    settings: ImageSettings,
    /// Serialises builds.
    lock: tokio::sync::Mutex<()>,
    building: AtomicBool,
    /// The image was found usable (or built) by this daemon: starts skip the inspect, a
    /// round trip to a remote engine. Cleared by [`ImageManager::forget`] when a create
    /// finds the image gone, and while a rebuild runs.
    verified: AtomicBool,
    /// The id of the image found usable or built (short lock): part of a container's spec
    /// hash, so a rebuilt image is never run through an old container.
    id: Mutex<Option<String>>,
    /// Short lock.
    last_error: Mutex<Option<String>>,
    progress: broadcast::Sender<(String, String)>,
}

impl ImageManager {
    pub fn new(docker: Docker, settings: ImageSettings) -> Self {
        let (progress, _) = broadcast::channel(64);
        Self {
            docker,
            settings,
            lock: tokio::sync::Mutex::new(()),
            building: AtomicBool::new(false),
            verified: AtomicBool::new(false),
            id: Mutex::new(None),
            last_error: Mutex::new(None),
            progress,
        }
    }

    /// The image tag containers run.
    pub fn image(&self) -> &str {
        &self.settings.image
    }

    /// The id of the image last found usable or built (`None` before [`ImageManager::ensure`]).
    pub fn image_id(&self) -> Option<String> {
        self.id.lock().expect("image id lock").clone()
    }

    /// Labels of the image, `None` when it does not exist.
    async fn labels(&self) -> Result<Option<(String, HashMap<String, String>)>, DockerError> {
        match self.docker.inspect_image(&self.settings.image).await {
            Ok(info) => Ok(Some((
                info.id.unwrap_or_default(),
                info.config.and_then(|c| c.labels).unwrap_or_default(),
            ))),
            Err(e) if is_not_found(&e) => Ok(None),
            Err(e) => Err(DockerError::engine(
                format!("inspect image {}", self.settings.image),
                e,
            )),
        }
    }

    /// What the API shows.
    pub async fn status(&self) -> Result<ImageStatus, DockerError> {
        let found = self.labels().await?;
        Ok(ImageStatus {
            image: self.settings.image.clone(),
            present: found.is_some(),
            id: found.as_ref().map(|(id, _)| id.clone()),
            labels: found.map(|(_, labels)| labels).unwrap_or_default(),
            building: self.building.load(Ordering::SeqCst),
            dev: self.settings.dev,
            last_error: self.last_error.lock().expect("last error lock").clone(),
        })
    }

    /// Makes sure a usable image exists, building it by the rules of [`decide`]. While
    /// another caller builds, waits for that build and passes its progress on.
    pub(crate) async fn ensure(&self, progress: ProgressFn) -> Result<(), DockerError> {
        if self.verified.load(Ordering::SeqCst) {
            return Ok(());
        }
        self.run_locked(progress, false).await
    }

    /// Forgets that the image was found usable: the next [`ImageManager::ensure`] looks again.
    pub fn forget(&self) {
        self.verified.store(false, Ordering::SeqCst);
    }

    /// Builds the image now, whatever its labels.
    pub async fn rebuild(&self, progress: ProgressFn) -> Result<(), DockerError> {
        self.run_locked(progress, true).await
    }

    async fn run_locked(&self, progress: ProgressFn, force: bool) -> Result<(), DockerError> {
        let mut updates = self.progress.subscribe();
        let forward = async {
            while let Ok((stage, message)) = updates.recv().await {
                progress(&stage, &message);
            }
            std::future::pending::<()>().await
        };
        let work = async {
            let _build = self.lock.lock().await;
            // A caller that waited on the lock for another's check takes that check's answer.
            if !force && self.verified.load(Ordering::SeqCst) {
                return Ok(());
            }
            let (decision, found_id) = if force {
                (Decision::Build(BuildReason::Requested), None)
            } else {
                let found = self.labels().await?;
                tracing::info!(event = "sidecar_image_checked", image = %self.settings.image, present = found.is_some());
                let (id, labels) = found.unzip();
                let decision =
                    decide_with_source(labels.as_ref(), VERSION, self.settings.dev, &source_hash());
                (decision, id)
            };
            match decision {
                Decision::Use => {
                    *self.id.lock().expect("image id lock") = found_id;
                    self.verified.store(true, Ordering::SeqCst);
                    Ok(())
                }
                Decision::Build(reason) => {
                    self.verified.store(false, Ordering::SeqCst);
                    self.building.store(true, Ordering::SeqCst);
                    *self.id.lock().expect("image id lock") = None;
                    let mut result = self.build(&reason).await;
                    if result.is_ok() {
                        result = self.labels().await.map(|found| {
                            *self.id.lock().expect("image id lock") = found.map(|(id, _)| id);
                        });
                    }
                    self.building.store(false, Ordering::SeqCst);
                    self.verified.store(result.is_ok(), Ordering::SeqCst);
                    *self.last_error.lock().expect("last error lock") =
                        result.as_ref().err().map(|e| e.to_string());
                    if let Err(error) = &result {
                        tracing::warn!(event = "image_build_failed", %error, detail = error.detail().unwrap_or_default());
                        self.say("image_build_failed", &error.to_string());
                    }
                    result
                }
            }
        };
        tokio::select! {
            result = work => result,
            _ = forward => unreachable!("forward never ends"),
        }
    }

    /// Logs a progress line and passes it to everyone waiting.
    fn say(&self, stage: &str, message: &str) {
        tracing::info!(event = "image_progress", stage, message);
        let _ = self.progress.send((stage.to_string(), message.to_string()));
    }

    async fn build(&self, reason: &BuildReason) -> Result<(), DockerError> {
        let started = Instant::now();
        let image = &self.settings.image;
        self.say(
            "building_image",
            &format!("Building the browser image {image} ({reason}); this takes about a minute"),
        );
        let base = self
            .resolve_base(
                self.settings
                    .base_image
                    .as_deref()
                    .unwrap_or(DEFAULT_BASE_IMAGE),
                &self.settings.local_base_image,
            )
            .await?;
        let builder = self
            .resolve_base(
                self.settings
                    .builder_image
                    .as_deref()
                    .unwrap_or(DEFAULT_BUILDER_IMAGE),
                &self.settings.local_builder_image,
            )
            .await?;
        let old_id = self.labels().await?.map(|(id, _)| id);
        let mut labels = self.settings.extra_labels.clone();
        labels.insert(LABEL_VERSION.to_string(), VERSION.to_string());
        labels.insert(LABEL_SOURCE.to_string(), source_hash());
        labels.insert(LABEL_BUILT_AT.to_string(), rfc3339_utc(SystemTime::now()));
        let args = HashMap::from([
            ("BASE_IMAGE".to_string(), base.clone()),
            ("BUILDER_IMAGE".to_string(), builder.clone()),
        ]);
        let options = BuildImageOptionsBuilder::new()
            .dockerfile("chrome.Dockerfile")
            .t(image)
            .nocache(true)
            .rm(true)
            .forcerm(true)
            .buildargs(&args)
            .labels(&labels)
            .build();
        let context = build_context();
        let mut stream =
            self.docker
                .build_image(options, None, Some(bollard::body_full(context.into())));
        let mut tail: Vec<String> = Vec::new();
        while let Some(item) = stream.next().await {
            let info = item.map_err(|e| DockerError::engine(format!("build {image}"), e))?;
            if let Some(detail) = info.error_detail {
                let message = detail.message.unwrap_or_default();
                return Err(DockerError::BuildFailed {
                    image: image.to_string(),
                    output: format!("{message}; last build output:\n{}", tail.join("\n")),
                });
            }
            if let Some(line) = info.stream {
                for line in line.lines().map(str::trim).filter(|l| !l.is_empty()) {
                    tracing::debug!(event = "image_build_output", line);
                    if line.starts_with("Step ") {
                        self.say("building_image", line);
                    }
                    if tail.len() == 15 {
                        tail.remove(0);
                    }
                    tail.push(line.chars().take(300).collect());
                }
            }
        }
        self.cleanup(old_id).await;
        let found = self.labels().await?;
        let Some((_, labels)) = found else {
            return Err(DockerError::Invalid(format!(
                "the build of {image} ended but the image is not there; last build output:\n{}",
                tail.join("\n")
            )));
        };
        if labels.get(LABEL_VERSION).map(String::as_str) != Some(VERSION) {
            return Err(DockerError::Invalid(format!(
                "the build of {image} did not produce a labelled image"
            )));
        }
        self.say(
            "image_built",
            &format!(
                "Built {image} in {:.0} s (base {base})",
                started.elapsed().as_secs_f64()
            ),
        );
        Ok(())
    }

    /// The base image to build on: pulled when `pull` is on and a registry answers, else the
    /// copy already on the engine, else the local stand-in (with a warning).
    async fn resolve_base(&self, wanted: &str, local: &str) -> Result<String, DockerError> {
        if self.settings.pull {
            match self.pull(wanted).await {
                Ok(()) => return Ok(wanted.to_string()),
                Err(reason) => {
                    tracing::warn!(event = "base_pull_failed", image = wanted, %reason);
                }
            }
        }
        if self.exists(wanted).await? {
            return Ok(wanted.to_string());
        }
        if self.exists(local).await? {
            self.say(
                "base_image_fallback",
                &format!("No registry answered for {wanted}; building on the local {local}"),
            );
            return Ok(local.to_string());
        }
        Err(DockerError::Invalid(missing_base_message(
            wanted,
            local,
            self.settings.remote_engine_env.as_deref(),
        )))
    }

    async fn exists(&self, image: &str) -> Result<bool, DockerError> {
        match self.docker.inspect_image(image).await {
            Ok(_) => Ok(true),
            Err(e) if is_not_found(&e) => Ok(false),
            Err(e) => Err(DockerError::engine(format!("inspect image {image}"), e)),
        }
    }

    async fn pull(&self, image: &str) -> Result<(), PullError> {
        let options = CreateImageOptionsBuilder::new().from_image(image).build();
        let pull = async {
            let mut stream = self.docker.create_image(Some(options), None, None);
            while let Some(item) = stream.next().await {
                item?;
            }
            Ok(())
        };
        match tokio::time::timeout(PULL_DEADLINE, pull).await {
            Ok(result) => result,
            Err(_) => Err(PullError::TimedOut),
        }
    }

    /// Removes the builder stage's leftover image and the image the new build replaced (kept
    /// if a container still uses it).
    async fn cleanup(&self, old_id: Option<String>) {
        let filters = HashMap::from([
            (
                "label".to_string(),
                vec!["porthole.stage=builder".to_string()],
            ),
            ("dangling".to_string(), vec!["true".to_string()]),
        ]);
        let options = PruneImagesOptionsBuilder::new().filters(&filters).build();
        if let Err(error) = self.docker.prune_images(Some(options)).await {
            tracing::debug!(event = "builder_prune_failed", %error);
        }
        let new_id = self.labels().await.ok().flatten().map(|(id, _)| id);
        if let Some(old) = old_id.filter(|old| Some(old) != new_id.as_ref()) {
            let options = RemoveImageOptionsBuilder::new().build();
            if let Err(error) = self.docker.remove_image(&old, Some(options), None).await {
                tracing::debug!(event = "old_image_kept", image = %old, %error);
            }
        }
    }
}

/// `porthole docker-build`: builds the configured image now (or, with `if_needed`, only when
/// the rebuild rules say so) and returns its status. Progress goes to the log.
pub async fn build_once(
    config: &crate::config::BrowserConfig,
    if_needed: bool,
) -> Result<ImageStatus, DockerError> {
    let (docker, target) = connect(&config.docker, Duration::from_secs(10)).await?;
    let manager = ImageManager::new(docker, ImageSettings::from_config(config, &target));
    let progress: ProgressFn = std::sync::Arc::new(|_: &str, _: &str| {});
    if if_needed {
        manager.ensure(progress).await?;
    } else {
        manager.rebuild(progress).await?;
    }
    manager.status().await
}

/// What to do when neither the base image nor its local stand-in is on the engine.
fn missing_base_message(wanted: &str, local: &str, remote_engine_env: Option<&str>) -> String {
    match remote_engine_env {
        None => format!(
            "cannot get the base image {wanted} (no registry answered) and the local stand-in {local} is missing: run scripts/setup/base-images.sh, or set browser.base_image / browser.builder_image"
        ),
        Some(env) => format!(
            "cannot get the base image {wanted} on the remote engine (no registry answered) and the local stand-in {local} is not loaded there: make it on this machine (scripts/setup/base-images.sh), then copy it to that engine with `docker save {local} | {env} docker load`, or set browser.base_image / browser.builder_image to images that engine can pull"
        ),
    }
}

/// A tar of the embedded build context.
pub(crate) fn build_context() -> Vec<u8> {
    let mut tar = Vec::new();
    for (path, bytes) in SIDECAR_CONTEXT {
        append_tar_file(&mut tar, path, bytes);
    }
    tar.extend_from_slice(&[0u8; 1024]);
    tar
}

/// Appends one regular file (mode 0644) to a ustar archive. Paths are short (< 100 bytes).
fn append_tar_file(tar: &mut Vec<u8>, path: &str, bytes: &[u8]) {
    assert!(path.len() < 100, "build context path too long: {path}");
    let mut header = [0u8; 512];
    header[..path.len()].copy_from_slice(path.as_bytes());
    let mut field = |offset: usize, width: usize, value: u64| {
        let text = format!("{value:0w$o}\0", w = width - 1);
        header[offset..offset + width].copy_from_slice(text.as_bytes());
    };
    field(100, 8, 0o644);
    field(108, 8, 0);
    field(116, 8, 0);
    field(124, 12, bytes.len() as u64);
    field(136, 12, 0);
    header[156] = b'0';
    header[257..263].copy_from_slice(b"ustar\0");
    header[263..265].copy_from_slice(b"00");
    header[148..156].copy_from_slice(b"        ");
    let sum: u64 = header.iter().map(|&b| b as u64).sum();
    header[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    tar.extend_from_slice(&header);
    tar.extend_from_slice(bytes);
    let pad = (512 - bytes.len() % 512) % 512;
    tar.extend(std::iter::repeat_n(0u8, pad));
}

/// `2026-11-30T05:32:50Z`.
pub(crate) fn rfc3339_utc(time: SystemTime) -> String {
    let secs = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs() as i64;
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// A development build of Porthole (debug assertions on): an existing image is used whatever
/// its labels, so working on Porthole does not rebuild the image on every version bump.
pub(crate) fn is_dev_build() -> bool {
    cfg!(debug_assertions)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(version: Option<&str>) -> HashMap<String, String> {
        version
            .map(|v| HashMap::from([(LABEL_VERSION.to_string(), v.to_string())]))
            .unwrap_or_default()
    }

    #[test]
    fn release_builds_rebuild_missing_unlabelled_and_other_versions() {
        assert_eq!(
            decide(None, "1.2.0", false),
            Decision::Build(BuildReason::Missing)
        );
        assert_eq!(
            decide(Some(&labels(None)), "1.2.0", false),
            Decision::Build(BuildReason::Unlabelled)
        );
        assert_eq!(
            decide(Some(&labels(Some("1.1.0"))), "1.2.0", false),
            Decision::Build(BuildReason::OtherVersion("1.1.0".into()))
        );
        assert_eq!(
            decide(Some(&labels(Some("1.2.0"))), "1.2.0", false),
            Decision::Use
        );
    }

    #[test]
    fn dev_builds_rebuild_only_when_missing() {
        assert_eq!(
            decide(None, "1.2.0", true),
            Decision::Build(BuildReason::Missing)
        );
        for found in [labels(None), labels(Some("0.9.0")), labels(Some("1.2.0"))] {
            assert_eq!(decide(Some(&found), "1.2.0", true), Decision::Use);
        }
    }

    #[test]
    fn an_image_of_other_sidecar_sources_is_rebuilt_even_in_dev_builds() {
        let mut found = labels(Some("1.2.0"));
        assert_eq!(
            decide_with_source(Some(&found), "1.2.0", true, "abc"),
            Decision::Build(BuildReason::OtherSource)
        );
        found.insert(LABEL_SOURCE.to_string(), "abc".to_string());
        assert_eq!(
            decide_with_source(Some(&found), "1.2.0", true, "abc"),
            Decision::Use
        );
        assert_eq!(
            decide_with_source(None, "1.2.0", true, "abc"),
            Decision::Build(BuildReason::Missing)
        );
        // An image Porthole did not build (a base image named as chrome_image) is left alone.
        assert_eq!(
            decide_with_source(Some(&labels(None)), "1.2.0", true, "abc"),
            Decision::Use
        );
        assert_eq!(source_hash(), source_hash());
        assert_eq!(source_hash().len(), 16);
    }

    #[test]
    fn the_build_context_is_a_tar_of_the_dockerfile_and_the_sidecar() {
        let dir = tempfile::tempdir().unwrap();
        let tar = dir.path().join("context.tar");
        std::fs::write(&tar, build_context()).unwrap();
        let listed = std::process::Command::new("tar")
            .arg("-tf")
            .arg(&tar)
            .output()
            .unwrap();
        assert!(listed.status.success(), "{listed:?}");
        let names = String::from_utf8(listed.stdout).unwrap();
        for expected in [
            "chrome.Dockerfile",
            "sidecar/Cargo.toml",
            "sidecar/src/main.rs",
        ] {
            assert!(names.lines().any(|l| l == expected), "{names}");
        }
        let out = dir.path().join("out");
        std::fs::create_dir(&out).unwrap();
        let extracted = std::process::Command::new("tar")
            .arg("-xf")
            .arg(&tar)
            .arg("-C")
            .arg(&out)
            .status()
            .unwrap();
        assert!(extracted.success());
        let dockerfile = std::fs::read(out.join("chrome.Dockerfile")).unwrap();
        let original = std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../chrome.Dockerfile"),
        )
        .unwrap();
        assert_eq!(dockerfile, original);
    }

    #[test]
    fn timestamps_are_rfc3339_utc() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_016_770);
        assert_eq!(rfc3339_utc(t), "2026-11-30T05:32:50Z");
        assert_eq!(rfc3339_utc(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00Z");
    }
}
