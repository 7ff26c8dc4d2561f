//! The element-ref books of a session's tabs, by target id: a view of the tab list, whose records
//! hold them (see the floor's `tab_list::refs`). Every change is one short locked step on the
//! tab's own book.

use crate::browser::floor::{FrameRefs, RefBook, Tabs};

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
        self.tabs.read(|tabs| {
            tabs.entry(target_id)
                .map(|e| e.refs.clone())
                .unwrap_or_default()
        })
    }

    /// Raises a tab's next ref number to at least `next`.
    pub fn advance(&self, target_id: &str, next: u64) {
        self.tabs.write(|tabs| {
            if let Some(entry) = tabs.entry_mut(target_id) {
                entry.refs.next = entry.refs.next.max(next);
            }
        });
    }

    /// Records what one snapshot learnt: the next number, the frames it read (replacing the
    /// entries of the same frames) and the frames that are gone.
    pub fn merge(&self, target_id: &str, next: u64, frames: Vec<FrameRefs>, gone: &[String]) {
        self.tabs.write(|tabs| {
            if let Some(entry) = tabs.entry_mut(target_id) {
                entry.refs.merge(next, frames, gone);
            }
        });
    }

    /// Which tabs have a book (for tests and logs).
    pub fn tabs(&self) -> Vec<String> {
        self.tabs
            .read(|tabs| tabs.entries().map(|e| e.tab.target_id.clone()).collect())
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
            let tab = crate::browser::floor::Tab {
                target_id: id.to_string(),
                session_id: format!("s-{id}"),
                url: String::new(),
                title: String::new(),
                owner: crate::browser::floor::TabOwner::Human,
            };
            list.add(crate::browser::floor::TabEntry::new(tab, Vec::new()));
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
        drop(list.write(|l| l.remove("A")));
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
