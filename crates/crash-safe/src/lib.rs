//! Files that survive a crash: whole-file rewrites are atomic (temp file, fsync, rename,
//! fsync of the folder), so a reader sees the old file or the new one, never half of one.
//!
//! Appended files (the journals, `events.jsonl`) frame each line ([`frame`]: a `crc32`
//! field closing the JSON object, so a torn or merged line is detected by [`unframe`]),
//! keep lines that cannot be written now in a bounded [`Backlog`] that is written, in
//! order, once the disk takes them again (a full disk, EIO), and notice when their file
//! was deleted or replaced under them ([`follow_path`]).

use std::collections::VecDeque;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;

/// Writes `bytes` to `path` atomically, creating its folder if needed, and waits until
/// the disk has it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = write_temp(path, bytes, true)?;
    fs::rename(&tmp, path)?;
    sync_dir(folder_of(path))
}

/// The folder `path` is in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Writes `bytes` to the temporary file beside `path` (creating the folder), synced when
/// `sync`; returns the temporary file's path.
fn write_temp(path: &Path, bytes: &[u8], sync: bool) -> io::Result<std::path::PathBuf> {
    fs::create_dir_all(folder_of(path))?;
    let tmp = sibling(path, "tmp")?;
    let mut f = File::create(&tmp)?;
    f.write_all(bytes)?;
    if sync {
        f.sync_data()?;
    }
    Ok(tmp)
}

/// Files rebuilt from the journals at every start (the PGN and LiveChess folders): each
/// replaced atomically, so a reader sees the old text or the new, never a mix, but not
/// synced one by one. A power cut can only take the last versions, and the daemon's
/// first update after the restart writes every file again from the journals, which are
/// durable. [`RebuiltFiles::sync`] makes everything written so far durable (at shutdown,
/// so that a folder left behind is complete).
///
/// Why not sync each: at 1,000 boards a sink's update replaces a thousand files, and a file
/// sync and a folder sync each took it about 2 ms a file on the test machine
/// (docs/performance.md), so the folders lagged tens of seconds behind the hall.
///
/// # Spare files
/// A small file is not replaced by a new file (a new inode, and the old one freed) but by
/// its spare, `.NAME.spare` beside it: the new text is written into the spare, and the two
/// names are swapped in one step (`renameat2(RENAME_EXCHANGE)`), so the path goes from the
/// whole old text to the whole new one as with a rename; the spare then holds the old
/// inode, which the file's next replacement writes into. At 1,000 boards creating and
/// freeing an inode per file was most of an update's cost (docs/performance.md). A
/// reader that opened the file before a swap keeps reading the old text while the spare
/// waits: a spare is written into only [`SPARE_REST`] after its swap (sooner, the file is
/// replaced the ordinary way) and only for files up to [`SPARE_MAX_BYTES`], which a
/// reader (or a web server's `sendfile`) takes in one go. The spares are removed by
/// [`RebuiltFiles::sync`], so a folder left at shutdown holds no spare. Where the file
/// system cannot swap names, files are replaced the ordinary way.
#[derive(Debug, Default)]
pub struct RebuiltFiles {
    /// Replaced since the last sync.
    unsynced: std::collections::BTreeSet<std::path::PathBuf>,
    /// Files whose spare holds an old inode, and when it took it.
    spares: std::collections::HashMap<std::path::PathBuf, std::time::Instant>,
    /// The file system refused to swap two names: no spares from then on.
    no_exchange: bool,
}

/// How long a spare rests after its swap before it is written into: the time a reader has
/// to finish reading the text it opened.
pub const SPARE_REST: std::time::Duration = std::time::Duration::from_secs(5);

/// Larger files (a round's file of all games) are always replaced by a new file.
pub const SPARE_MAX_BYTES: usize = 64 * 1024;

impl RebuiltFiles {
    /// Replaces `path`'s content with `bytes` atomically, creating its folder if needed.
    pub fn replace(&mut self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let now = std::time::Instant::now();
        let resting = self
            .spares
            .get(path)
            .is_some_and(|swapped| now.duration_since(*swapped) < SPARE_REST);
        let by_spare = !(self.no_exchange || resting || bytes.len() > SPARE_MAX_BYTES);
        // A spare that cannot be used (a leftover of a crash that is not a plain file, a
        // file system that refuses the swap) leaves the ordinary way, whose own error,
        // if any, is the one returned.
        if !by_spare || !self.replace_by_spare(path, bytes, now) {
            let tmp = write_temp(path, bytes, false)?;
            fs::rename(&tmp, path)?;
        }
        self.unsynced.insert(path.to_path_buf());
        Ok(())
    }

