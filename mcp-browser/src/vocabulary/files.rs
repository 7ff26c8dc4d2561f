//! Arguments of the file tools: `upload_file` (set a file input's files), `list_downloads`
//! (which takes none) and `get_download`, and the size cap of an upload.
//!
//! An upload names paths on the machine where the MCP server runs. `porthole-mcp` reads them
//! there and sends them to the daemon inline ([`InlineFile`], base64) in the hidden `files`
//! argument, because the daemon must not read an agent's paths on its own machine.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::{check_not_blank, Problem, Validate};

/// The most bytes one `upload_file` call may set, all files together.
pub const MAX_UPLOAD_BYTES: u64 = 10 * 1024 * 1024;
/// The most files one `upload_file` call may set.
pub const MAX_UPLOAD_FILES: usize = 32;

/// A file sent with the call instead of named by path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InlineFile {
    /// The file's name (no folders), as the page will see it.
    pub name: String,
    /// The bytes, base64 (standard alphabet, padded).
    pub data: String,
}

/// `upload_file`: set the files of an `<input type=file>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UploadFileArgs {
    /// The file input's ref; omit it to answer a file chooser the page just opened.
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub element_ref: Option<String>,
    /// Files to set, as paths where this MCP server runs.
    pub paths: Vec<String>,
    /// The same files inline (porthole-mcp fills this in; not for models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub files: Option<Vec<InlineFile>>,
}

impl Validate for UploadFileArgs {
    const HIDDEN: &'static [&'static str] = &["files"];

    fn validate(&mut self) -> Result<(), Problem> {
        check_not_blank("ref", self.element_ref.as_deref())?;
        if self.paths.is_empty() {
            return Err("argument `paths` must name at least one file".into());
        }
        if self.paths.len() > MAX_UPLOAD_FILES {
            return Err(format!(
                "argument `paths` names {} files; at most {MAX_UPLOAD_FILES} per call",
                self.paths.len()
            )
            .into());
        }
        for p in &self.paths {
            check_not_blank("paths[]", Some(p))?;
        }
        if let Some(files) = &self.files {
            if files.len() != self.paths.len() {
                return Err("argument `files` must hold one entry per path".into());
            }
            for f in files {
                let bare = !f.name.is_empty()
                    && f.name != "."
                    && f.name != ".."
                    && !f.name.contains(['/', '\\', '\0']);
                if !bare {
                    return Err(
                        format!("argument `files`: {:?} is not a bare file name", f.name).into(),
                    );
                }
            }
        }
        Ok(())
    }
}

/// `get_download`: one download's bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GetDownloadArgs {
    /// The download's id from list_downloads.
    pub id: String,
}

impl Validate for GetDownloadArgs {
    fn validate(&mut self) -> Result<(), Problem> {
        check_not_blank("id", Some(&self.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocabulary::args::parse_args;
    use serde_json::json;

    #[test]
    fn upload_arguments() {
        let p = |v| parse_args::<UploadFileArgs>("upload_file", &v);
        assert!(p(json!({"ref": "e1", "paths": ["/tmp/a"]})).is_ok());
        assert!(p(json!({"paths": ["/tmp/a"]})).is_ok());
        assert!(p(json!({"ref": " ", "paths": ["/tmp/a"]})).is_err());
        assert!(p(json!({"ref": "e1", "paths": []}))
            .unwrap_err()
            .problem
            .contains("at least one"));
        let inline = json!({"ref": "e1", "paths": ["a"], "files": [{"name": "a", "data": ""}]});
        assert!(p(inline).is_ok());
        let bad = json!({"ref": "e1", "paths": ["a"], "files": [{"name": "../a", "data": ""}]});
        assert!(p(bad).unwrap_err().problem.contains("bare file name"));
        let schema = crate::ToolName::UploadFile.input_schema();
        assert!(!schema["properties"]
            .as_object()
            .unwrap()
            .contains_key("files"));
    }
}
