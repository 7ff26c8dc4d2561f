//! The daemon's modules stand in layers (issue 20): no import circle spans two of its top-level
//! modules, and `config` (read by nearly everything) imports nothing from `providers`,
//! `browser` or `tools`. Read from the source, as a newcomer would follow the `crate::` paths.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level module → the other top-level modules its files name through `crate::`.
type Imports = BTreeMap<String, BTreeSet<String>>;

/// Every `crate::<module>` a file names, `use crate::{a::…, b::…}` groups included.
fn named_modules(source: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, _) in source.match_indices("crate::") {
        let rest = &source[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // The group's top-level items, nested groups kept whole: `a::{X, Y}, b::Z`.
            let (mut depth, mut item) = (0, String::new());
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.extend(module_of(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            names.extend(module_of(&item));
            continue;
        }
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        names.push(rest[..end].to_string());
    }
    names
}

/// The first segment of a path inside a group (`browser::Tab` → `browser`).
fn module_of(item: &str) -> Option<String> {
    item.trim()
        .split_once("::")
        .map(|(module, _)| module.to_string())
}

fn collect(dir: &Path, top: &str, modules: &BTreeSet<String>, imports: &mut Imports) {
    for entry in std::fs::read_dir(dir).expect("a source directory") {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, top, modules, imports);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let source = std::fs::read_to_string(&path).unwrap();
            for name in named_modules(&source) {
                if name != top && modules.contains(&name) {
                    imports.entry(top.to_string()).or_default().insert(name);
                }
            }
        }
    }
}

fn daemon_imports() -> Imports {
    let src = porthole_tests::workspace_root().join("daemon/src");
    let modules: BTreeSet<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() || p.extension().is_some_and(|e| e == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|m| !["lib", "main", "bin"].contains(&m.as_str()))
        .collect();
    let mut imports = Imports::new();
    for module in &modules {
        let dir = src.join(module);
        if dir.is_dir() {
            collect(&dir, module, &modules, &mut imports);
        }
        let file = src.join(format!("{module}.rs"));
        if file.is_file() {
            let source = std::fs::read_to_string(&file).unwrap();
            for name in named_modules(&source) {
                if &name != module && modules.contains(&name) {
                    imports.entry(module.clone()).or_default().insert(name);
                }
            }
        }
    }
    imports
}

/// A path of imports from `from` back to `to`, if there is one.
fn path_back(imports: &Imports, from: &str, to: &str) -> Option<Vec<String>> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![vec![from.to_string()]];
    while let Some(path) = stack.pop() {
        let last = path.last().unwrap().clone();
        for next in imports.get(&last).into_iter().flatten() {
            let mut longer = path.clone();
            longer.push(next.clone());
            if next == to {
                return Some(longer);
            }
            if seen.insert(next.clone()) {
                stack.push(longer);
            }
        }
    }
    None
}

#[test]
fn no_import_circle_spans_two_top_level_modules() {
    let imports = daemon_imports();
    assert!(
        imports.len() > 10,
        "the walk found the modules: {imports:?}"
    );
    let mut circles = Vec::new();
    for (module, named) in &imports {
        for other in named {
            if let Some(back) = path_back(&imports, other, module) {
                circles.push(format!("{module} -> {}", back.join(" -> ")));
            }
        }
    }
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

#[test]
fn config_imports_nothing_from_the_layers_above_it() {
    let imports = daemon_imports();
    let config = imports.get("config").cloned().unwrap_or_default();
    for above in [
        "providers",
        "browser",
        "tools",
        "timeline",
        "channels",
        "api",
    ] {
        assert!(
            !config.contains(above),
            "config imports {above}: {config:?}"
        );
    }
}

#[test]
fn the_reader_sees_grouped_and_plain_paths() {
    let names = named_modules(
        "use crate::{browser::{Tab, Frame}, cdp::X};\nlet a = crate::timeline::now();",
    );
    assert_eq!(names, vec!["browser", "cdp", "timeline"]);
}
