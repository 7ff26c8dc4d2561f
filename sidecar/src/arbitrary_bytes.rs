//! Arbitrary bytes at every parser the gate runs on what a client sends (the WebSocket frame
//! reader, the HTTP head parser and router, the JSON scanner, the hub's id rewriting): no
//! panic, a clear refusal, and the properties that must hold for any input. Std-only (the
//! crate builds offline with rustc 1.63), so the generator is a seeded xorshift: every run
//! checks the same cases, and a failure names its case number.

use std::io::{BufReader, Cursor};
use std::sync::Arc;
use std::thread;
use std::time::Instant;

use crate::{http, hub, json, ws};

/// Cases per property.
const CASES: u64 = 4000;

/// A seeded xorshift64* generator.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// Random bytes, biased towards the characters the parsers care about.
    fn bytes(&mut self, max_len: u64) -> Vec<u8> {
        const SPECIAL: &[u8] = b"{}[]\":,\\ \r\n/0123456789tfnu\x00\x7f\x80\xff";
        let len = self.below(max_len + 1);
        (0..len)
            .map(|_| {
                if self.below(3) == 0 {
                    SPECIAL[self.below(SPECIAL.len() as u64) as usize]
                } else {
                    self.next() as u8
                }
            })
            .collect()
    }

    /// `base` with a few bytes changed, cut or inserted.
    fn mutate(&mut self, base: &[u8]) -> Vec<u8> {
        let mut out = base.to_vec();
        for _ in 0..=self.below(4) {
            let at = self.below(out.len() as u64 + 1) as usize;
            match self.below(3) {
                0 if at < out.len() => out[at] = self.next() as u8,
                1 => out.truncate(at),
                _ => out.insert(at, self.next() as u8),
            }
        }
        out
    }

    /// A random string with quotes, escapes, control characters and non-ASCII text.
    fn text(&mut self) -> String {
        const PIECES: &[&str] = &[
            "a", "\"", "\\", "\n", "\u{1}", "é", "😀", "/", "\u{7f}", " ",
        ];
        (0..self.below(12))
            .map(|_| PIECES[self.below(PIECES.len() as u64) as usize])
            .collect()
    }
}

#[test]
fn frames_of_any_bytes_are_read_or_refused_and_masked_frames_round_trip() {
    let mut rng = Rng::new(1);
    for case in 0..CASES {
        let bytes = rng.bytes(40);
        let _ = ws::read_frame(&mut Cursor::new(&bytes));
        let mut reassembler = ws::Reassembler::default();
        let mut reader = Cursor::new(&bytes);
        for _ in 0..8 {
            if reassembler.read(&mut reader).is_err() {
                break;
            }
        }
        // A client frame with any payload and mask reads back as that payload.
        let payload = rng.bytes(300);
        let mask = (rng.next() as u32).to_be_bytes();
        let frame = ws::tests::client_frame(true, ws::OP_TEXT, &payload, mask);
        let read = ws::read_frame(&mut Cursor::new(&frame)).unwrap();
        assert_eq!(read.payload, payload, "case {case}");
        // The same frame cut or changed never panics.
        let _ = ws::read_frame(&mut Cursor::new(rng.mutate(&frame)));
    }
}

#[test]
fn a_header_claiming_a_huge_frame_allocates_nothing_until_bytes_come() {
    // 127: an 8-byte length of 200 MiB, then three bytes and the end of the stream.
    let mut bytes = vec![0x81, 0xff];
    bytes.extend_from_slice(&(200u64 << 20).to_be_bytes());
    bytes.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7]);
    let started = Instant::now();
    for _ in 0..200 {
        let error = ws::read_frame(&mut Cursor::new(&bytes)).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::UnexpectedEof);
    }
    // 200 × 200 MiB of zeroing would take many seconds; reading what is there takes none.
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
}

