//! A process's output: the last bytes it wrote, bounded, addressed by absolute offsets.

use std::collections::VecDeque;

/// At most `cap` bytes of output; older bytes are dropped and counted. Offsets count every byte
/// the process ever wrote, so a reader's cursor stays meaningful after a drop.
#[derive(Debug)]
pub struct Ring {
    data: VecDeque<u8>,
    /// The offset of `data[0]`: how many bytes were dropped so far.
    start: u64,
    cap: usize,
}

/// What a read found after a cursor.
#[derive(Debug, PartialEq, Eq)]
pub struct Slice {
    pub bytes: Vec<u8>,
    /// Where the next read continues.
    pub cursor: u64,
    /// Bytes between the cursor asked for and the oldest one still held (dropped).
    pub dropped: u64,
}

impl Ring {
    pub fn new(cap: usize) -> Ring {
        Ring {
            data: VecDeque::new(),
            start: 0,
            cap: cap.max(1),
        }
    }

    /// The offset after the last byte written.
    pub fn end(&self) -> u64 {
        self.start + self.data.len() as u64
    }

    /// Bytes dropped since the start.
    pub fn dropped(&self) -> u64 {
        self.start
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn push(&mut self, bytes: &[u8]) {
        // Only the last `cap` bytes of a large write can be kept.
        let keep = &bytes[bytes.len().saturating_sub(self.cap)..];
        self.start += (bytes.len() - keep.len()) as u64;
        let over = (self.data.len() + keep.len()).saturating_sub(self.cap);
        self.data.drain(..over);
        self.start += over as u64;
        self.data.extend(keep);
    }

    /// The bytes from `cursor` on, at most `max_bytes`, ending on a UTF-8 character boundary
    /// unless `whole` (the output is over: a cut sequence will never be completed).
    pub fn read(&self, cursor: u64, max_bytes: usize, whole: bool) -> Slice {
        let from = cursor.clamp(self.start, self.end());
        let dropped = from - cursor.min(from);
        let offset = (from - self.start) as usize;
        let available = self.data.len() - offset;
        let mut take = available.min(max_bytes);
        let mut bytes = Vec::with_capacity(take);
        bytes.extend(self.data.range(offset..offset + take));
        if !(whole && take == available) {
            let cut = incomplete_tail(&bytes);
            bytes.truncate(bytes.len() - cut);
            take -= cut;
        }
        Slice {
            bytes,
            cursor: from + take as u64,
            dropped,
        }
    }
}

/// How many bytes at the end of `bytes` start a UTF-8 sequence that is not complete yet.
fn incomplete_tail(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(3) {
        let b = bytes[bytes.len() - back];
        if b & 0xC0 == 0x80 {
            continue; // a continuation byte: look further back
        }
        let needed = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if needed > back { back } else { 0 };
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_bytes_and_counts_the_rest() {
        let mut ring = Ring::new(8);
        ring.push(b"hello ");
        ring.push(b"world");
        assert_eq!((ring.dropped(), ring.end(), ring.len()), (3, 11, 8));
        let s = ring.read(0, 100, false);
        assert_eq!(
            (s.bytes.as_slice(), s.cursor, s.dropped),
            (&b"lo world"[..], 11, 3)
        );
        let s = ring.read(5, 2, false);
        assert_eq!(
            (s.bytes.as_slice(), s.cursor, s.dropped),
            (&b" w"[..], 7, 0)
        );
        ring.push(&[b'x'; 20]);
        assert_eq!((ring.dropped(), ring.end(), ring.len()), (23, 31, 8));
        let s = ring.read(11, 100, false);
        assert_eq!((s.bytes, s.cursor, s.dropped), (vec![b'x'; 8], 31, 12));
        assert_eq!(ring.read(31, 10, false).bytes, b"");
        // A cursor past the end reads nothing and stays at the end.
        assert_eq!(ring.read(99, 10, false).cursor, 31);
    }

    #[test]
    fn reads_end_on_a_character_boundary() {
        let mut ring = Ring::new(64);
        let text = "aé😀";
        ring.push(&text.as_bytes()[..5]); // `a`, `é`, two bytes of the emoji
        let s = ring.read(0, 64, false);
        assert_eq!((s.bytes.as_slice(), s.cursor), ("aé".as_bytes(), 3));
        // Once the output is over, the cut sequence is given as it is.
        assert_eq!(ring.read(0, 64, true).bytes.len(), 5);
        ring.push(&text.as_bytes()[5..]);
        let s = ring.read(3, 64, false);
        assert_eq!(s.bytes, "😀".as_bytes());
        // A byte limit inside a character stops before it.
        assert_eq!(ring.read(0, 2, false).bytes, b"a");
    }
}
