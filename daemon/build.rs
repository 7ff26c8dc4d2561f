//! Embeds every file of `../web-panel/` into the binary (the panel has no build step), and the
//! docker-mode image's build context (`chrome.Dockerfile`, `sidecar/Cargo.toml`, `sidecar/src`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../web-panel");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let mut code = String::from("/// `(path relative to web-panel/, bytes)` of every panel file.\npub static PANEL_FILES: &[(&str, &[u8])] = &[\n");
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let relative = file.strip_prefix(&root).expect("under root");
        let relative = relative.to_string_lossy().replace('\\', "/");
        writeln!(
            code,
            "    ({relative:?}, include_bytes!({:?})),",
            file.display().to_string()
        )
        .unwrap();
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("panel_files.rs");
    std::fs::write(out, code).expect("write panel_files.rs");
    embed_sidecar_context();
}

/// Writes `sidecar_context.rs`: `(path in the build context, bytes)` of every file the image
/// build needs, so the daemon can build the image without the source tree.
fn embed_sidecar_context() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = vec![
        repo.join("chrome.Dockerfile"),
        repo.join("sidecar/Cargo.toml"),
    ];
    let src = repo.join("sidecar/src");
    println!("cargo:rerun-if-changed={}", src.display());
    collect(&src, &mut files);
    files.sort();
    let mut code = String::from(
        "/// `(path in the build context, bytes)` of the sidecar image's build context.\npub static SIDECAR_CONTEXT: &[(&str, &[u8])] = &[\n",
    );
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let relative = file.strip_prefix(&repo).expect("under the repo");
        let relative = relative.to_string_lossy().replace('\\', "/");
        writeln!(
            code,
            "    ({relative:?}, include_bytes!({:?})),",
            file.display().to_string()
        )
        .unwrap();
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("sidecar_context.rs");
    std::fs::write(out, code).expect("write sidecar_context.rs");
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
