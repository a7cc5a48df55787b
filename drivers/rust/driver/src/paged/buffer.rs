//! The page buffer readers fill with pread.

/// Bytes aligned to 4096. The kernel's copy out of the page cache runs several times slower
/// when the destination sits a few bytes past a page boundary (its stores then alias the
/// loads that follow them), which is exactly where a fresh large allocation lands; aligned,
/// every reader gets the fast copy whatever the allocator did before.
#[derive(Default)]
pub struct PageBuffer {
    blocks: Vec<Block>,
}

const BLOCK: usize = 4096;

#[derive(Clone, Copy)]
#[repr(C, align(4096))]
struct Block([u8; BLOCK]);

impl PageBuffer {
    /// The first `len` bytes, growing the buffer when it is shorter.
    pub fn first_mut(&mut self, len: usize) -> &mut [u8] {
        let blocks = len.div_ceil(BLOCK);
        if self.blocks.len() < blocks {
            self.blocks.resize(blocks, Block([0; BLOCK]));
        }
        // SAFETY: the blocks are plain bytes laid out back to back (size = alignment), and
        // `len` is within them.
        unsafe { std::slice::from_raw_parts_mut(self.blocks.as_mut_ptr().cast::<u8>(), len) }
    }

    /// Every byte of the buffer.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: as in `first_mut`.
        unsafe {
            std::slice::from_raw_parts(self.blocks.as_ptr().cast::<u8>(), self.blocks.len() * BLOCK)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_keeps_its_bytes_and_stays_aligned() {
        let mut buffer = PageBuffer::default();
        assert!(buffer.bytes().is_empty());
        buffer.first_mut(10).copy_from_slice(b"0123456789");
        assert_eq!(buffer.first_mut(5000).len(), 5000);
        assert_eq!(&buffer.bytes()[..10], b"0123456789");
        assert_eq!(buffer.bytes().len(), 8192);
        assert_eq!(buffer.bytes().as_ptr() as usize % 4096, 0);
    }
}
