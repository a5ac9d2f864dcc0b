//! Reading a whole file whose size is known: shared by the file tools and the search cache.

/// Reads `reader` to its end into a buffer sized from the file's `size` (from its stat): one
/// read for the content and one that sees the end. (`File::read_to_end` stats and seeks again
/// for a size hint; other readers' `read_to_end` reads in 8 KiB steps at first.)
pub(crate) fn read_sized(reader: &mut impl std::io::Read, size: u64) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![
        0u8;
        usize::try_from(size)
            .unwrap_or(usize::MAX - 1)
            .saturating_add(1)
    ];
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            buf.resize(buf.len().saturating_mul(2).max(8192), 0);
        }
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(filled);
    Ok(buf)
}
