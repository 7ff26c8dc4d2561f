//! Dispatching a pane's queued input in order, and telling the pane what input answered
//! (copy and cut become `clipboard`).

use std::sync::Arc;

use tokio::sync::mpsc;

use super::commands::error_for_pane;
use super::Outgoing;
use crate::browser::{InputPipeline, InputQueue, Next, PaneMessage, PaneView};

/// Dispatches this pane's queued input in order (wheel and moves pipelined, see
/// `browser::input::pipeline`); copy/cut answers go back as `clipboard`.
/// Input that acts (not moves, releases or copies) holds agents out of the tab for a while;
/// the tab's state is read before the person's first such input (see `oversight::guard`).
pub(super) async fn dispatch_input(
    view: Arc<PaneView>,
    queue: Arc<InputQueue>,
    out: mpsc::Sender<Outgoing>,
    oversight: Arc<crate::oversight::ChannelOversight>,
    timeline: Arc<crate::timeline::Timeline>,
) {
    use crate::browser::InputEvent;
    let mut pipeline = InputPipeline::new();
    loop {
        let queued = match pipeline.next(&queue).await {
            Next::Event(queued) => queued,
            Next::Answer(answer) => {
                tell_input_answers(&out, vec![answer]).await;
                continue;
            }
        };
        let event = &queued.event;
        let acts = !matches!(
            event,
            InputEvent::Mousemove { .. }
                | InputEvent::Mouseup { .. }
                | InputEvent::Keyup { .. }
                | InputEvent::Copy {}
        );
        let tab = view.watched_tab();
        let session = view.session();
        if let (true, Ok((target_id, tab_session))) = (acts, &tab) {
            if oversight.activity.touched(target_id) {
                // A tab too busy to answer still gets its report, of what it holds afterwards.
                let before = crate::oversight::page_state::read(session, tab_session).await;
                let before = before.unwrap_or_else(crate::oversight::page_state::PageState::unread);
                oversight.activity.set_before(target_id, before);
            }
        }
        if let Ok((target_id, _)) = &tab {
            timeline.human_input(session, target_id, event);
        }
        let answers = match &tab {
            Ok((_, tab_session)) => pipeline.send(session, tab_session, queued).await,
            Err(error) => vec![Err(error.clone())],
        };
        tell_input_answers(&out, answers).await;
    }
}

/// Copy/cut answers go to the pane as `clipboard`, failures as `error`.
async fn tell_input_answers(
    out: &mpsc::Sender<Outgoing>,
    answers: Vec<crate::browser::Dispatched>,
) {
    for answer in answers {
        let message = match answer {
            Ok(Some(text)) => Some(PaneMessage::Clipboard { text }),
            Ok(None) => None,
            Err(error) => error_for_pane(&error),
        };
        if let Some(message) = message {
            let _ = out.send(Outgoing::Json(message)).await;
        }
    }
}
