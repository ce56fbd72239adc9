//! A 64-bit FNV-1a hasher over explicitly encoded values (integers little-endian, sequences
//! with their length first): the same hash in every process, on every platform and with every
//! Rust version, unlike std's `DefaultHasher`. Game states, content and replays hash with it.

/// A 64-bit FNV-1a hasher: the same hash of the same values in every process and platform.
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Self::new()
    }
}

impl Fnv1a {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    /// A hasher at the FNV-1a offset basis, with nothing hashed yet.
    pub const fn new() -> Self {
        Fnv1a(Self::OFFSET)
    }

    /// Hashes raw bytes with no length first: callers add one where sequences could run together.
    pub fn bytes(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }

    /// Hashes one byte.
    pub fn u8(&mut self, v: u8) {
        self.bytes(&[v]);
    }

    /// Hashes a `u16` as two bytes, little-endian.
    pub fn u16(&mut self, v: u16) {
        self.bytes(&v.to_le_bytes());
    }

    /// Hashes a `u32` as four bytes, little-endian.
    pub fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }

    /// Hashes a `u64` as eight bytes, little-endian.
    pub fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }

    /// Hashes an `i8` as one byte, two's complement.
    pub fn i8(&mut self, v: i8) {
        self.bytes(&v.to_le_bytes());
    }

    /// Hashes an `i32` as four bytes, little-endian two's complement.
    pub fn i32(&mut self, v: i32) {
        self.bytes(&v.to_le_bytes());
    }

    /// Hashes a flag as one byte, 0 or 1.
    pub fn bool(&mut self, v: bool) {
        self.u8(u8::from(v));
    }

    /// A length or an index, as 64 bits whatever the platform's `usize`.
    pub fn len(&mut self, n: usize) {
        self.u64(n as u64);
    }

    /// Hashes a string's UTF-8 bytes after its length, so consecutive strings cannot run together.
    pub fn str(&mut self, s: &str) {
        self.len(s.len());
        self.bytes(s.as_bytes());
    }

    /// The hash of everything written so far; more may still be written after.
    pub const fn finish(&self) -> u64 {
        self.0
    }
}
