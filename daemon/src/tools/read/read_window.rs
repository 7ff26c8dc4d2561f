//! The part of a `read_page` snapshot one answer carries: a window of whole lines from an
//! offset, and the answer built from the page's header line, that window and the note saying
//! what was cut, all within the caller's `max_bytes` (the note counts against the budget).

use crate::tools::error::ToolError;

/// The longest header line, as a share of the budget: a page with a huge title or URL still
/// leaves room for its tree.
const HEADER_SHARE: usize = 2;

/// `header`, then the window of `body` from `offset`, then the cut note if anything was cut,
/// one per line, in at most `max` bytes altogether.
pub fn answer(header: &str, body: &str, offset: usize, max: usize) -> Result<String, ToolError> {
    let header = shorten(header, max / HEADER_SHARE);
    let fixed = header.len() + 1;
    // The note's size depends on where the window ends, so fit it in a few steps; the room
    // kept for it only grows, so this ends with the answer inside the budget.
    let mut room_for_note = 0;
    for _ in 0..8 {
        let part = window(
            body,
            offset,
            max.saturating_sub(fixed + room_for_note).max(1),
        )?;
        let note = part.note.as_ref().map_or(0, |n| n.len() + 1);
        if fixed + part.text.len() + note <= max {
            let mut text = format!("{header}\n{}", part.text);
            if let Some(note) = part.note {
                text.push('\n');
                text.push_str(&note);
            }
            return Ok(text);
        }
        room_for_note = room_for_note.max(note) + 8;
    }
    Err(ToolError::msg(format!(
        "max_bytes {max} leaves no room for the page's tree; ask for more."
    )))
}

/// `text` cut to at most `max` bytes on a char boundary, with `…` when cut.
fn shorten(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let ellipsis = "…";
    let keep = floor_char(text, max.saturating_sub(ellipsis.len()));
    format!("{}{ellipsis}", &text[..keep])
}

/// The part of a snapshot one `read_page` returns.
#[derive(Debug, PartialEq, Eq)]
pub struct Window {
    pub text: String,
    /// What was left out and the offset that continues, when something was.
    pub note: Option<String>,
}

/// Up to `max` bytes of `body` from the start of the line holding byte `offset`, cut at a line
/// boundary (a single longer line is cut inside), with a note saying what was cut and the
/// `offset` to continue from.
pub fn window(body: &str, offset: usize, max: usize) -> Result<Window, ToolError> {
    let total = body.len();
    if offset >= total {
        return Err(ToolError::msg(format!(
            "offset {offset} is past the end of the snapshot ({total} bytes); call read_page \
             without offset."
        )));
    }
    // '\n' is one byte and never part of another character, so bytes can be searched.
    let newline_at_or_before = |s: &str, i: usize| {
        s.as_bytes()[..=i.min(s.len() - 1)]
            .iter()
            .rposition(|&b| b == b'\n')
    };
    let start = newline_at_or_before(body, offset).map_or(0, |i| i + 1);
    let rest = &body[start..];
    let end = if rest.len() <= max {
        rest.len()
    } else {
        match newline_at_or_before(rest, max) {
            Some(i) if i > 0 => i,
            // One line longer than the window: cut inside it.
            _ => floor_char(rest, max),
        }
    };
    let text = rest[..end].trim_end_matches('\n').to_string();
    let after = start + end + usize::from(rest[end..].starts_with('\n'));
    let mut cut = Vec::new();
    if start > 0 {
        cut.push(format!("bytes 0–{start} (before offset)"));
    }
    if after < total {
        let lines = body[after..].lines().count();
        cut.push(format!(
            "{lines} more line(s), {} bytes: read_page with offset={after} continues",
            total - after
        ));
    }
    let note = (!cut.is_empty()).then(|| format!("[Cut: {}. find narrows it.]", cut.join("; ")));
    Ok(Window { text, note })
}

/// The largest char boundary of `s` at or below `i` (clamped to the string).
fn floor_char(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::{answer, window};

    #[test]
    fn windows_cut_at_lines_and_say_where_to_continue() {
        let body = "aaa\nbbb\nccc\nddd";
        let w = window(body, 0, 9).unwrap();
        assert_eq!(w.text, "aaa\nbbb");
        let note = w.note.unwrap();
        assert!(
            note.contains("2 more line(s)") && note.contains("offset=8"),
            "{note}"
        );
        let w = window(body, 8, 100).unwrap();
        assert_eq!(w.text, "ccc\nddd");
        assert!(w.note.unwrap().contains("before offset"));
        // An offset inside a line starts at that line.
        assert_eq!(window(body, 9, 3).unwrap().text, "ccc");
        assert_eq!(window(body, 0, 100).unwrap().note, None);
        assert!(window(body, 15, 100).is_err());
        // One line longer than the window is cut inside, on a char boundary.
        let w = window("ééééé", 0, 5).unwrap();
        assert_eq!(w.text, "éé");
    }

    /// A body of `n` numbered lines of varied lengths.
    fn lines(n: usize) -> String {
        (0..n)
            .map(|i| format!("{}- row {i} \"{}\"", " ".repeat(i % 4), "é".repeat(i % 13)))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn an_answer_with_its_note_stays_within_max_bytes() {
        let header = "Page: Shop — http://127.0.0.1:4000/complex";
        for n in [5, 40, 400, 4000] {
            let body = lines(n);
            for max in [500, 501, 777, 1000, 1234, 4096] {
                let mut offset = 0;
                let mut seen: Vec<String> = Vec::new();
                loop {
                    let text = answer(header, &body, offset, max).unwrap();
                    assert!(text.len() <= max, "{} bytes > {max}:\n{text}", text.len());
                    let mut rows: Vec<&str> = text.lines().skip(1).collect();
                    let note = rows.last().filter(|l| l.starts_with("[Cut:")).copied();
                    if note.is_some() {
                        rows.pop();
                    }
                    seen.extend(rows.into_iter().map(str::to_string));
                    let Some(next) = note.and_then(|n| n.split("offset=").nth(1)) else {
                        break;
                    };
                    offset = next[..next.find(' ').unwrap()].parse().unwrap();
                }
                assert_eq!(seen.join("\n"), body, "{n} lines in windows of {max}");
            }
        }
    }

    #[test]
    fn a_long_header_is_shortened_to_leave_room_for_the_tree() {
        let header = format!("Page: {} — http://x/", "t".repeat(2000));
        let text = answer(&header, &lines(100), 0, 600).unwrap();
        assert!(text.len() <= 600, "{} bytes", text.len());
        assert!(text.lines().next().unwrap().ends_with('…'));
        assert!(text.contains("- row 0"), "{text}");
    }
}
