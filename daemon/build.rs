//! Embeds every file of `../web-panel/` into the binary (the panel has no build step), and the
//! docker-mode image's build context (`chrome.Dockerfile`, `sidecar/Cargo.toml`, `sidecar/src`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    // Read when the script runs, not when it was compiled: a target directory copied from
    // another checkout must embed this checkout's files.
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let manifest = Path::new(&manifest_dir);
    let panel = manifest.join("../web-panel");
    println!("cargo:rerun-if-changed={}", panel.display());
    let mut files = Vec::new();
    collect(&panel, &mut files);
    embed(
        &panel,
        files,
        "panel_files.rs",
        "PANEL_FILES",
        "`(path relative to web-panel/, bytes)` of every panel file.",
    );

    // The docker-mode image's build context, so the daemon can build it without the tree.
    let repo = manifest.join("..");
    let mut files = vec![
        repo.join("chrome.Dockerfile"),
        repo.join("sidecar/Cargo.toml"),
    ];
    let sidecar_src = repo.join("sidecar/src");
    println!("cargo:rerun-if-changed={}", sidecar_src.display());
    collect(&sidecar_src, &mut files);
    embed(
        &repo,
        files,
        "sidecar_context.rs",
        "SIDECAR_CONTEXT",
        "`(path in the build context, bytes)` of the sidecar image's build context.",
    );
}

/// Writes `$OUT_DIR/<out>`: a static `name` listing `(path relative to root, bytes)` of `files`,
/// and tells cargo to rebuild when any of them changes.
fn embed(root: &Path, mut files: Vec<PathBuf>, out: &str, name: &str, doc: &str) {
    files.sort();
    let mut code = format!("/// {doc}\npub static {name}: &[(&str, &[u8])] = &[\n");
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let relative = file.strip_prefix(root).expect("under root");
        let relative = relative.to_string_lossy().replace('\\', "/");
        writeln!(
            code,
            "    ({relative:?}, include_bytes!({:?})),",
            file.display().to_string()
        )
        .unwrap();
    }
    code.push_str("];\n");
    let path = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join(out);
    std::fs::write(path, code).expect("write embedded file list");
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(&path, files);
        } else if !entry.file_name().to_string_lossy().starts_with('.') {
            files.push(path);
        }
    }
}
