//! The pack as one `.tar` archive (POSIX ustar), for the dashboard's download: a few
//! dozen lines of header writing rather than a dependency. Each file is a 512-byte header
//! (name, mode 0644, size and time in octal, checksum) and its bytes padded to 512; two
//! zero blocks end the archive. A name over ustar's 100 bytes goes first in a PAX
//! extended header (`path=`), which every current `tar` reads.

use crate::PackFile;

const BLOCK: usize = 512;
/// Largest size the 11 octal digits of a ustar header hold (8 GiB - 1).
const MAX_SIZE: u64 = 0o77_777_777_777;

/// What cannot be put in a ustar archive.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TarError {
    #[error("{name}: {bytes} bytes, over the 8 GiB a tar header can say")]
    TooLarge { name: String, bytes: usize },
    #[error("{name:?}: a file name in the archive must not be empty or hold a NUL byte")]
    BadName { name: String },
}

/// `value` in octal, zero-padded to fill `field` but its last byte (a NUL).
fn octal(field: &mut [u8], value: u64) {
    let digits = field.len() - 1;
    let text = format!("{value:0digits$o}");
    field[..digits].copy_from_slice(&text.as_bytes()[text.len() - digits..]);
    field[digits] = 0;
}

/// One ustar header: `name` (at most 100 bytes, checked by the caller), `kind` the type
/// flag (`b'0'` a file, `b'x'` a PAX header), `size` the bytes after it.
fn header(name: &[u8], kind: u8, size: u64, mtime: u64) -> [u8; BLOCK] {
    let mut h = [0u8; BLOCK];
    h[..name.len()].copy_from_slice(name);
    octal(&mut h[100..108], 0o644);
    octal(&mut h[108..116], 0);
    octal(&mut h[116..124], 0);
    octal(&mut h[124..136], size);
    octal(&mut h[136..148], mtime);
    h[156] = kind;
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    // The checksum is the sum of the header's bytes with its own field as spaces,
    // written as six octal digits, a NUL and a space.
    h[148..156].fill(b' ');
    let sum: u64 = h.iter().map(|&b| u64::from(b)).sum();
    octal(&mut h[148..155], sum);
    h[155] = b' ';
    h
}

/// `bytes`, then zeros up to the next block.
fn push_padded(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(bytes);
    out.resize(out.len().next_multiple_of(BLOCK), 0);
}

/// A PAX record `"LEN path=NAME\n"`, LEN counting the whole record, itself included.
fn pax_path(name: &str) -> Vec<u8> {
    let body = format!(" path={name}\n");
    let mut len = body.len() + 1;
    while format!("{len}").len() + body.len() != len {
        len += 1;
    }
    format!("{len}{body}").into_bytes()
}

