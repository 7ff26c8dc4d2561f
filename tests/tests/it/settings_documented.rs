//! The documentation names the settings that exist, and every setting is documented: the keys
//! of `config/porthole.example.json` (the file the daemon's own test parses against its
//! defaults) against the table in `config/README.md` and the settings the README mentions.

use std::collections::BTreeSet;

use serde_json::Value;

/// Sections whose values are free-form maps, not settings of their own.
const MAPS: &[&str] = &["browser.container_labels", "browser.docker.tls"];

fn example_keys() -> BTreeSet<String> {
    let path = porthole_tests::workspace_root().join("config/porthole.example.json");
    let example: Value = serde_json::from_slice(&std::fs::read(&path).expect("the example config"))
        .expect("the example config is JSON");
    let mut keys = BTreeSet::new();
    flatten("", &example, &mut keys);
    keys
}

fn flatten(prefix: &str, value: &Value, keys: &mut BTreeSet<String>) {
    match value.as_object() {
        Some(map) if !map.is_empty() && !MAPS.contains(&prefix) => {
            for (key, inner) in map {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                flatten(&path, inner, keys);
            }
        }
        _ => {
            keys.insert(prefix.to_string());
        }
    }
}

/// Every `` `section.key` `` in a text whose section is one of the config's.
fn mentioned(text: &str, sections: &BTreeSet<String>) -> BTreeSet<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|quoted| {
            quoted.contains('.')
                && quoted
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '_' || c == '.')
                && quoted
                    .split('.')
                    .next()
                    .is_some_and(|section| sections.contains(section))
        })
        .map(str::to_string)
        .collect()
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(porthole_tests::workspace_root().join(relative))
        .unwrap_or_else(|e| panic!("{relative}: {e}"))
}

#[test]
fn the_config_table_lists_exactly_the_settings_that_exist() {
    let keys = example_keys();
    let sections: BTreeSet<String> = keys
        .iter()
        .filter_map(|k| k.split('.').next().map(str::to_string))
        .collect();
    // The table's first column: rows start with `| `key`` (some rows name two keys).
    let table: BTreeSet<String> = read("config/README.md")
        .lines()
        .filter(|line| line.starts_with("| `"))
        .flat_map(|line| {
            let first = line.split('|').nth(1).unwrap_or_default().to_string();
            mentioned(&first, &sections)
        })
        .collect();
    let undocumented: Vec<_> = keys.difference(&table).collect();
    let unknown: Vec<_> = table.difference(&keys).collect();
    assert!(
        undocumented.is_empty(),
        "settings in config/porthole.example.json missing from the table in config/README.md: {undocumented:?}"
    );
    assert!(
        unknown.is_empty(),
        "config/README.md documents settings that config/porthole.example.json does not have: {unknown:?}"
    );
}

#[test]
fn every_setting_the_readme_names_exists() {
    let keys = example_keys();
    let sections: BTreeSet<String> = keys
        .iter()
        .filter_map(|k| k.split('.').next().map(str::to_string))
        .collect();
    let named = mentioned(&read("README.md"), &sections);
    assert!(!named.is_empty(), "the README names settings");
    // A name may be a whole setting or a group of them (`browser.cookie_import`).
    let missing: Vec<_> = named
        .iter()
        .filter(|name| {
            !keys
                .iter()
                .any(|k| k == *name || k.starts_with(&format!("{name}.")))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "the README names settings that do not exist: {missing:?}"
    );
}
