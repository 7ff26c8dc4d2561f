//! Checks over the crate's own source text (tests only). In-page JavaScript lives in `.js`
//! files pulled in with `include_str!` (STYLE.md "Code in its own language"); these tests read
//! every `daemon/src/**/*.rs` and fail, naming the file and line, on a Rust string literal that
//! holds JavaScript.

use std::path::{Path, PathBuf};

/// Text that marks a string as JavaScript. Each is written in two parts, so that this file's
/// own literals do not match.
const MARKERS: &[[&str; 2]] = &[
    ["document", "."],
    ["window", "."],
    ["addEvent", "Listener"],
    ["query", "Selector"],
    ["getElement", "ById"],
    ["=> ", "{"],
    ["=>", "{"],
    ["function", "("],
    ["function", " ("],
    ["dispatch", "Event("],
    ["getComputed", "Style"],
    ["getBoundingClient", "Rect"],
    ["JSON", ".stringify"],
    ["Promise", ".resolve"],
    ["new ", "Promise"],
];

/// Files let through, with why: an agent's own `evaluate` code is JavaScript by nature.
const ALLOWED: &[(&str, &str)] = &[(
    "timeline/summary.rs",
    "its test's data is an agent's `evaluate` argument, which the timeline must not keep",
)];

/// One string literal of a source file: where it starts and its text (escapes left as written).
struct Literal {
    line: usize,
    text: String,
}

/// The string literals of Rust source `src`: `"…"`, `b"…"`, `r"…"`, `r#"…"#` (and more `#`s),
/// skipping comments, char literals and lifetimes.
fn string_literals(src: &str) -> Vec<Literal> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let newlines = |from: usize, to: usize| bytes[from..to].iter().filter(|b| **b == b'\n').count();
    while i < bytes.len() {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        if b == b'\n' {
            line += 1;
            i += 1;
        } else if b == b'/' && next == Some(b'/') {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if b == b'/' && next == Some(b'*') {
            let mut depth = 0;
            let start = i;
            while i < bytes.len() {
                if bytes[i] == b'/' && bytes.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            line += newlines(start, i);
        } else if b == b'r' && is_raw_start(bytes, i) && !ident_before(bytes, i) {
            let mut j = i + 1;
            let mut hashes = 0;
            while bytes[j] == b'#' {
                hashes += 1;
                j += 1;
            }
            let body = j + 1;
            let mut close = String::from("\"");
            close.push_str(&"#".repeat(hashes));
            let end = src[body..].find(&close).map_or(bytes.len(), |at| body + at);
            out.push(Literal {
                line,
                text: src[body..end].to_string(),
            });
            line += newlines(i, end);
            i = (end + close.len()).min(bytes.len());
        } else if b == b'"' {
            let start = i + 1;
            let mut j = start;
            while j < bytes.len() && bytes[j] != b'"' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            let end = j.min(bytes.len());
            out.push(Literal {
                line,
                text: src[start..end].to_string(),
            });
            line += newlines(i, end);
            i = end + 1;
        } else if b == b'\'' {
            // A char literal ('"', '\'', '\u{1F600}') or a lifetime ('a): skip a char literal
            // whole so that its quote does not open a string.
            let rest = &src[i + 1..];
            let len = if rest.starts_with('\\') {
                rest.get(2..).and_then(|r| r.find('\'')).map(|at| at + 2)
            } else {
                rest.chars()
                    .next()
                    .filter(|c| rest[c.len_utf8()..].starts_with('\''))
                    .map(char::len_utf8)
            };
            i += len.map_or(1, |len| len + 2);
        } else {
            i += 1;
        }
    }
    out
}

/// Whether a raw string (`r"`, `r#…#"`) starts at `i`.
fn is_raw_start(bytes: &[u8], i: usize) -> bool {
    let mut j = i + 1;
    while bytes.get(j) == Some(&b'#') {
        j += 1;
    }
    bytes.get(j) == Some(&b'"')
}

/// Whether an identifier character comes right before `i` (`br"…"` counts as raw; `for"` would
/// not be Rust anyway).
fn ident_before(bytes: &[u8], i: usize) -> bool {
    i > 0 && {
        let c = bytes[i - 1];
        (c.is_ascii_alphanumeric() || c == b'_') && c != b'b'
    }
}

/// The JavaScript marker that `text` holds, if any.
fn js_marker(text: &str) -> Option<String> {
    MARKERS
        .iter()
        .map(|[a, b]| format!("{a}{b}"))
        .find(|marker| {
            // At a word's start: `officedocument.` in a MIME type is no script.
            text.match_indices(marker.as_str()).any(|(at, _)| {
                !text[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$')
            })
        })
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).expect("read source directory");
    for entry in entries {
        let path = entry.expect("source directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_javascript_in_rust_strings() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    assert!(files.len() > 50, "found only {} source files", files.len());
    let mut found = Vec::new();
    for file in &files {
        let name = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        if ALLOWED.iter().any(|(allowed, _)| *allowed == name) {
            continue;
        }
        let src = std::fs::read_to_string(file).expect("read source file");
        for literal in string_literals(&src) {
            if let Some(marker) = js_marker(&literal.text) {
                found.push(format!("{name}:{} holds `{marker}`", literal.line));
            }
        }
    }
    assert!(
        found.is_empty(),
        "JavaScript in Rust strings (move it to a .js file next to the module and load it with \
         include_str!):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scanner_finds_strings_and_skips_the_rest() {
    let src = concat!(
        "// a comment with \"document",
        ".x\"\n",
        "let c = '\"'; let l: &'a str = \"plain\";\n",
        "/* \"window",
        ".y\" */ let r = r#\"a \"quoted\" document",
        ".body\"#;\n",
        "let e = \"esc \\\" addEvent",
        "Listener\";\n",
    );
    let literals = string_literals(src);
    let texts: Vec<&str> = literals.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "plain",
            concat!("a \"quoted\" document", ".body"),
            concat!("esc \\\" addEvent", "Listener"),
        ]
    );
    assert_eq!(literals[1].line, 3);
    assert!(js_marker(texts[0]).is_none());
    assert!(js_marker(texts[1]).is_some());
    assert!(js_marker(texts[2]).is_some());
}
