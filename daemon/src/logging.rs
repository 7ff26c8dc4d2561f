//! Logging: human-readable lines on stderr (coloured only when stderr is a terminal), filtered
//! by `RUST_LOG` (default `info`), and the same lines, never coloured, appended to
//! `<data_dir>/logs/porthole.log`. WebSocket libraries are capped at
//! `info` so no CDP payload (which may carry a cookie value) is ever logged.

use std::io::IsTerminal as _;
use std::path::Path;
use std::sync::Mutex;

use tracing_subscriber::prelude::*;
use tracing_subscriber::EnvFilter;

/// Crates that would log message payloads (cookie values in CDP traffic) below this level.
const NO_PAYLOAD_LOGGING: &[&str] = &["tungstenite=info", "tokio_tungstenite=info"];

/// Installs the global subscriber.
pub fn init(data_dir: &Path) -> std::io::Result<()> {
    let logs = data_dir.join("logs");
    std::fs::create_dir_all(&logs)?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(logs.join("porthole.log"))?;
    let filter = || {
        let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
        // tungstenite logs every WebSocket message at trace level, and CDP messages carry
        // cookie values during an import: never let it below info, whatever RUST_LOG says.
        NO_PAYLOAD_LOGGING.iter().fold(filter, |f, directive| {
            f.add_directive(directive.parse().expect("static directive"))
        })
    };
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                // Colour only for a person at a terminal; a file or pipe gets plain text.
                .with_ansi(std::io::stderr().is_terminal())
                .with_writer(std::io::stderr)
                .with_filter(filter()),
        )
        .with(plain_layer(Mutex::new(file)).with_filter(filter()))
        .init();
    Ok(())
}

/// A layer that writes no ANSI codes, span fields included.
///
/// tracing-subscriber formats a span's fields once per field-formatter *type* and every fmt
/// layer with that type reuses the text; with the default formatter on both layers, the file
/// would get the coloured field names the terminal layer made. This layer's own formatter type
/// keeps its span fields apart.
fn plain_layer<S, W>(writer: W) -> impl tracing_subscriber::Layer<S>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    W: for<'w> tracing_subscriber::fmt::MakeWriter<'w> + 'static,
{
    tracing_subscriber::fmt::layer()
        .with_ansi(false)
        .fmt_fields(PlainFields::default())
        .with_writer(writer)
}

/// The default field formatter under a type of its own (see [`plain_layer`]).
#[derive(Default)]
struct PlainFields(tracing_subscriber::fmt::format::DefaultFields);

impl<'w> tracing_subscriber::fmt::FormatFields<'w> for PlainFields {
    fn format_fields<R: tracing_subscriber::field::RecordFields>(
        &self,
        writer: tracing_subscriber::fmt::format::Writer<'w>,
        fields: R,
    ) -> std::fmt::Result {
        self.0.format_fields(writer, fields)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use tracing_subscriber::prelude::*;

    /// An in-memory log sink.
    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Buffer {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    #[test]
    fn the_file_layer_has_no_ansi_codes_even_beside_a_coloured_terminal_layer() {
        let terminal = Buffer::default();
        let file = Buffer::default();
        let subscriber = tracing_subscriber::registry()
            .with(
                tracing_subscriber::fmt::layer()
                    .with_ansi(true)
                    .with_writer(Mutex::new(terminal.clone())),
            )
            .with(super::plain_layer(Mutex::new(file.clone())));
        tracing::subscriber::with_default(subscriber, || {
            let span = tracing::info_span!("channel", channel_id = "abc", mode = "local");
            let _entered = span.enter();
            tracing::info!(event = "session_started", elapsed_ms = 5);
        });
        let (terminal, file) = (terminal.text(), file.text());
        // The terminal layer does colour (so this test can fail) …
        assert!(terminal.contains("\x1b["), "{terminal:?}");
        // … and none of it reaches the file, span fields included.
        assert!(file.contains("channel_id=\"abc\""), "{file:?}");
        assert!(file.contains("session_started"), "{file:?}");
        assert!(!file.contains('\x1b'), "{file:?}");
    }
}
