//! SHA-1, only to name a curated snapshot when no commit is given: the
//! corpus builder records `sha1(path \0 text \0 ...)` of the content as the
//! repo's `commit_sha`, and a picked folder in the browser has no git
//! metadata either. Not used for anything security related.

pub struct Sha1 {
    state: [u32; 5],
    buffer: Vec<u8>,
    length: u64,
}

impl Default for Sha1 {
    fn default() -> Self {
        Sha1 {
            state: [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476, 0xc3d2_e1f0],
            buffer: Vec::new(),
            length: 0,
        }
    }
}

impl Sha1 {
    pub fn update(&mut self, data: &[u8]) {
        self.length = self.length.wrapping_add(data.len() as u64);
        self.buffer.extend_from_slice(data);
        let full = self.buffer.len() / 64 * 64;
        let blocks: Vec<u8> = self.buffer.drain(..full).collect();
        for block in blocks.chunks_exact(64) {
            self.compress(block);
        }
    }

    pub fn hex_digest(mut self) -> String {
        let bits = self.length.wrapping_mul(8);
        let mut tail = vec![0x80u8];
        while (self.buffer.len() + tail.len()) % 64 != 56 {
            tail.push(0);
        }
        tail.extend_from_slice(&bits.to_be_bytes());
        let mut rest = std::mem::take(&mut self.buffer);
        rest.extend_from_slice(&tail);
        for block in rest.chunks_exact(64) {
            self.compress(block);
        }
        self.state.iter().map(|w| format!("{w:08x}")).collect()
    }

    fn compress(&mut self, block: &[u8]) {
        let mut w = [0u32; 80];
        for (i, chunk) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = self.state;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5a82_7999),
                20..=39 => (b ^ c ^ d, 0x6ed9_eba1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8f1b_bcdc),
                _ => (b ^ c ^ d, 0xca62_c1d6),
            };
            let t =
                a.rotate_left(5).wrapping_add(f).wrapping_add(e).wrapping_add(k).wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (s, v) in self.state.iter_mut().zip([a, b, c, d, e]) {
            *s = s.wrapping_add(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha1(parts: &[&[u8]]) -> String {
        let mut h = Sha1::default();
        for p in parts {
            h.update(p);
        }
        h.hex_digest()
    }

    #[test]
    fn known_digests() {
        assert_eq!(sha1(&[]), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(sha1(&[b"abc"]), "a9993e364706816aba3e25717850c26c9cd0d89d");
        let long = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        assert_eq!(sha1(&[long]), "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
        // Split updates and a length crossing block boundaries.
        let data = vec![b'a'; 1000];
        assert_eq!(sha1(&[&data[..3], &data[3..700], &data[700..]]), sha1(&[&data]));
        assert_eq!(sha1(&[&data]), "291e9a6c66994949b57ba5e650361e98fc36b1ba");
    }
}