    /// Replaces `path`'s content through its spare; false when that did not happen.
    fn replace_by_spare(&mut self, path: &Path, bytes: &[u8], now: std::time::Instant) -> bool {
        let swapped = sibling(path, "spare").and_then(|spare| {
            overwrite(&spare, bytes)?;
            match exchange(&spare, path) {
                Ok(()) => Ok(true),
                // The file does not exist yet: the spare becomes it.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    fs::rename(&spare, path).map(|()| false)
                }
                Err(e) => Err(e),
            }
        });
        match swapped {
            Ok(true) => {
                self.spares.insert(path.to_path_buf(), now);
                true
            }
            Ok(false) => true,
            Err(e) => {
                if cannot_exchange(&e) {
                    self.no_exchange = true;
                }
                tracing::debug!("{}: not replaced through its spare: {e}", path.display());
                // Leave no spare behind that the final sync would not know of.
                if let Ok(spare) = sibling(path, "spare") {
                    let _ = fs::remove_file(spare);
                }
                self.spares.remove(path);
                false
            }
        }
    }

    /// Makes every file replaced since the last call durable, and their folders' renames;
    /// removes the spares.
    pub fn sync(&mut self) -> io::Result<()> {
        let mut folders = std::collections::BTreeSet::new();
        for (path, _) in self.spares.drain() {
            match sibling(&path, "spare").and_then(fs::remove_file) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => {
                    tracing::warn!("cannot remove the spare of {}: {e}", path.display())
                }
                _ => {}
            }
            folders.insert(folder_of(&path).to_path_buf());
        }
        while let Some(path) = self.unsynced.pop_first() {
            match File::open(&path).and_then(|f| f.sync_data()) {
                Ok(()) => {}
                // Removed since (a round's folder cleared by hand): nothing to keep.
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => {
                    self.unsynced.insert(path);
                    return Err(e);
                }
            }
            folders.insert(folder_of(&path).to_path_buf());
        }
        for dir in folders {
            match sync_dir(&dir) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                r => r?,
            }
        }
        Ok(())
    }
}

/// `.NAME.KIND` beside `path`.
fn sibling(path: &Path, kind: &str) -> io::Result<std::path::PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    Ok(folder_of(path).join(format!(".{}.{kind}", name.to_string_lossy())))
}

/// Writes `bytes` over the file at `path` (created if missing) and cuts it to their
/// length. Written from the start, then cut: the blocks the file already has are reused.
fn overwrite(path: &Path, bytes: &[u8]) -> io::Result<()> {
    fs::create_dir_all(folder_of(path))?;
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    f.write_all(bytes)?;
    f.set_len(bytes.len() as u64)
}

/// Swaps the names `a` and `b` in one step.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in a file name"))
    };
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: both are valid NUL-terminated paths that outlive the call. The raw
    // syscall: glibc's wrapper is missing from musl.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// Whether a failed swap says the file system (or kernel) cannot swap names at all.
fn cannot_exchange(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Unsupported
        || matches!(
            e.raw_os_error(),
            Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP)
        )
}

/// Makes a rename or a new file in `dir` durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// The framing field's key, as it closes a framed line: `,"crc32":"` + 8 hex digits + `"}`.
const CRC_KEY: &[u8] = b",\"crc32\":\"";
/// The length of the framing suffix.
const SUFFIX_LEN: usize = CRC_KEY.len() + 8 + 2;

/// Frames one JSON object (`line`, without newline, ending in `}`): adds a last field
/// `"crc32":"xxxxxxxx"`, the CRC-32 (IEEE, lower-case hex) of every byte of the line
/// before `,"crc32"`, and the newline. Any JSON-lines reader still reads the object; ours
/// also detects a line cut short or two lines run together.
pub fn frame(line: &mut Vec<u8>) {
    if line.last() == Some(&b'}') {
        line.pop();
    }
    let crc = crc32fast::hash(line);
    line.extend_from_slice(CRC_KEY);
    line.extend_from_slice(format!("{crc:08x}\"}}\n").as_bytes());
}

