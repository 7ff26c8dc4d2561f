//! The MCP client of these tests: the harness's own [`porthole_tests::mcp`], under the name the
//! test files import it by.

pub use porthole_tests::mcp::*;
