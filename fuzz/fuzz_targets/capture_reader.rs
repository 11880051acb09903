//! Fuzzes the `.dgtcap` reader: any file must read without panicking, and the records it
//! accepts must write and read back the same.
#![no_main]

use dgt_protocol::capture::{CaptureReader, CaptureWriter};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(reader) = CaptureReader::new(data) else {
        return;
    };
    let header = reader.header().clone();
    let records: Vec<_> = reader.take_while(|r| r.is_ok()).flatten().collect();
    let mut w = match CaptureWriter::new(Vec::new(), &header) {
        Ok(w) => w,
        Err(_) => return,
    };
    for r in &records {
        if w.write(r).is_err() {
            return;
        }
    }
    let text = w.into_inner();
    let again = CaptureReader::new(&text[..]).expect("written header reads back");
    assert_eq!(again.header(), &header);
    let back: Vec<_> = again
        .map(|r| r.expect("written records read back"))
        .collect();
    assert_eq!(back, records);
});
