//! Frames of watched tabs while they change (DESIGN.md §17: "while a watched tab changes at
//! most one a second"). Follows the channel's screencast hub — the frames panes already get,
//! never a capture of its own (a capture can close Chrome's open picker) — and hands the
//! recorder at most one frame a second for the whole channel, of a tab whose picture changed,
//! as a `frame` event. A still page adds nothing: the first frame seen of a tab is only noted,
//! and a frame showing one of the tab's last few pictures (a blinking caret, a still page sent
//! again with other bytes: see [`super::look`]) is skipped.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::look::Picture;
use super::Timeline;
use crate::browser::BrowserSession;
use crate::browser::Frame;

/// At most one frame per channel this often.
pub const MIN_INTERVAL: Duration = Duration::from_secs(1);
/// Frames of a tab remembered to skip repeats (a caret blinking between two pictures).
const RECENT: usize = 8;

/// Follows `session`'s watched tabs until it ends.
pub async fn follow(timeline: Arc<Timeline>, session: Arc<BrowserSession>) {
    let mut published = session.screencast().frames_published();
    let mut changes = Changes::default();
    let mut next = Instant::now();
    let mut pending = false;
    loop {
        if !pending {
            tokio::select! {
                changed = published.changed() => if changed.is_err() { break },
                _ = session.ended() => break,
            }
        }
        tokio::select! {
            _ = tokio::time::sleep_until(next) => {}
            _ = session.ended() => break,
        }
        published.borrow_and_update();
        // A tab a tool call just took a frame of is not compared: that frame shows it.
        let watched = session.screencast().watched_frames();
        let framed: Vec<String> = watched
            .iter()
            .map(|(id, _)| id)
            .filter(|id| timeline.framed_within(session.channel(), id, MIN_INTERVAL))
            .cloned()
            .collect();
        // Comparing pictures may decode JPEGs: off the runtime's threads. Most frames of a
        // busy channel only need noting (their tab was just framed, issue 35): that is done
        // here, without a hand-over to a blocking thread per frame.
        let picked;
        if changes.compares(&watched, &framed) {
            (changes, (picked, pending)) = match tokio::task::spawn_blocking(move || {
                let timer = super::stages::start();
                let picked = changes.pick(watched, &framed);
                timer.stop(super::stages::Stage::Compare);
                (changes, picked)
            })
            .await
            {
                Ok(done) => done,
                Err(_) => break,
            };
        } else {
            let timer = super::stages::start();
            (picked, pending) = changes.pick(watched, &framed);
            timer.stop(super::stages::Stage::Compare);
        }
        if let Some((target_id, frame)) = picked {
            timeline.page_frame(&session, target_id, frame.jpeg.clone());
            next = Instant::now() + MIN_INTERVAL;
        }
    }
}

/// What the follower knows of one watched tab's frames.
struct Tab {
    /// The last frame looked at.
    last: Arc<Frame>,
    /// The tab's latest distinct pictures, newest last.
    recent: VecDeque<Picture>,
    /// When a frame of it was last kept (by [`Changes::round`]); 0 for never.
    kept: u64,
}

/// The tabs' frames seen so far.
#[derive(Default)]
struct Changes {
    tabs: HashMap<String, Tab>,
    /// Counts the frames kept, to pick the tab kept longest ago first.
    round: u64,
}

impl Changes {
    /// Whether [`Changes::pick`] would compare a frame with earlier ones (and may decode): a
    /// known tab shows another frame and no tool call just framed it.
    fn compares(&self, watched: &[(String, Arc<Frame>)], framed: &[String]) -> bool {
        watched.iter().any(|(target_id, frame)| {
            self.tabs
                .get(target_id)
                .is_some_and(|tab| !Arc::ptr_eq(&tab.last, frame) && !framed.contains(target_id))
        })
    }

