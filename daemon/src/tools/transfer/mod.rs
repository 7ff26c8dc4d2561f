//! Files in and out of the page: `upload_file`, `list_downloads`, `get_download`
//! ([`file_tools`]).

pub(crate) mod file_tools;
