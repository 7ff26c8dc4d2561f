//! The server side of a WebSocket (RFC 6455) as the gate speaks it to the daemon: reading a
//! client's frames (masked, possibly fragmented) into whole messages, and writing the
//! server's own frames (unmasked, one frame per message). No extensions, no subprotocols.
//! A message over [`MAX_MESSAGE`] is skipped as it arrives (its head kept, the rest read and
//! thrown away), so it costs its sender that one message, never the connection.
//!
//! The handshake's head is `http`'s business; the socket loop is `proxy`'s.

use std::io::{self, Read, Write};

/// Largest message accepted either way (as the daemon's own limit).
pub const MAX_MESSAGE: u64 = 256 * 1024 * 1024;
/// Bytes kept of a message over [`MAX_MESSAGE`]: enough to read its id.
const HEAD_BYTES: usize = 64;

pub const OP_CONTINUATION: u8 = 0x0;
pub const OP_TEXT: u8 = 0x1;
pub const OP_BINARY: u8 = 0x2;
pub const OP_CLOSE: u8 = 0x8;
pub const OP_PING: u8 = 0x9;
pub const OP_PONG: u8 = 0xA;

/// One frame off the wire, unmasked.
#[derive(Debug, PartialEq, Eq)]
pub struct Frame {
    pub fin: bool,
    pub opcode: u8,
    /// The payload; only its first [`HEAD_BYTES`] when the frame was over [`MAX_MESSAGE`].
    pub payload: Vec<u8>,
    /// Bytes of an over-limit payload read and thrown away (0 for a frame kept whole).
    pub skipped: u64,
}

/// What a client sent, once whole.
#[derive(Debug, PartialEq, Eq)]
pub enum Incoming {
    /// A text or binary message, reassembled from its fragments.
    Message(Vec<u8>),
    Ping(Vec<u8>),
    /// A close frame (its payload: status code and reason).
    Close(Vec<u8>),
    /// A message over [`MAX_MESSAGE`], skipped: its first bytes and its whole size.
    TooLarge {
        head: Vec<u8>,
        bytes: u64,
    },
}

/// Reads one frame. A mask is honoured when present (a client's frames always carry one).
pub fn read_frame(reader: &mut impl Read) -> io::Result<Frame> {
    let mut head = [0u8; 2];
    reader.read_exact(&mut head)?;
    let fin = head[0] & 0x80 != 0;
    let opcode = head[0] & 0x0f;
    let masked = head[1] & 0x80 != 0;
    let len = match head[1] & 0x7f {
        126 => {
            let mut b = [0u8; 2];
            reader.read_exact(&mut b)?;
            u64::from(u16::from_be_bytes(b))
        }
        127 => {
            let mut b = [0u8; 8];
            reader.read_exact(&mut b)?;
            u64::from_be_bytes(b)
        }
        n => u64::from(n),
    };
    let mut mask = [0u8; 4];
    if masked {
        reader.read_exact(&mut mask)?;
    }
    let cut = io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "the stream ended inside a frame",
    );
    // Over the limit: the head is kept, the rest read and thrown away as it comes.
    let kept = if len > MAX_MESSAGE {
        HEAD_BYTES as u64
    } else {
        len
    };
    // Grows with what actually arrives: a header claiming 256 MiB costs nothing until the
    // bytes come.
    let mut payload = Vec::new();
    reader.by_ref().take(kept).read_to_end(&mut payload)?;
    if payload.len() as u64 != kept {
        return Err(cut);
    }
    let skipped = len - kept;
    if skipped > 0 && io::copy(&mut reader.by_ref().take(skipped), &mut io::sink())? != skipped {
        return Err(cut);
    }
    if masked {
        for (i, b) in payload.iter_mut().enumerate() {
            *b ^= mask[i % 4];
        }
    }
    Ok(Frame {
        fin,
        opcode,
        payload,
        skipped,
    })
}

/// Reads a client's frames into whole messages; a message's fragments may have control
/// frames (pings, a close) between them, so the partial message lives here between calls.
#[derive(Default)]
pub struct Reassembler {
    partial: Option<Vec<u8>>,
    /// A message over the limit whose fragments are being thrown away: its head and size.
    skipping: Option<(Vec<u8>, u64)>,
}

