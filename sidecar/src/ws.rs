//! The server side of a WebSocket (RFC 6455) as the gate speaks it to the daemon: reading a
//! client's frames (masked, possibly fragmented) into whole messages, and writing the
//! server's own frames (unmasked, one frame per message). No extensions, no subprotocols.
//!
//! The handshake's head is `http`'s business; the socket loop is `proxy`'s.

use std::io::{self, Read, Write};

/// Largest message accepted either way (as the daemon's own limit).
pub const MAX_MESSAGE: u64 = 256 * 1024 * 1024;

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
    pub payload: Vec<u8>,
}

/// What a client sent, once whole.
#[derive(Debug, PartialEq, Eq)]
pub enum Incoming {
    /// A text or binary message, reassembled from its fragments.
    Message(Vec<u8>),
    Ping(Vec<u8>),
    /// A close frame (its payload: status code and reason).
    Close(Vec<u8>),
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
    if len > MAX_MESSAGE {
        return Err(invalid("a frame over 256 MiB"));
    }
    let mut mask = [0u8; 4];
    if masked {
        reader.read_exact(&mut mask)?;
    }
    // Grows with what actually arrives: a header claiming 256 MiB costs nothing until the
    // bytes come.
    let mut payload = Vec::new();
    reader.by_ref().take(len).read_to_end(&mut payload)?;
    if payload.len() as u64 != len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the stream ended inside a frame",
        ));
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
    })
}

/// Reads a client's frames into whole messages; a message's fragments may have control
/// frames (pings, a close) between them, so the partial message lives here between calls.
#[derive(Default)]
pub struct Reassembler {
    partial: Option<Vec<u8>>,
}

impl Reassembler {
    /// Reads frames until something whole arrives: a message (its fragments joined), a ping
    /// or a close. Pongs and unknown opcodes are skipped. A cut stream is an error.
    pub fn read(&mut self, reader: &mut impl Read) -> io::Result<Incoming> {
        loop {
            let frame = read_frame(reader)?;
            match frame.opcode {
                OP_TEXT | OP_BINARY if self.partial.is_none() => {
                    if frame.fin {
                        return Ok(Incoming::Message(frame.payload));
                    }
                    self.partial = Some(frame.payload);
                }
                OP_CONTINUATION if self.partial.is_some() => {
                    let whole = self.partial.as_mut().expect("checked above");
                    whole.extend_from_slice(&frame.payload);
                    if whole.len() as u64 > MAX_MESSAGE {
                        return Err(invalid("a message over 256 MiB"));
                    }
                    if frame.fin {
                        return Ok(Incoming::Message(self.partial.take().unwrap_or_default()));
                    }
                }
                OP_TEXT | OP_BINARY | OP_CONTINUATION => {
                    return Err(invalid("a fragment out of order"));
                }
                OP_PING => return Ok(Incoming::Ping(frame.payload)),
                OP_CLOSE => return Ok(Incoming::Close(frame.payload)),
                _ => {}
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