/// The files as a ustar archive, in their order, each dated `mtime_unix_s`.
pub fn archive(files: &[PackFile], mtime_unix_s: u64) -> Result<Vec<u8>, TarError> {
    let total: usize = files.iter().map(|f| f.bytes.len() + 2 * BLOCK).sum();
    let mut out = Vec::with_capacity(total + 2 * BLOCK);
    for f in files {
        if f.name.is_empty() || f.name.contains('\0') {
            return Err(TarError::BadName {
                name: f.name.clone(),
            });
        }
        let size = u64::try_from(f.bytes.len())
            .ok()
            .filter(|&s| s <= MAX_SIZE)
            .ok_or_else(|| TarError::TooLarge {
                name: f.name.clone(),
                bytes: f.bytes.len(),
            })?;
        let name = f.name.as_bytes();
        let short = if name.len() <= 100 {
            name
        } else {
            let record = pax_path(&f.name);
            let len = u64::try_from(record.len()).unwrap_or(MAX_SIZE);
            out.extend_from_slice(&header(b"././@PaxHeader", b'x', len, mtime_unix_s));
            push_padded(&mut out, &record);
            // The plain header's name is only for a reader without PAX: cut at a
            // character's boundary.
            let mut end = 100;
            while !f.name.is_char_boundary(end) {
                end -= 1;
            }
            &name[..end]
        };
        out.extend_from_slice(&header(short, b'0', size, mtime_unix_s));
        push_padded(&mut out, &f.bytes);
    }
    out.resize(out.len() + 2 * BLOCK, 0);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader of what [`archive`] writes (files and PAX `path=`), checking each
    /// header's checksum: the archive read back independently of the writer's helpers.
    fn unpack(mut tar: &[u8]) -> Vec<(String, Vec<u8>, u64)> {
        let field = |h: &[u8], from: usize, to: usize| {
            let text = std::str::from_utf8(&h[from..to]).unwrap();
            u64::from_str_radix(text.trim_matches(|c| c == '\0' || c == ' '), 8).unwrap()
        };
        let mut files = Vec::new();
        let mut long_name = None;
        loop {
            let h = &tar[..BLOCK];
            if h.iter().all(|&b| b == 0) {
                assert!(
                    tar[BLOCK..2 * BLOCK].iter().all(|&b| b == 0),
                    "two zero blocks"
                );
                assert_eq!(tar.len(), 2 * BLOCK, "nothing after the end");
                return files;
            }
            let mut blank = h.to_vec();
            blank[148..156].fill(b' ');
            let sum: u64 = blank.iter().map(|&b| u64::from(b)).sum();
            assert_eq!(field(h, 148, 156), sum, "checksum");
            assert_eq!(&h[257..265], b"ustar\x0000");
            let size = usize::try_from(field(h, 124, 136)).unwrap();
            let data = tar[BLOCK..BLOCK + size].to_vec();
            let name_end = h[..100].iter().position(|&b| b == 0).unwrap_or(100);
            let name = String::from_utf8(h[..name_end].to_vec()).unwrap();
            match h[156] {
                b'x' => {
                    let text = String::from_utf8(data).unwrap();
                    let (len, rest) = text.split_once(' ').unwrap();
                    assert_eq!(len.parse::<usize>().unwrap(), text.len());
                    long_name = Some(rest.strip_prefix("path=").unwrap().trim_end().to_owned());
                }
                b'0' => files.push((long_name.take().unwrap_or(name), data, field(h, 136, 148))),
                other => panic!("type {other}"),
            }
            tar = &tar[BLOCK + size.next_multiple_of(BLOCK)..];
        }
    }

    #[test]
    fn the_archive_unpacks_to_the_same_names_and_bytes() {
        let long = format!("{}.svg", "a-long-name-".repeat(12));
        let files = vec![
            PackFile::new("manifest.json", "", "{}\n"),
            PackFile::new("empty.txt", "", ""),
            PackFile::new("exactly-512.bin", "", vec![7u8; 512]),
            PackFile::new("over-512.jsonl", "", b"x".repeat(1500)),
            PackFile::new("c".repeat(100), "", "100 bytes of name"),
            PackFile::new(long.clone(), "", "long"),
            PackFile::new(
                format!("{}é", "b".repeat(99)),
                "",
                "a cut inside a character",
            ),
        ];
        let tar = archive(&files, 1_765_000_000).unwrap();
        assert_eq!(tar.len() % BLOCK, 0);
        let got = unpack(&tar);
        assert_eq!(got.len(), files.len());
        for (f, (name, bytes, mtime)) in files.iter().zip(&got) {
            assert_eq!(&f.name, name);
            assert_eq!(&f.bytes, bytes, "{name}");
            assert_eq!(*mtime, 1_765_000_000);
        }
        assert!(archive(&[], 0).unwrap().iter().all(|&b| b == 0));
    }

    #[test]
    fn pax_records_count_their_own_length() {
        for n in [1, 80, 95, 96, 97, 990, 995, 996, 997] {
            let r = pax_path(&"n".repeat(n));
            let text = String::from_utf8(r).unwrap();
            let (len, _) = text.split_once(' ').unwrap();
            assert_eq!(len.parse::<usize>().unwrap(), text.len(), "{n}");
        }
    }

    #[test]
    fn a_name_that_cannot_be_written_is_an_error() {
        for name in ["", "a\0b"] {
            let e = archive(&[PackFile::new(name, "", "x")], 0).unwrap_err();
            assert!(matches!(e, TarError::BadName { .. }));
        }
    }
}
