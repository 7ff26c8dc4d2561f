//! The element-ref books of a session's tabs: per tab, the next ref number to issue and the
//! out-of-process frames whose documents hold some of the tab's refs.
//!
//! A book lives in its tab's record (`TabEntry`) and goes with it, so ref numbers never
//! restart under an agent while the tab is open. Every change is one short
//! locked step that merges into the current book (numbers only grow, frames are replaced by
//! target id), so two tool calls on the same tab cannot lose each other's updates, and calls on
//! different tabs never touch the same book. What refs mean is the tools' business
//! (`tools::refs`); this module only keeps the numbers.

use super::list::TabList;
use super::store::Tabs;

/// An out-of-process frame and the refs issued in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameRefs {
    /// Ranges `[lo, hi)` of ref numbers issued in this frame, oldest first.
    pub ranges: Vec<(u64, u64)>,
    /// The frame's id (an out-of-process frame's target id is its frame id).
    pub target_id: String,
    /// Where the tools reach the frame: our flat session to an out-of-process frame, kept for
    /// the frame's life; for a frame in its parent's process, `<parent's session>/<frame id>`
    /// (`tools::world::in_process`).
    pub session_id: String,
    /// The ref of the frame's `<iframe>` element in the document that holds it.
    pub iframe_ref: String,
    /// The out-of-process frame whose document holds that `<iframe>` (its target id); `None`
    /// when it is the tab's main document.
    pub parent: Option<String>,
}

impl FrameRefs {
    /// Whether ref number `n` was issued in this frame.
    pub fn issued(&self, n: u64) -> bool {
        self.ranges.iter().any(|&(lo, hi)| (lo..hi).contains(&n))
    }
}

/// One tab's book: the next ref number and the out-of-process frames.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefBook {
    pub next: u64,
    pub frames: Vec<FrameRefs>,
}

impl Default for RefBook {
    fn default() -> Self {
        Self {
            next: 1,
            frames: Vec::new(),
        }
    }
}

/// The books of every tracked tab, by target id: a view of the tab list, whose records hold
/// them (a tab that is not tracked has a fresh book, and nothing is kept for it).
#[derive(Debug, Clone, Copy)]
pub struct RefBooks<'a> {
    /// Short lock, never held across an await.
    tabs: &'a Tabs,
}

impl<'a> RefBooks<'a> {
    pub(in crate::browser) fn new(tabs: &'a Tabs) -> Self {
        Self { tabs }
    }

    /// A copy of a tab's book (a fresh one when it has none yet).
    pub fn get(&self, target_id: &str) -> RefBook {
        let tabs = self.lock();
        tabs.entry(target_id)
            .map(|e| e.refs.clone())
            .unwrap_or_default()
    }

    /// Raises a tab's next ref number to at least `next`.
    pub fn advance(&self, target_id: &str, next: u64) {
        let mut tabs = self.lock();
        if let Some(entry) = tabs.entry_mut(target_id) {
            entry.refs.next = entry.refs.next.max(next);
        }
    }

    /// Records what one snapshot learnt: the next number, the frames it read (replacing the
    /// entries of the same frames) and the frames that are gone.
    pub fn merge(&self, target_id: &str, next: u64, frames: Vec<FrameRefs>, gone: &[String]) {
        let mut tabs = self.lock();
        let Some(entry) = tabs.entry_mut(target_id) else {
            return;
        };
        entry.refs.merge(next, frames, gone);
    }

    /// Which tabs have a book (for tests and logs).
    pub fn tabs(&self) -> Vec<String> {
        self.lock()
            .entries()
            .map(|e| e.tab.target_id.clone())
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'a, TabList> {
        self.tabs.list()
    }
}

impl RefBook {
    /// Takes in what one snapshot learnt (see [`RefBooks::merge`]).
    fn merge(&mut self, next: u64, frames: Vec<FrameRefs>, gone: &[String]) {
        let book = self;
        book.next = book.next.max(next);
        book.frames.retain(|f| !gone.contains(&f.target_id));
        for frame in frames {
            match book
                .frames
                .iter_mut()
                .find(|f| f.target_id == frame.target_id)
            {
                Some(slot) => *slot = frame,
                None => book.frames.push(frame),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(id: &str, lo: u64, hi: u64) -> FrameRefs {
        FrameRefs {
            ranges: vec![(lo, hi)],
            target_id: id.into(),
            session_id: format!("s-{id}"),
            iframe_ref: "e1".into(),
            parent: None,
        }
    }

    fn tracked(ids: &[&str]) -> Tabs {
        let list = Tabs::default();
        for id in ids {
            let tab = crate::browser::tabs::list::Tab {
                target_id: id.to_string(),
                session_id: format!("s-{id}"),
                url: String::new(),
                title: String::new(),
                owner: crate::browser::tabs::owner::TabOwner::Human,
            };
            list.add(crate::browser::tabs::list::TabEntry::new(tab, Vec::new()));
        }
        list
    }

    #[test]
    fn numbers_only_grow_and_books_are_per_tab() {
        let list = tracked(&["A", "B"]);
        let books = RefBooks::new(&list);
        assert_eq!(books.get("A").next, 1);
        books.advance("A", 10);
        books.advance("A", 4);
        books.merge("B", 7, vec![frame("F", 3, 7)], &[]);
        assert_eq!(books.get("A").next, 10);
        assert_eq!(books.get("B").next, 7);
        books.merge("B", 5, vec![frame("G", 7, 9)], &[]);
        assert_eq!(books.get("B").next, 7);
        assert_eq!(books.get("B").frames.len(), 2);
        books.merge("B", 9, vec![frame("F", 9, 12)], &["G".into()]);
        let b = books.get("B");
        assert_eq!(b.frames, vec![frame("F", 9, 12)]);
        drop(list.list().remove("A"));
        assert_eq!(books.tabs(), vec!["B".to_string()]);
        assert_eq!(books.get("A").next, 1);
        books.advance("C", 5);
        assert_eq!(
            books.get("C").next,
            1,
            "nothing is kept for a tab not tracked"
        );
    }
}
