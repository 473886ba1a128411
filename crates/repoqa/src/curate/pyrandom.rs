//! CPython's `random.Random` as far as needle sampling needs it: the
//! MT19937 generator seeded from an integer (`init_by_array`), `getrandbits`,
//! `_randbelow` and `sample`. The corpus builder samples needles with
//! `random.Random(crc32(repo)).sample(candidates, 10)`; reproducing the
//! generator bit for bit is what makes our needles equal to its needles.

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// `random.Random(seed)` for a non-negative integer seed (CPython 3.11).
#[derive(Clone)]
pub struct PyRandom {
    mt: [u32; N],
    index: usize,
}

impl PyRandom {
    /// CPython seeds from an int by splitting its absolute value into 32-bit
    /// words, least significant first (`[0]` for zero), and `init_by_array`.
    pub fn new(seed: u64) -> PyRandom {
        let low = seed as u32;
        let high = (seed >> 32) as u32;
        let key: &[u32] = if high != 0 { &[low, high] } else { &[low] };
        let mut r = PyRandom { mt: [0; N], index: N + 1 };
        r.init_by_array(key);
        r
    }

    fn init_genrand(&mut self, s: u32) {
        self.mt[0] = s;
        for i in 1..N {
            let prev = self.mt[i - 1];
            self.mt[i] = 1_812_433_253u32.wrapping_mul(prev ^ (prev >> 30)).wrapping_add(i as u32);
        }
        self.index = N;
    }

    fn init_by_array(&mut self, key: &[u32]) {
        self.init_genrand(19_650_218);
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = self.mt[i - 1];
            self.mt[i] = (self.mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                self.mt[0] = self.mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = self.mt[i - 1];
            self.mt[i] = (self.mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941))
                .wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                self.mt[0] = self.mt[N - 1];
                i = 1;
            }
        }
        self.mt[0] = 0x8000_0000;
    }

    /// `genrand_uint32`: the next tempered 32-bit output.
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            for k in 0..N {
                let y = (self.mt[k] & UPPER_MASK) | (self.mt[(k + 1) % N] & LOWER_MASK);
                let mag = if y & 1 == 1 { MATRIX_A } else { 0 };
                self.mt[k] = self.mt[(k + M) % N] ^ (y >> 1) ^ mag;
            }
            self.index = 0;
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }

    /// `getrandbits(k)` for `k <= 64`: 32-bit words from the least
    /// significant up, the last one keeping only its top bits.
    pub fn getrandbits(&mut self, k: u32) -> u64 {
        debug_assert!(k <= 64);
        if k == 0 {
            return 0;
        }
        if k <= 32 {
            return u64::from(self.next_u32() >> (32 - k));
        }
        let low = u64::from(self.next_u32());
        let high = u64::from(self.next_u32() >> (64 - k));
        low | (high << 32)
    }

    /// `_randbelow_with_getrandbits(n)`: rejection sampling on
    /// `n.bit_length()` bits. `n` must be positive.
    pub fn randbelow(&mut self, n: u64) -> u64 {
        let k = 64 - n.leading_zeros();
        let mut r = self.getrandbits(k);
        while r >= n {
            r = self.getrandbits(k);
        }
        r
    }

    /// `sample(population, k)` with CPython 3.11's choice between a pool
    /// (small populations) and a set of selected indices (large ones).
    /// `None` when `k > population.len()` (Python raises ValueError).
    pub fn sample<T: Clone>(&mut self, population: &[T], k: usize) -> Option<Vec<T>> {
        let n = population.len();
        if k > n {
            return None;
        }
        let mut setsize = 21usize;
        if k > 5 {
            // 4 ** ceil(log(k * 3, 4)); math.log(x, base) = log(x) / log(base).
            let exp = (((k * 3) as f64).ln() / 4f64.ln()).ceil() as u32;
            setsize += 4usize.saturating_pow(exp);
        }
        let mut result = Vec::with_capacity(k);
        if n <= setsize {
            let mut pool: Vec<T> = population.to_vec();
            for i in 0..k {
                let j = self.randbelow((n - i) as u64) as usize;
                result.push(pool[j].clone());
                pool[j] = pool[n - i - 1].clone();
            }
        } else {
            let mut selected = std::collections::HashSet::new();
            for _ in 0..k {
                let mut j = self.randbelow(n as u64) as usize;
                while selected.contains(&j) {
                    j = self.randbelow(n as u64) as usize;
                }
                selected.insert(j);
                result.push(population[j].clone());
            }
        }
        Some(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values printed by CPython 3.11 (`random.Random(seed)`).

    #[test]
    fn getrandbits_matches_cpython() {
        let mut r = PyRandom::new(5489);
        assert_eq!([r.next_u32(), r.next_u32(), r.next_u32()], [3382763572, 956215839, 417760592]);
        let mut r = PyRandom::new(0);
        assert_eq!(
            [r.next_u32(), r.next_u32(), r.next_u32()],
            [3626764237, 1654615998, 3255389356]
        );
        // A seed above 2**32 is split into two key words.
        let mut r = PyRandom::new((1 << 40) + 7);
        assert_eq!([r.next_u32(), r.next_u32()], [2635837658, 3209733218]);
        let mut r = PyRandom::new((1 << 40) + 7);
        assert_eq!(r.getrandbits(64), 13785699202830676186);
        assert_eq!(r.getrandbits(33), 7795006133);
        assert_eq!(r.getrandbits(1), 1);
    }

    #[test]
    fn randbelow_matches_cpython() {
        let mut r = PyRandom::new(7);
        let got: Vec<u64> =
            [1u64, 2, 3, 1000, (1 << 31) + 5].iter().map(|&n| r.randbelow(n)).collect();
        assert_eq!(got, [0, 0, 1, 666, 207388624]);
    }

    #[test]
    fn sample_matches_cpython_pool_and_set_paths() {
        let seed = 1699660289; // zlib.crc32(b"psf/black")
        let pop: Vec<u32> = (0..40).collect(); // n <= 85: pool
        assert_eq!(
            PyRandom::new(seed).sample(&pop, 10).unwrap(),
            [26, 15, 13, 35, 28, 4, 0, 39, 32, 34]
        );
        let pop: Vec<u32> = (0..200).collect(); // n > 85: set
        assert_eq!(
            PyRandom::new(seed).sample(&pop, 10).unwrap(),
            [104, 60, 55, 198, 143, 186, 113, 151, 18, 164]
        );
        let pop: Vec<u32> = (0..1000).collect(); // k <= 5: setsize 21
        assert_eq!(PyRandom::new(12345).sample(&pop, 3).unwrap(), [426, 750, 10]);
        let pop: Vec<u32> = (0..10).collect();
        assert_eq!(PyRandom::new(7).sample(&pop, 10).unwrap(), [5, 2, 6, 9, 0, 7, 4, 1, 3, 8]);
        assert!(PyRandom::new(7).sample(&pop, 11).is_none());
    }
}
