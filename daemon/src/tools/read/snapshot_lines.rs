//! The compact text of a `read_page` snapshot, made from the lines `page.js` returns (frames
//! already spliced in): a run of siblings mostly of one role is listed under that role once
//! (the others keep theirs), and where
//! a run of lines lies outside the viewport is said once, by a mark line before the run,
//! instead of on every line (a short run keeps a mark on each line).
//!
//! `page.js` ends an off-screen line with `\u{1}` and one of `↑↓←→`; nothing else here reads
//! the page.

/// Siblings of one role listed under one line from this many on (fewer save too little).
const GROUP_MIN: usize = 5;
/// Off-screen lines in a row marked by one mark line from this many on.
const RUN_MIN: usize = 3;
/// What `page.js` puts before a line's off-screen mark.
const MARK: char = '\u{1}';

/// The compact lines, and whether any line still carries its own off-screen mark (the header
/// then explains the marks).
pub fn compact(lines: Vec<String>) -> (Vec<String>, bool) {
    let parsed: Vec<Line> = lines.into_iter().map(Line::parse).collect();
    let grouped = group(parsed);
    mark_runs(grouped)
}

/// One snapshot line: its indentation, its text after that, and where it lies off-screen.
#[derive(Debug, Clone)]
struct Line {
    indent: usize,
    text: String,
    /// `None`: not an element (a group's line; it takes the mark of what follows).
    off: Option<Option<char>>,
}

impl Line {
    fn parse(line: String) -> Self {
        let (text, off) = match line.rfind(MARK) {
            Some(i) => (line[..i].to_string(), line[i + 1..].chars().next()),
            None => (line, None),
        };
        let indent = text.len() - text.trim_start_matches(' ').len();
        Self {
            indent,
            text: text[indent..].to_string(),
            off: Some(off),
        }
    }

    /// The role of an element line (`- link "…" [ref=…]`) and the rest after it.
    fn role(&self) -> Option<(&str, &str)> {
        self.off?;
        let rest = self.text.strip_prefix("- ")?;
        let (role, after) = rest.split_once(' ')?;
        let named = after.starts_with('"') || after.starts_with("[ref=");
        (named && !role.is_empty() && role.bytes().all(|b| b.is_ascii_alphabetic()))
            .then_some((role, after))
    }
}

/// `role` in the plural, for a group's line.
fn plural(role: &str) -> String {
    if role.ends_with('x') || role.ends_with('s') || role.ends_with("ch") {
        format!("{role}es")
    } else {
        format!("{role}s")
    }
}

/// Runs of sibling elements with nothing inside them, where one role holds at least
/// [`GROUP_MIN`] lines and half the run, become `- links (N):` (or `- links (N), others by
/// role:` when other roles are mixed in) and the elements one level in without the list dash,
/// those of that role without the role word either. Headings start a new run (they title what
/// follows).
fn group(lines: Vec<Line>) -> Vec<Line> {
    // A line is a leaf when the next one is not deeper.
    let leaf = |i: usize| lines.get(i + 1).is_none_or(|n| n.indent <= lines[i].indent);
    let member = |i: usize| leaf(i) && lines[i].role().is_some_and(|(r, _)| r != "heading");
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        if !member(i) {
            out.push(lines[i].clone());
            i += 1;
            continue;
        }
        let indent = lines[i].indent;
        let mut end = i + 1;
        while end < lines.len() && lines[end].indent == indent && member(end) {
            end += 1;
        }
        let run = &lines[i..end];
        let roles: Vec<&str> = run
            .iter()
            .filter_map(|l| l.role())
            .map(|(r, _)| r)
            .collect();
        let (role, count) = roles
            .iter()
            .map(|r| (*r, roles.iter().filter(|x| *x == r).count()))
            .max_by_key(|(_, n)| *n)
            .expect("a run has a line");
        if count < GROUP_MIN || count * 2 < run.len() {
            out.extend(run.iter().cloned());
            i = end;
            continue;
        }
        let others = if count < run.len() {
            ", others by role"
        } else {
            ""
        };
        out.push(Line {
            indent,
            text: format!("- {} ({count}){others}:", plural(role)),
            off: None,
        });
        for line in run {
            let (r, after) = line.role().expect("an element line");
            let text = if r == role {
                after.to_string()
            } else {
                line.text[2..].to_string()
            };
            out.push(Line {
                indent: indent + 1,
                text,
                off: line.off,
            });
        }
        i = end;
    }
    out
}

/// The line that opens a run of lines lying `off` the viewport (`None`: back in view).
fn mark_line(off: Option<char>) -> &'static str {
    match off {
        Some('↑') => "[↑ above the viewport:]",
        Some('↓') => "[↓ below the viewport:]",
        Some('←') => "[← left of the viewport:]",
        Some('→') => "[→ right of the viewport:]",
        _ => "[in the viewport:]",
    }
}