/// A framed line's check (the line without its newline): `Ok(Some(object))` is the object
/// without the framing field, its checksum right; `Ok(None)` is a line without framing
/// (written by an older daemon); `Err` says what is wrong.
pub fn unframe(line: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let n = line.len();
    if n < SUFFIX_LEN + 1 || !line.ends_with(b"\"}") {
        return Ok(None);
    }
    let body = &line[..n - SUFFIX_LEN];
    if &line[n - SUFFIX_LEN..n - 10] != CRC_KEY {
        return Ok(None);
    }
    let hex = std::str::from_utf8(&line[n - 10..n - 2]).map_err(|_| "a crc32 that is not hex")?;
    let want = u32::from_str_radix(hex, 16).map_err(|_| format!("crc32 {hex:?} is not hex"))?;
    let got = crc32fast::hash(body);
    if got != want {
        return Err(format!(
            "checksum mismatch (crc32 {want:08x} written, {got:08x} read): a torn or merged \
             line"
        ));
    }
    let mut object = Vec::with_capacity(body.len() + 1);
    object.extend_from_slice(body);
    object.push(b'}');
    Ok(Some(object))
}

/// How many lines one write of a [`Backlog`] takes at most (well within `IOV_MAX`).
pub const WRITE_LINES_MAX: usize = 64;

/// Lines waiting to be appended: when a write fails (a full disk, EIO), the line (and any
/// part of it not written yet) waits here and is written, in order and whole, at the next
/// try. Bounded by bytes: beyond the bound new lines are dropped and counted.
#[derive(Debug)]
pub struct Backlog {
    lines: VecDeque<Vec<u8>>,
    /// Bytes of the first line already written.
    head_done: usize,
    bytes: usize,
    cap_bytes: usize,
    dropped: u64,
}

impl Backlog {
    pub fn new(cap_bytes: usize) -> Backlog {
        Backlog {
            lines: VecDeque::new(),
            head_done: 0,
            bytes: 0,
            cap_bytes,
            dropped: 0,
        }
    }

    /// Queues a line; false (and counted) when the bound is reached.
    pub fn push(&mut self, line: Vec<u8>) -> bool {
        if !self.lines.is_empty() && self.bytes + line.len() > self.cap_bytes {
            self.dropped += 1;
            return false;
        }
        self.bytes += line.len();
        self.lines.push_back(line);
        true
    }

    /// Writes what it can to `file`: how many whole lines were written, and the error
    /// that stopped it (the lines not written stay, a line cut short resumes where the
    /// write stopped, so the file never gets a torn line from it). The lines go out
    /// together, up to [`WRITE_LINES_MAX`] a `writev(2)`, in order.
    pub fn write_to(&mut self, mut file: &File) -> (u64, io::Result<()>) {
        let mut done = 0;
        while !self.lines.is_empty() {
            let mut slices = [io::IoSlice::new(&[]); WRITE_LINES_MAX];
            let mut count = 0;
            for (slice, line) in slices.iter_mut().zip(&self.lines) {
                let skip = if count == 0 { self.head_done } else { 0 };
                *slice = io::IoSlice::new(&line[skip..]);
                count += 1;
            }
            match file.write_vectored(&slices[..count]) {
                Ok(0) => return (done, Err(io::ErrorKind::WriteZero.into())),
                Ok(mut n) => {
                    // Consume `n` bytes: whole lines, then part of the next one.
                    while let Some(front) = self.lines.front() {
                        let left = front.len() - self.head_done;
                        if n < left {
                            self.head_done += n;
                            break;
                        }
                        n -= left;
                        self.bytes -= front.len();
                        self.lines.pop_front();
                        self.head_done = 0;
                        done += 1;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return (done, Err(e)),
            }
        }
        (done, Ok(()))
    }

    /// Lines waiting.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Whether a line is partly written (the file ends in the middle of it).
    pub fn mid_line(&self) -> bool {
        self.head_done > 0
    }

    /// Lines dropped at the bound so far.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

/// What happened to an appended file's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moved {
    /// The file (or its folder) was deleted.
    Deleted,
    /// Another file is at its path now.
    Replaced,
}

impl Moved {
    pub fn words(self) -> &'static str {
        match self {
            Moved::Deleted => "was deleted (or its folder)",
            Moved::Replaced => "was replaced by another file",
        }
    }
}

/// Checks that `path` is still the file `file` has open (same device and inode). When it
/// is not, writes everything `file` holds to a new file at `path` (atomically; another
/// file found there is kept beside it as `NAME.replaced-UNIXSECONDS`), and returns it,
/// opened for reading and appending, with what happened: nothing is then written into a
/// deleted file, and nothing written before is lost.
pub fn follow_path(file: &File, path: &Path) -> io::Result<Option<(File, Moved)>> {
    follow_path_of(file, file_id(file)?, path)
}

/// A file's identity: its device and inode.
pub type FileId = (u64, u64);

/// The identity of an open file (an `fstat`); it never changes while the file is open.
pub fn file_id(file: &File) -> io::Result<FileId> {
    let m = file.metadata()?;
    Ok((m.dev(), m.ino()))
}

/// [`follow_path`] for a file whose identity `ours` is known: one `stat`, of the path.
pub fn follow_path_of(file: &File, ours: FileId, path: &Path) -> io::Result<Option<(File, Moved)>> {
    let moved = match fs::metadata(path) {
        Ok(m) if (m.dev(), m.ino()) == ours => return Ok(None),
        Ok(_) => Moved::Replaced,
        Err(e) if e.kind() == io::ErrorKind::NotFound => Moved::Deleted,
        Err(e) => return Err(e),
    };
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    if moved == Moved::Replaced {
        let secs = wall_clock::unix_ms_now() / 1000;
        let mut aside = path.as_os_str().to_owned();
        aside.push(format!(".replaced-{secs}"));
        fs::rename(path, aside)?;
    }
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    let tmp = dir.join(format!(".{}.tmp", name.to_string_lossy()));
    {
        let mut out = File::create(&tmp)?;
        let mut buf = vec![0u8; 64 * 1024];
        let mut at = 0u64;
        loop {
            let n = file.read_at(&mut buf, at)?;
            if n == 0 {
                break;
            }
            out.write_all(&buf[..n])?;
            at += n as u64;
        }
        out.sync_data()?;
    }
    fs::rename(&tmp, path)?;
    sync_dir(dir)?;
    let new = OpenOptions::new().read(true).append(true).open(path)?;
    Ok(Some((new, moved)))
}

/// Reads a whole file of at most `limit` bytes; a longer one (or an endless one such as
/// `/dev/zero`) is an `InvalidData` error that says the limit, read no further than it.
pub fn read_bounded(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    File::open(path)?.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the file is larger than {}", size_words(limit)),
        ));
    }
    Ok(bytes)
}

