//! Fuzzes the board-to-host decoder and the host command decoder: any bytes, split into
//! chunks at positions the input chooses, must decode without panicking, keep the frame
//! buffer bounded, and give the same results whatever the chunking.
#![no_main]

use dgt_protocol::{CommandDecoder, Decoder, MAX_FRAME_LEN};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte picks a chunk size, the rest is the stream.
    let Some((&size, bytes)) = data.split_first() else {
        return;
    };
    let size = usize::from(size).max(1);
    let mut whole = Decoder::new();
    let mut expected = whole.push(bytes);
    expected.extend(whole.finish());
    let mut chunked = Decoder::new();
    let mut got = Vec::new();
    for chunk in bytes.chunks(size) {
        got.extend(chunked.push(chunk));
        assert!(chunked.buffered_len() <= MAX_FRAME_LEN);
    }
    got.extend(chunked.finish());
    assert_eq!(got, expected, "chunking changed the decoding");
    // Whatever decodes re-encodes and decodes to the same message.
    for msg in expected.into_iter().flatten() {
        let mut again = Decoder::new();
        let out = again.push(&msg.encode());
        assert_eq!(out, vec![Ok(msg)]);
    }
    let mut commands = CommandDecoder::new();
    for cmd in commands.push(bytes).into_iter().flatten() {
        let mut again = CommandDecoder::new();
        assert_eq!(again.push(&cmd.encode()), vec![Ok(cmd)]);
    }
    let _ = commands.finish();
});
