//! The files each agent handed its pages with `upload_file`, kept by name for the session's
//! life: the channel's upload area as the CDP door sees it (DESIGN.md §21: a door client's
//! `DOM.setFileInputFiles` takes only these, by name, and never reads a path). Kept in memory,
//! as `upload_file` keeps them (nothing on disk), and bounded: at most [`MAX_UPLOAD_BYTES`] per
//! agent, the oldest dropped first; a newer file of the same name replaces the older.
//!
//! Short lock, never held across an await.

use std::collections::HashMap;
use std::sync::Mutex;

use porthole_mcp::vocabulary::{InlineFile, MAX_UPLOAD_BYTES};

/// One agent's files, oldest first, each with its size in bytes (decoded).
type Files = Vec<(InlineFile, u64)>;

/// Agent id → the files it uploaded.
#[derive(Debug, Default)]
pub struct AgentUploads {
    files: Mutex<HashMap<String, Files>>,
}

impl AgentUploads {
    /// Keeps `files` (as `upload_file` received them) as `agent_id`'s.
    pub fn keep(&self, agent_id: &str, files: &[InlineFile]) {
        let mut all = self.files.lock().expect("agent uploads lock");
        let kept = all.entry(agent_id.to_string()).or_default();
        for file in files {
            kept.retain(|(f, _)| f.name != file.name);
            // base64: four characters for three bytes.
            let size = (file.data.len() as u64 / 4) * 3;
            kept.push((file.clone(), size));
        }
        let mut total: u64 = kept.iter().map(|(_, size)| size).sum();
        while total > MAX_UPLOAD_BYTES && kept.len() > 1 {
            total -= kept.remove(0).1;
        }
    }

    /// `agent_id`'s uploaded file `name`, if it has one.
    pub fn named(&self, agent_id: &str, name: &str) -> Option<InlineFile> {
        let all = self.files.lock().expect("agent uploads lock");
        all.get(agent_id)?
            .iter()
            .rev()
            .find(|(f, _)| f.name == name)
            .map(|(f, _)| f.clone())
    }

    /// The names of `agent_id`'s uploaded files, oldest first.
    pub fn names(&self, agent_id: &str) -> Vec<String> {
        let all = self.files.lock().expect("agent uploads lock");
        all.get(agent_id)
            .map(|files| files.iter().map(|(f, _)| f.name.clone()).collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, data: &str) -> InlineFile {
        InlineFile {
            name: name.to_string(),
            data: data.to_string(),
        }
    }

    #[test]
    fn an_agent_reads_back_only_its_own_files_by_name_the_newest_first() {
        let uploads = AgentUploads::default();
        uploads.keep("a", &[file("notes.txt", "b2xk"), file("x.bin", "AAAA")]);
        uploads.keep("a", &[file("notes.txt", "bmV3")]);
        assert_eq!(uploads.named("a", "notes.txt").unwrap().data, "bmV3");
        assert!(uploads.named("b", "notes.txt").is_none());
        assert!(uploads.named("a", "other.txt").is_none());
        assert_eq!(uploads.names("a"), vec!["x.bin", "notes.txt"]);
    }

    #[test]
    fn the_oldest_files_go_past_the_cap() {
        let uploads = AgentUploads::default();
        let big = "A".repeat((MAX_UPLOAD_BYTES / 3 * 4) as usize);
        uploads.keep("a", &[file("old.bin", &big)]);
        uploads.keep("a", &[file("new.bin", &big)]);
        assert_eq!(uploads.names("a"), vec!["new.bin"]);
    }
}