#[test]
fn json_of_any_bytes_is_scanned_or_refused_and_strings_round_trip() {
    let mut rng = Rng::new(2);
    let valid = br#"{"id":7,"method":"Target.attachToTarget","params":{"targetId":"T","flatten":true},"sessionId":"S"}"#;
    for case in 0..CASES {
        for bytes in [rng.bytes(60), rng.mutate(valid)] {
            if let Some(fields) = json::fields(&bytes) {
                for (_, span) in fields {
                    assert!(
                        span.end <= bytes.len() && span.start <= span.end,
                        "case {case}"
                    );
                }
            }
            let _ = json::get(&bytes, "id");
            let _ = json::get_string(&bytes, "sessionId");
            let _ = json::string(&bytes);
        }
        let text = rng.text();
        assert_eq!(
            json::string(json::quote(&text).as_bytes()),
            Some(text.clone()),
            "case {case}"
        );
        let object = format!("{{\"k\":{},\"n\":1}}", json::quote(&text));
        assert_eq!(
            json::get_string(object.as_bytes(), "k"),
            Some(text),
            "case {case}"
        );
    }
}

#[test]
fn heads_of_any_bytes_are_parsed_or_refused_and_only_the_secret_opens() {
    let mut rng = Rng::new(3);
    let secret = "s3cret-Token_1";
    let valid = format!(
        "GET /{secret}/devtools/browser HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    for case in 0..CASES {
        for bytes in [rng.bytes(120), rng.mutate(valid.as_bytes())] {
            let _ = http::head_len(&bytes);
            let Some(head) = http::parse_head(&bytes) else {
                continue;
            };
            let _ = http::accept_upgrade(&head);
            let route = http::route(&head, secret);
            if matches!(route, http::Route::Browser | http::Route::Ready) {
                assert!(
                    head.target.starts_with(&format!("/{secret}/")),
                    "case {case}: {:?} opened {route:?}",
                    head.target
                );
            }
        }
        // A wrong secret of any shape never opens.
        let guess = String::from_utf8_lossy(&rng.bytes(20)).replace(['\r', '\n', ' '], "");
        if guess != secret {
            let head = format!("GET /{guess}/devtools/browser HTTP/1.1\r\n\r\n");
            if let Some(head) = http::parse_head(head.as_bytes()) {
                assert!(
                    matches!(
                        http::route(&head, secret),
                        http::Route::Forbidden | http::Route::NotFound
                    ),
                    "case {case}: {guess:?}"
                );
            }
        }
    }
}

#[test]
fn the_hub_refuses_or_forwards_any_client_message_and_chrome_reads_whole_json() {
    let (chrome_reads, to_chrome) = crate::sys::pipe().unwrap();
    let hub = Arc::new(hub::Hub::new(to_chrome, Instant::now()));
    // Chrome's side: every message the hub writes must be a JSON object with a numeric id.
    let chrome = thread::spawn(move || {
        let mut reader = BufReader::new(chrome_reads);
        let mut message = Vec::new();
        let mut count = 0u64;
        while let Ok(hub::Nul::Message) = hub::read_message(&mut reader, &mut message) {
            let id = json::get(&message, "id").expect("every command has an id");
            assert!(
                id.iter().all(u8::is_ascii_digit),
                "{}",
                String::from_utf8_lossy(&message)
            );
            count += 1;
        }
        count
    });
    let client = hub.connect().expect("a client");
    let mut rng = Rng::new(4);
    let valid =
        br#"{"id":3,"method":"Page.navigate","params":{"url":"about:blank"},"sessionId":"S1"}"#;
    let mut forwarded = 0u64;
    for _ in 0..CASES {
        for bytes in [rng.bytes(80), rng.mutate(valid)] {
            // A message with a NUL would split Chrome's framing: it must never be forwarded.
            let has_nul = bytes.contains(&0);
            if hub.send_to_chrome(client.id, &bytes).is_ok() {
                assert!(!has_nul, "{}", String::from_utf8_lossy(&bytes));
                forwarded += 1;
            }
        }
    }
    drop(client);
    drop(hub);
    assert_eq!(chrome.join().unwrap(), forwarded);
    assert!(
        forwarded > 0,
        "some mutated messages stay valid and are forwarded"
    );
}