/// `1 MiB`, `64 KiB`, `100 bytes`.
pub fn size_words(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes % (1 << 20) == 0 {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes % (1 << 10) == 0 {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}

/// [`read_bounded`] as UTF-8 text.
pub fn read_text_bounded(path: &Path, limit: u64) -> io::Result<String> {
    String::from_utf8(read_bounded(path, limit)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "the file is not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_framed_line_checks_and_damage_is_named() {
        let mut line = br#"{"board":"1","seq":3}"#.to_vec();
        frame(&mut line);
        assert!(line.ends_with(b"\"}\n"));
        let text = &line[..line.len() - 1];
        let v: serde_json::Value = serde_json::from_slice(text).unwrap();
        assert_eq!(v["seq"], 3, "still one JSON object: {v}");
        assert_eq!(
            unframe(text).unwrap().unwrap(),
            br#"{"board":"1","seq":3}"#.to_vec()
        );
        // A torn line run into the next one.
        let mut merged = br#"{"board":"1","se"#.to_vec();
        merged.extend_from_slice(text);
        assert!(unframe(&merged).unwrap_err().contains("checksum mismatch"));
        let flipped = String::from_utf8_lossy(text).replace("\"seq\":3", "\"seq\":4");
        assert!(unframe(flipped.as_bytes()).is_err());
        assert_eq!(unframe(br#"{"board":"1"}"#).unwrap(), None, "unframed");
    }

    #[test]
    fn a_backlog_keeps_order_and_its_bound() {
        let mut b = Backlog::new(10);
        assert!(b.push(b"0123456\n".to_vec()));
        assert!(!b.push(b"789\n".to_vec()), "over the bound");
        assert_eq!(b.dropped(), 1);
        let path = std::env::temp_dir().join(format!("arbiter-backlog-{}", std::process::id()));
        let f = File::create(&path).unwrap();
        assert_eq!(b.write_to(&f).0, 1);
        assert!(b.is_empty());
        fs::remove_file(path).unwrap();
    }

    #[test]
    fn a_backlog_writes_many_lines_together_in_order() {
        let mut b = Backlog::new(1 << 20);
        let lines: Vec<String> = (0..WRITE_LINES_MAX * 2 + 5)
            .map(|i| format!("line {i}\n"))
            .collect();
        for l in &lines {
            assert!(b.push(l.clone().into_bytes()));
        }
        let path = std::env::temp_dir().join(format!("arbiter-writev-{}", std::process::id()));
        let f = File::create(&path).unwrap();
        let (done, r) = b.write_to(&f);
        r.unwrap();
        assert_eq!(done as usize, lines.len());
        assert!(b.is_empty() && !b.mid_line());
        assert_eq!(fs::read_to_string(&path).unwrap(), lines.concat());
        fs::remove_file(path).unwrap();
    }

    #[test]
    fn a_deleted_or_replaced_file_is_recreated_with_its_content() {
        let dir = std::env::temp_dir().join(format!("arbiter-follow-{}", std::process::id()));
        let path = dir.join("out/events.jsonl");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut f = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .unwrap();
        f.write_all(b"one\n").unwrap();
        assert!(follow_path(&f, &path).unwrap().is_none());
        fs::remove_dir_all(dir.join("out")).unwrap();
        let (mut f, moved) = follow_path(&f, &path).unwrap().unwrap();
        assert_eq!(moved, Moved::Deleted);
        f.write_all(b"two\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"one\ntwo\n");
        fs::write(dir.join("other"), b"theirs").unwrap();
        fs::rename(dir.join("other"), &path).unwrap();
        let (_, moved) = follow_path(&f, &path).unwrap().unwrap();
        assert_eq!(moved, Moved::Replaced);
        assert_eq!(fs::read(&path).unwrap(), b"one\ntwo\n");
        let kept = fs::read_dir(dir.join("out"))
            .unwrap()
            .filter_map(|e| e.ok())
            .any(|e| e.file_name().to_string_lossy().contains(".replaced-"));
        assert!(kept, "the other file is kept beside");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn replaces_the_whole_file() {
        let dir = std::env::temp_dir().join(format!("crash-safe-{}", std::process::id()));
        let path = dir.join("sub/game.pgn");
        write_atomic(&path, b"first, longer content").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        let names: Vec<_> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["game.pgn"], "no temp file left behind");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn rebuilt_files_are_replaced_whole_and_synced_on_demand() {
        let dir = std::env::temp_dir().join(format!("arbiter-rebuilt-{}", std::process::id()));
        let (a, b) = (dir.join("round-1/board-1.pgn"), dir.join("round-1.pgn"));
        let mut files = RebuiltFiles::default();
        files.replace(&a, b"first, longer content").unwrap();
        files.replace(&a, b"second").unwrap();
        files.replace(&b, b"round").unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"second");
        assert_eq!(files.unsynced.len(), 2, "each file once");
        // A file removed before the sync is no error; the others are synced.
        fs::remove_file(&b).unwrap();
        files.sync().unwrap();
        assert!(files.unsynced.is_empty());
        let names: Vec<_> = fs::read_dir(a.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["board-1.pgn"], "no temp file or spare left behind");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_reader_of_a_replaced_file_keeps_its_text_while_the_spare_rests() {
        use std::io::Read;
        let dir = std::env::temp_dir().join(format!("arbiter-spare-{}", std::process::id()));
        let path = dir.join("game-1.pgn");
        let spare = sibling(&path, "spare").unwrap();
        let text = |f: &mut File| {
            let mut s = String::new();
            f.read_to_string(&mut s).unwrap();
            s
        };
        let mut files = RebuiltFiles::default();
        files.replace(&path, b"one").unwrap();
        let mut reader = File::open(&path).unwrap();
        files.replace(&path, b"two, longer").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two, longer");
        assert_eq!(
            fs::read(&spare).unwrap(),
            b"one",
            "the spare holds the old inode"
        );
        // Replaced again while the spare rests: a new file, the reader's text untouched.
        files.replace(&path, b"three").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"three");
        assert_eq!(text(&mut reader), "one");
        // Once rested, the spare is written into and swapped in: the old inode again.
        let rested = std::time::Instant::now().checked_sub(SPARE_REST).unwrap();
        files.spares.insert(path.clone(), rested);
        let before = fs::metadata(&spare).unwrap().ino();
        files.replace(&path, b"four").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"four");
        assert_eq!(
            fs::metadata(&path).unwrap().ino(),
            before,
            "the spare's inode reused"
        );
        assert_eq!(fs::read(&spare).unwrap(), b"three");
        // A leftover spare that cannot be written into: the file is replaced anyway.
        let odd = dir.join("game-2.pgn");
        fs::create_dir_all(sibling(&odd, "spare").unwrap()).unwrap();
        files.replace(&odd, b"first").unwrap();
        files.replace(&odd, b"second").unwrap();
        assert_eq!(fs::read(&odd).unwrap(), b"second");
        fs::remove_dir(sibling(&odd, "spare").unwrap()).unwrap();
        // A large file never gets a spare.
        let big = dir.join("games.pgn");
        let long = vec![b'x'; SPARE_MAX_BYTES + 1];
        files.replace(&big, &long).unwrap();
        files.replace(&big, &long).unwrap();
        assert!(!sibling(&big, "spare").unwrap().exists());
        files.sync().unwrap();
        assert!(!spare.exists(), "the sync removes the spares");
        fs::remove_dir_all(dir).unwrap();
    }
}
