//! One registry for what waits for the person at a pane (login prompts, file choosers,
//! approvals, select popups, context menus, handoffs): each kind mints its ids the same way
//! (`<prefix><start>-<n>`: a random mark of this daemon's start and a count over every session
//! of the daemon, so an id is never used twice, across sessions and restarts alike: a stale
//! card's answer cannot reach a newer item) and keeps its open items in the order they
//! opened, so a pane that attaches sees them oldest first. Short lock, never held across an
//! await.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// The count behind every id this daemon mints, over all sessions and kinds.
static MINTED: AtomicU64 = AtomicU64::new(0);

/// A random mark of this daemon's start (8 hex digits), the same in every id it mints.
fn start_mark() -> &'static str {
    static MARK: OnceLock<String> = OnceLock::new();
    MARK.get_or_init(|| format!("{:08x}", rand::random::<u32>()))
}

/// A kind of item that waits for the person.
pub trait Prompt {
    /// What its ids start with (`a` for login prompts, `f` for file choosers, …).
    const PREFIX: &'static str;
}

/// The open items of one kind, by id, oldest first.
#[derive(Debug)]
pub struct Registry<T> {
    open: Mutex<Vec<(String, T)>>,
}

impl<T> Default for Registry<T> {
    fn default() -> Self {
        Self {
            open: Mutex::new(Vec::new()),
        }
    }
}

impl<T: Prompt> Registry<T> {
    /// A fresh id for an item about to open, never minted before by this daemon nor, but for
    /// a one-in-four-billion chance, by an earlier start of it.
    pub fn mint(&self) -> String {
        let n = MINTED.fetch_add(1, Ordering::Relaxed) + 1;
        format!("{}{}-{n}", T::PREFIX, start_mark())
    }

    /// Keeps `item` open under `id` (from [`Self::mint`]).
    pub fn insert(&self, id: String, item: T) {
        self.lock().push((id, item));
    }

    /// Keeps `item` open under `id` unless an open item `clashes` with it (checked and kept
    /// under one lock); false when one did.
    pub fn insert_unless(&self, id: String, item: T, clashes: impl Fn(&T) -> bool) -> bool {
        let mut open = self.lock();
        if open.iter().any(|(_, other)| clashes(other)) {
            return false;
        }
        open.push((id, item));
        true
    }

    /// Closes item `id`, returning it.
    pub fn take(&self, id: &str) -> Option<T> {
        let mut open = self.lock();
        let at = open.iter().position(|(i, _)| i == id)?;
        Some(open.remove(at).1)
    }

    /// Closes every item `which` picks, returning them with their ids, oldest first.
    pub fn take_where(&self, which: impl Fn(&T) -> bool) -> Vec<(String, T)> {
        let mut open = self.lock();
        let (taken, kept) = std::mem::take(&mut *open)
            .into_iter()
            .partition(|(_, item)| which(item));
        *open = kept;
        taken
    }

    /// Reads the open items, oldest first.
    pub fn read<R>(&self, read: impl FnOnce(&[(String, T)]) -> R) -> R {
        read(&self.lock())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, T)>> {
        self.open.lock().expect("prompt registry lock")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Ask(&'static str);

    impl Prompt for Ask {
        const PREFIX: &'static str = "q";
    }

    #[test]
    fn items_stay_oldest_first() {
        let registry = Registry::<Ask>::default();
        let mut minted = Vec::new();
        for n in 0..12 {
            let id = registry.mint();
            minted.push(id.clone());
            registry.insert(id, Ask(if n % 2 == 0 { "even" } else { "odd" }));
        }
        // The 10th after the 9th, not after the 1st (ids are not sorted as text).
        let ids = registry.read(|open| open.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>());
        assert_eq!(ids, minted);
        assert_eq!(registry.take(&minted[1]), Some(Ask("odd")));
        assert_eq!(registry.take(&minted[1]), None);
        let odd = registry.take_where(|a| a.0 == "odd");
        assert_eq!(odd.len(), 5);
        assert_eq!(odd[0].0, minted[3]);
        assert_eq!(registry.read(|open| open.len()), 6);
        let next = registry.mint();
        assert!(!registry.insert_unless(next.clone(), Ask("x"), |a| a.0 == "even"));
        assert!(registry.insert_unless(next, Ask("x"), |a| a.0 == "odd"));
    }

    #[test]
    fn ids_are_never_minted_twice_across_sessions() {
        let first: Registry<Ask> = Registry::default();
        let second: Registry<Ask> = Registry::default();
        let a = first.mint();
        let b = second.mint();
        assert_ne!(a, b);
        assert!(a.starts_with(&format!("q{}-", start_mark())), "{a}");
        assert_eq!(start_mark().len(), 8);
    }
}