impl Reassembler {
    /// Reads frames until something whole arrives: a message (its fragments joined), a ping
    /// or a close; a message over [`MAX_MESSAGE`] comes out as [`Incoming::TooLarge`] once
    /// its last fragment is read. Pongs and unknown opcodes are skipped. A cut stream is an
    /// error.
    pub fn read(&mut self, reader: &mut impl Read) -> io::Result<Incoming> {
        loop {
            let frame = read_frame(reader)?;
            let data = matches!(frame.opcode, OP_TEXT | OP_BINARY | OP_CONTINUATION);
            if frame.skipped > 0 && !data {
                return Err(invalid("a control frame over 256 MiB"));
            }
            let started = self.partial.is_some() || self.skipping.is_some();
            match frame.opcode {
                OP_TEXT | OP_BINARY if !started => {
                    if frame.skipped > 0 {
                        let bytes = frame.payload.len() as u64 + frame.skipped;
                        self.skipping = Some((frame.payload, bytes));
                    } else {
                        self.partial = Some(frame.payload);
                    }
                }
                OP_CONTINUATION if started => {
                    if let Some(whole) = self.partial.as_mut() {
                        whole.extend_from_slice(&frame.payload);
                        let bytes = whole.len() as u64 + frame.skipped;
                        if bytes > MAX_MESSAGE {
                            let mut head = self.partial.take().unwrap_or_default();
                            head.truncate(HEAD_BYTES);
                            head.shrink_to_fit();
                            self.skipping = Some((head, bytes));
                        }
                    } else if let Some((_, bytes)) = self.skipping.as_mut() {
                        *bytes += frame.payload.len() as u64 + frame.skipped;
                    }
                }
                OP_TEXT | OP_BINARY | OP_CONTINUATION => {
                    return Err(invalid("a fragment out of order"));
                }
                OP_PING => return Ok(Incoming::Ping(frame.payload)),
                OP_CLOSE => return Ok(Incoming::Close(frame.payload)),
                _ => {}
            }
            if data && frame.fin {
                if let Some((head, bytes)) = self.skipping.take() {
                    return Ok(Incoming::TooLarge { head, bytes });
                }
                if let Some(whole) = self.partial.take() {
                    return Ok(Incoming::Message(whole));
                }
            }
        }
    }
}

