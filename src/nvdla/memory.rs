//! The memory a trace loads and checks: sparse (a trace touches a few regions of a 64-bit
//! address space, the largest check covers 8.4 MiB), in 4 KiB pages created on first write;
//! bytes never written read 0, as `mem_init(.., ALL_ZERO)` leaves them.
use std::collections::BTreeMap;

const PAGE: u64 = 4096;

#[derive(Clone, Debug, Default)]
pub struct Memory {
    pages: BTreeMap<u64, Box<[u8; PAGE as usize]>>,
}

impl Memory {
    pub fn write(&mut self, address: u64, bytes: &[u8]) {
        for (k, &b) in bytes.iter().enumerate() {
            let a = address + k as u64;
            self.pages.entry(a / PAGE).or_insert_with(|| Box::new([0; PAGE as usize]))[(a % PAGE) as usize] = b;
        }
    }

    pub fn read(&self, address: u64) -> u8 {
        self.pages.get(&(address / PAGE)).map_or(0, |p| p[(address % PAGE) as usize])
    }

    /// `mem_init(.., ALL_ZERO)`: `size` bytes from `address` set to 0 (only pages that exist
    /// hold anything to clear; traces clear up to 16 MiB at once).
    pub fn zero(&mut self, address: u64, size: u64) {
        let end = address + size;
        for (&page, bytes) in self.pages.range_mut(address / PAGE..end.div_ceil(PAGE)) {
            let base = page * PAGE;
            bytes[(address.max(base) - base) as usize..(end.min(base + PAGE) - base) as usize].fill(0);
        }
    }

    /// CRC-32 (zlib's: reflected polynomial 0xEDB88320, initial value and final XOR
    /// 0xFFFFFFFF) of `size` bytes from `address`, as the traces' `check_crc` computes it.
    pub fn crc32(&self, address: u64, size: u64) -> u32 {
        let mut hasher = crc32fast::Hasher::new();
        let mut a = address;
        while a < address + size {
            let end = ((a / PAGE + 1) * PAGE).min(address + size);
            match self.pages.get(&(a / PAGE)) {
                Some(page) => hasher.update(&page[(a % PAGE) as usize..(end - (a / PAGE) * PAGE) as usize]),
                None => hasher.update(&[0; PAGE as usize][..(end - a) as usize]),
            }
            a = end;
        }
        hasher.finalize()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_bytes_and_crc_across_pages() {
        let mut m = Memory::default();
        m.write(PAGE - 2, b"1234");
        m.write(10 * PAGE, b"56789");
        assert_eq!((m.read(PAGE - 2), m.read(PAGE + 1), m.read(5 * PAGE)), (b'1', b'4', 0));
        // zlib's check value of "123456789".
        let mut n = Memory::default();
        n.write(PAGE - 4, b"123456789");
        assert_eq!(n.crc32(PAGE - 4, 9), 0xcbf4_3926);
        // Unwritten bytes count as zeros.
        assert_eq!(m.crc32(3 * PAGE, 8), crc32fast::hash(&[0; 8]));
        m.zero(PAGE - 1, 2);
        assert_eq!((m.read(PAGE - 2), m.read(PAGE - 1), m.read(PAGE)), (b'1', 0, 0));
    }
}
