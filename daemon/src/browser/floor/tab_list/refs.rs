//! One tab's element-ref book: the next ref number to issue and the out-of-process frames whose
//! documents hold some of the tab's refs (the session's books are read through the `tabs` room's `ref_books`).
//!
//! A book lives in its tab's record (`TabEntry`) and goes with it, so ref numbers never
//! restart under an agent while the tab is open. Every change is one short
//! locked step that merges into the current book (numbers only grow, frames are replaced by
//! target id), so two tool calls on the same tab cannot lose each other's updates, and calls on
//! different tabs never touch the same book. What refs mean is the tools' business
//! (`tools::tab::element_refs`); this module only keeps the numbers.

/// An out-of-process frame and the refs issued in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameRefs {
    /// Ranges `[lo, hi)` of ref numbers issued in this frame, oldest first.
    pub ranges: Vec<(u64, u64)>,
    /// The frame's id (an out-of-process frame's target id is its frame id).
    pub target_id: String,
    /// Where the tools reach the frame: our flat session to an out-of-process frame, kept for
    /// the frame's life; for a frame in its parent's process, `<parent's session>/<frame id>`
    /// (`tools::tab::world::in_process`).
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

impl RefBook {
    /// Takes in what one snapshot learnt (see `RefBooks::merge`).
    pub fn merge(&mut self, next: u64, frames: Vec<FrameRefs>, gone: &[String]) {
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