/// Writes one unmasked server frame with FIN set.
pub fn write_frame(writer: &mut impl Write, opcode: u8, payload: &[u8]) -> io::Result<()> {
    let mut head = Vec::with_capacity(10);
    head.push(0x80 | opcode);
    if payload.len() < 126 {
        head.push(payload.len() as u8);
    } else if payload.len() <= 0xffff {
        head.push(126);
        head.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    } else {
        head.push(127);
        head.extend_from_slice(&(payload.len() as u64).to_be_bytes());
    }
    writer.write_all(&head)?;
    writer.write_all(payload)
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("the client sent {what}"),
    )
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A client-to-server frame: masked, as RFC 6455 requires.
    pub fn client_frame(fin: bool, opcode: u8, payload: &[u8], mask: [u8; 4]) -> Vec<u8> {
        let mut frame = vec![if fin { 0x80 } else { 0 } | opcode];
        if payload.len() < 126 {
            frame.push(0x80 | payload.len() as u8);
        } else if payload.len() <= 0xffff {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(payload.len() as u16).to_be_bytes());
        } else {
            frame.push(0x80 | 127);
            frame.extend_from_slice(&(payload.len() as u64).to_be_bytes());
        }
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        frame
    }

    fn read_incoming(reader: &mut &[u8]) -> io::Result<Incoming> {
        Reassembler::default().read(reader)
    }

    #[test]
    fn reads_the_rfc_masked_hello() {
        // RFC 6455 §5.7: a single-frame masked text message "Hello".
        let wire = [
            0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58,
        ];
        assert_eq!(
            read_incoming(&mut &wire[..]).unwrap(),
            Incoming::Message(b"Hello".to_vec())
        );
    }

    #[test]
    fn joins_fragments_around_a_ping_and_reads_every_length() {
        let mut wire = client_frame(false, OP_TEXT, b"{\"a\":", [1, 2, 3, 4]);
        wire.extend(client_frame(true, OP_PING, b"p", [9, 9, 9, 9]));
        wire.extend(client_frame(true, OP_CONTINUATION, b"2}", [5, 6, 7, 8]));
        let mut reader = &wire[..];
        let mut messages = Reassembler::default();
        // A ping between fragments comes out at once; the message is whole afterwards.
        assert_eq!(
            messages.read(&mut reader).unwrap(),
            Incoming::Ping(b"p".to_vec())
        );
        assert_eq!(
            messages.read(&mut reader).unwrap(),
            Incoming::Message(b"{\"a\":2}".to_vec())
        );
        for len in [0usize, 125, 126, 65_535, 65_536, 200_000] {
            let payload: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let wire = client_frame(true, OP_BINARY, &payload, [1, 2, 3, 4]);
            assert_eq!(
                read_incoming(&mut &wire[..]).unwrap(),
                Incoming::Message(payload),
                "length {len}"
            );
        }
        let mut whole = client_frame(false, OP_TEXT, b"ab", [0; 4]);
        whole.extend(client_frame(false, OP_CONTINUATION, b"cd", [0; 4]));
        whole.extend(client_frame(true, OP_CONTINUATION, b"ef", [0; 4]));
        assert_eq!(
            read_incoming(&mut &whole[..]).unwrap(),
            Incoming::Message(b"abcdef".to_vec())
        );
    }

    #[test]
    fn refuses_bad_sequences_and_ends_on_a_cut_stream() {
        let stray = client_frame(true, OP_CONTINUATION, b"x", [0; 4]);
        assert!(read_incoming(&mut &stray[..]).is_err());
        let mut twice = client_frame(false, OP_TEXT, b"x", [0; 4]);
        twice.extend(client_frame(true, OP_TEXT, b"y", [0; 4]));
        assert!(read_incoming(&mut &twice[..]).is_err());
        let cut = &client_frame(true, OP_TEXT, b"hello", [0; 4])[..5];
        assert_eq!(
            read_incoming(&mut &cut[..]).unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
        let close = client_frame(true, OP_CLOSE, &[3, 232], [1, 1, 1, 1]);
        assert_eq!(
            read_incoming(&mut &close[..]).unwrap(),
            Incoming::Close(vec![3, 232])
        );
    }

    /// The head of a masked client frame of `len` bytes (the payload to follow).
    fn client_head(fin: bool, opcode: u8, len: u64, mask: [u8; 4]) -> Vec<u8> {
        let mut head = vec![if fin { 0x80 } else { 0 } | opcode, 0x80 | 127];
        head.extend_from_slice(&len.to_be_bytes());
        head.extend_from_slice(&mask);
        head
    }

    #[test]
    fn a_message_over_the_limit_is_skipped_and_the_next_one_read() {
        // Its header claims 300 MB; the bytes are made as they are read (a zero mask keeps
        // them as sent), never held.
        let big = 300 * 1024 * 1024u64;
        let text = br#"{"id":9,"method":"Runtime.evaluate","params":{"expression":""#;
        let mut wire: Box<dyn Read> = Box::new(
            io::Cursor::new(client_head(true, OP_TEXT, big, [0; 4]))
                .chain(io::Cursor::new(text.to_vec()))
                .chain(io::repeat(b'x').take(big - text.len() as u64))
                .chain(io::Cursor::new(client_frame(
                    true,
                    OP_TEXT,
                    b"next",
                    [1, 2, 3, 4],
                ))),
        );
        let mut messages = Reassembler::default();
        match messages.read(&mut wire).unwrap() {
            Incoming::TooLarge { head, bytes } => {
                assert_eq!(bytes, big);
                assert!(head.starts_with(br#"{"id":9,"#) && head.len() <= HEAD_BYTES);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            messages.read(&mut wire).unwrap(),
            Incoming::Message(b"next".to_vec())
        );
        // Fragments that add up to over the limit are skipped the same way.
        let rest = MAX_MESSAGE + 1;
        let mut wire: Box<dyn Read> = Box::new(
            io::Cursor::new(client_frame(false, OP_TEXT, b"abcdefghij", [0; 4]))
                .chain(io::Cursor::new(client_frame(true, OP_PING, b"p", [0; 4])))
                .chain(io::Cursor::new(client_head(
                    true,
                    OP_CONTINUATION,
                    rest,
                    [0; 4],
                )))
                .chain(io::repeat(b'b').take(rest))
                .chain(io::Cursor::new(client_frame(
                    true, OP_TEXT, b"after", [0; 4],
                ))),
        );
        assert_eq!(
            messages.read(&mut wire).unwrap(),
            Incoming::Ping(b"p".to_vec())
        );
        match messages.read(&mut wire).unwrap() {
            Incoming::TooLarge { head, bytes } => {
                assert_eq!(bytes, 10 + rest);
                assert!(head.starts_with(b"abcdefghij"));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            messages.read(&mut wire).unwrap(),
            Incoming::Message(b"after".to_vec())
        );
    }

    #[test]
    fn server_frames_are_unmasked_and_read_back() {
        for len in [0usize, 125, 126, 65_536] {
            let payload = vec![b'z'; len];
            let mut wire = Vec::new();
            write_frame(&mut wire, OP_TEXT, &payload).unwrap();
            assert_eq!(wire[1] & 0x80, 0, "no mask bit");
            let frame = read_frame(&mut &wire[..]).unwrap();
            assert_eq!((frame.fin, frame.opcode), (true, OP_TEXT));
            assert_eq!(frame.payload, payload);
        }
    }
}