/// Marks off-screen runs of [`RUN_MIN`] or more element lines by one line before the run, and
/// says when the lines after are back in view; shorter runs keep ` ↓` (etc.) on each line.
fn mark_runs(lines: Vec<Line>) -> (Vec<String>, bool) {
    // Runs over element lines only; a group's line goes with the element after it.
    let elements: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].off.is_some())
        .collect();
    let off = |i: usize| lines[i].off.flatten();
    let mut opens_run = vec![None; lines.len()];
    let mut inline = vec![false; lines.len()];
    // What the last mark line said (none yet: in view).
    let mut state: Option<char> = None;
    let mut k = 0;
    while k < elements.len() {
        let here = off(elements[k]);
        let mut end = k + 1;
        while end < elements.len() && off(elements[end]) == here {
            end += 1;
        }
        let long = end - k >= RUN_MIN;
        match here {
            Some(_) if long => {
                if state != here {
                    opens_run[elements[k]] = Some(here);
                    state = here;
                }
            }
            Some(_) => {
                if state != here {
                    for &i in &elements[k..end] {
                        inline[i] = true;
                    }
                }
            }
            None => {
                if state.is_some() {
                    opens_run[elements[k]] = Some(None);
                    state = None;
                }
            }
        }
        k = end;
    }
    let mut out = Vec::with_capacity(lines.len() + 4);
    let mut any_inline = false;
    for (i, line) in lines.iter().enumerate() {
        if let Some(run) = opens_run[i] {
            // Before the group's line when the run starts at a group's first element.
            let at = match out.last() {
                Some(_) if i > 0 && lines[i - 1].off.is_none() => out.len() - 1,
                _ => out.len(),
            };
            let indent = if at < out.len() {
                lines[i - 1].indent
            } else {
                line.indent
            };
            out.insert(at, format!("{}{}", " ".repeat(indent), mark_line(run)));
        }
        let mut text = format!("{}{}", " ".repeat(line.indent), line.text);
        if inline[i] {
            if let Some(m) = off(i) {
                text.push(' ');
                text.push(m);
                any_inline = true;
            }
        }
        out.push(text);
    }
    (out, any_inline)
}

#[cfg(test)]
mod tests {
    use super::compact;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(|l| l.replace('|', "\u{1}")).collect()
    }

    #[test]
    fn same_role_siblings_are_listed_once_under_their_role() {
        let mut input = vec!["- heading \"Shop\" [ref=e1] level=1".to_string()];
        input.extend((2..9).map(|i| format!(" - link \"Item {i}\" [ref=e{i}]")));
        input.push(" - button \"Go\" [ref=e9]".into());
        let (out, inline) = compact(input);
        assert!(!inline);
        assert_eq!(out[1], " - links (7), others by role:");
        assert_eq!(out[2], "  \"Item 2\" [ref=e2]");
        assert_eq!(out[9], "  button \"Go\" [ref=e9]");
        // Mostly links: the others keep their role.
        let mut mixed: Vec<String> = (1..8)
            .map(|i| format!("- link \"P{i}\" [ref=e{i}]"))
            .collect();
        mixed.insert(3, "- button \"Add\" [ref=e9]".into());
        let out = compact(mixed).0;
        assert_eq!(out[0], "- links (7), others by role:");
        assert_eq!(out[4], " button \"Add\" [ref=e9]");
        assert_eq!(out[5], " \"P4\" [ref=e4]");
        // Fewer than GROUP_MIN, or with children: left as they are.
        let few = lines("- link \"a\" [ref=e1]\n- link \"b\" [ref=e2]");
        assert_eq!(compact(few.clone()).0, few);
        let parents = lines(
            "- iframe \"a\" [ref=e1]\n - button \"x\" [ref=e2]\n- iframe \"b\" [ref=e3]\n \
             - button \"y\" [ref=e4]",
        );
        assert_eq!(compact(parents.clone()).0, parents);
    }

    #[test]
    fn a_long_off_screen_run_is_marked_once_a_short_one_per_line() {
        let text = "- link \"Skip\" [ref=e1]|←\n- button \"Top\" [ref=e2]\n\
                    - textbox \"Name\" [ref=e3]|↓\n- checkbox \"Pick\" [ref=e4] checked|↓\n\
                    - button \"Send\" [ref=e5]|↓\n- link \"Last\" [ref=e6]";
        let (out, inline) = compact(lines(text));
        assert!(inline, "the lone ← keeps its own mark");
        assert_eq!(
            out,
            [
                "- link \"Skip\" [ref=e1] ←",
                "- button \"Top\" [ref=e2]",
                "[↓ below the viewport:]",
                "- textbox \"Name\" [ref=e3]",
                "- checkbox \"Pick\" [ref=e4] checked",
                "- button \"Send\" [ref=e5]",
                "[in the viewport:]",
                "- link \"Last\" [ref=e6]",
            ]
        );
    }

    #[test]
    fn a_run_that_starts_a_group_is_marked_before_the_groups_line() {
        let mut input = vec!["- heading \"Top\" [ref=e1] level=2".to_string()];
        input.extend((2..10).map(|i| format!("- link \"Item {i}\" [ref=e{i}]\u{1}↓")));
        let (out, inline) = compact(input);
        assert!(!inline);
        assert_eq!(out[1], "[↓ below the viewport:]");
        assert_eq!(out[2], "- links (8):");
        assert_eq!(out[3], " \"Item 2\" [ref=e2]");
        assert_eq!(out.len(), 11);
    }
}