    /// The frame to keep now, if a watched tab shows something new, and whether other tabs
    /// changed too (to look again after the interval without waiting for another frame).
    /// Tabs in `framed` (a tool call's frame of them was just kept) are only noted: their
    /// frame is what the next change is measured from, and nothing is decoded.
    fn pick(
        &mut self,
        watched: Vec<(String, Arc<Frame>)>,
        framed: &[String],
    ) -> (Option<(String, Arc<Frame>)>, bool) {
        self.tabs
            .retain(|id, _| watched.iter().any(|(watched, _)| watched == id));
        let mut changed: Vec<(u64, String, Arc<Frame>)> = Vec::new();
        for (target_id, frame) in watched {
            match self.tabs.get_mut(&target_id) {
                None => {
                    // What the tab looked like when somebody began watching it: not a change.
                    let recent = VecDeque::from([Picture::of(frame.jpeg.clone())]);
                    self.tabs.insert(
                        target_id,
                        Tab {
                            last: frame,
                            recent,
                            kept: 0,
                        },
                    );
                }
                Some(tab) if Arc::ptr_eq(&tab.last, &frame) => {}
                Some(tab) if framed.contains(&target_id) => {
                    tab.recent = VecDeque::from([Picture::of(frame.jpeg.clone())]);
                    tab.last = frame;
                }
                Some(tab) => changed.push((tab.kept, target_id, frame)),
            }
        }
        changed.sort_by_key(|(kept, ..)| *kept);
        let mut changed = changed.into_iter();
        for (_, target_id, frame) in changed.by_ref() {
            let tab = self.tabs.get_mut(&target_id).expect("tab just seen");
            tab.last = frame.clone();
            let mut picture = Picture::of(frame.jpeg.clone());
            if picture.among(tab.recent.iter_mut()) {
                continue;
            }
            if tab.recent.len() == RECENT {
                tab.recent.pop_front();
            }
            tab.recent.push_back(picture);
            self.round += 1;
            tab.kept = self.round;
            return (Some((target_id, frame)), changed.len() > 0);
        }
        (None, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(jpeg: &'static [u8]) -> Arc<Frame> {
        Arc::new(Frame {
            jpeg: bytes::Bytes::from_static(jpeg),
            width: 800,
            height: 600,
            seq: 1,
            stamps: None,
        })
    }

    fn kept(picked: (Option<(String, Arc<Frame>)>, bool)) -> Option<(String, Vec<u8>)> {
        picked.0.map(|(tab, f)| (tab, f.jpeg.to_vec()))
    }

    impl Changes {
        fn pick_all(
            &mut self,
            watched: Vec<(String, Arc<Frame>)>,
        ) -> (Option<(String, Arc<Frame>)>, bool) {
            self.pick(watched, &[])
        }
    }

    #[test]
    fn a_tab_a_tool_call_just_framed_is_noted_not_kept() {
        let mut changes = Changes::default();
        changes.pick_all(vec![("T".into(), frame(b"a"))]);
        let framed = ["T".to_string()];
        assert_eq!(
            kept(changes.pick(vec![("T".into(), frame(b"b"))], &framed)),
            None
        );
        // Measured from the frame noted then: the same picture is no change, another is.
        assert_eq!(
            kept(changes.pick_all(vec![("T".into(), frame(b"b"))])),
            None
        );
        assert_eq!(
            kept(changes.pick_all(vec![("T".into(), frame(b"c"))])),
            Some(("T".into(), b"c".to_vec()))
        );
    }

    #[test]
    fn only_a_changed_tab_no_call_framed_is_compared() {
        let mut changes = Changes::default();
        let a = frame(b"a");
        // A tab first seen is only noted.
        assert!(!changes.compares(&[("T".into(), a.clone())], &[]));
        changes.pick_all(vec![("T".into(), a.clone())]);
        // The same frame again: nothing to compare.
        assert!(!changes.compares(&[("T".into(), a)], &[]));
        // Another frame: compared, unless a tool call just framed the tab.
        let b = frame(b"b");
        assert!(changes.compares(&[("T".into(), b.clone())], &[]));
        assert!(!changes.compares(&[("T".into(), b)], &["T".to_string()]));
    }

    #[test]
    fn a_still_tab_adds_nothing_and_a_changing_one_a_frame_per_change() {
        let mut changes = Changes::default();
        let a = frame(b"a");
        // First sight: noted, not kept; the same frame again: nothing.
        assert_eq!(kept(changes.pick_all(vec![("T".into(), a.clone())])), None);
        assert_eq!(kept(changes.pick_all(vec![("T".into(), a.clone())])), None);
        assert_eq!(
            kept(changes.pick_all(vec![("T".into(), frame(b"b"))])),
            Some(("T".into(), b"b".to_vec()))
        );
        // A caret blinking back to an earlier picture: nothing.
        assert_eq!(
            kept(changes.pick_all(vec![("T".into(), frame(b"a"))])),
            None
        );
        assert_eq!(
            kept(changes.pick_all(vec![("T".into(), frame(b"b"))])),
            None
        );
        assert_eq!(
            kept(changes.pick_all(vec![("T".into(), frame(b"c"))])),
            Some(("T".into(), b"c".to_vec()))
        );
    }

    #[test]
    fn two_changing_tabs_take_turns() {
        let mut changes = Changes::default();
        changes.pick_all(vec![("A".into(), frame(b"a0")), ("B".into(), frame(b"b0"))]);
        let (first, more) =
            changes.pick_all(vec![("A".into(), frame(b"a1")), ("B".into(), frame(b"b1"))]);
        assert!(more);
        let first = first.unwrap().0;
        let b2 = frame(b"b2");
        let a2 = frame(b"a2");
        let (second, _) = changes.pick_all(vec![("A".into(), a2), ("B".into(), b2)]);
        assert_ne!(second.unwrap().0, first, "the other tab's turn");
    }

    #[test]
    fn an_unwatched_tab_is_forgotten() {
        let mut changes = Changes::default();
        changes.pick_all(vec![("T".into(), frame(b"a"))]);
        changes.pick_all(vec![]);
        // Watched again: its first frame is a fresh start, not a change.
        assert_eq!(
            kept(changes.pick_all(vec![("T".into(), frame(b"z"))])),
            None
        );
    }
}
