//! A growable bitset over dense positions (the id ranks of [`super`]): one
//! bit per order instead of a 16-byte id in a `BTreeSet`, with inserts that shift the
//! positions above them and newest-first walks that skip whole words.

#[derive(Default)]
pub struct RankBits {
    words: Vec<u64>,
    len: usize,
    ones: usize,
}

impl RankBits {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of set bits.
    pub fn ones(&self) -> usize {
        self.ones
    }

    pub fn get(&self, i: usize) -> bool {
        debug_assert!(i < self.len);
        self.words[i / 64] >> (i % 64) & 1 == 1
    }

    pub fn set(&mut self, i: usize, bit: bool) {
        assert!(i < self.len, "bit {i} out of {}", self.len);
        let (w, m) = (i / 64, 1u64 << (i % 64));
        let was = self.words[w] & m != 0;
        if was != bit {
            self.words[w] ^= m;
            if bit {
                self.ones += 1;
            } else {
                self.ones -= 1;
            }
        }
    }

    /// Inserts `bit` at `i`, moving bits `i..` up by one. Costs a word per 64 positions
    /// above `i`: new orders' ids are the newest, so they land at or near the end.
    pub fn insert(&mut self, i: usize, bit: bool) {
        assert!(i <= self.len, "insert at {i} of {}", self.len);
        if self.len % 64 == 0 {
            self.words.push(0);
        }
        self.len += 1;
        let w = i / 64;
        for k in (w + 1..self.words.len()).rev() {
            self.words[k] = self.words[k] << 1 | self.words[k - 1] >> 63;
        }
        let b = i % 64;
        let low = (1u64 << b) - 1;
        let word = self.words[w];
        self.words[w] = (word & low) | (word & !low) << 1 | u64::from(bit) << b;
        self.ones += usize::from(bit);
    }

    /// Set bits at positions `from..`.
    pub fn count_from(&self, from: usize) -> usize {
        if from == 0 {
            return self.ones;
        }
        if from >= self.len {
            return 0;
        }
        let w = from / 64;
        let first = (self.words[w] >> (from % 64)).count_ones() as usize;
        first
            + self.words[w + 1..]
                .iter()
                .map(|x| x.count_ones() as usize)
                .sum::<usize>()
    }

    /// Set positions in `from..`, highest first, after skipping the first `skip`, at most
    /// `limit` of them.
    pub fn descending(&self, from: usize, skip: usize, limit: usize) -> Vec<usize> {
        let mut out = Vec::with_capacity(limit.min(self.ones));
        if from >= self.len || limit == 0 {
            return out;
        }
        let mut skip = skip;
        let first_word = from / 64;
        for w in (first_word..self.words.len()).rev() {
            let mut word = self.words[w];
            if w == first_word {
                word &= !0u64 << (from % 64);
            }
            let n = word.count_ones() as usize;
            if n <= skip {
                skip -= n;
                continue;
            }
            while word != 0 {
                let b = 63 - word.leading_zeros() as usize;
                word &= !(1u64 << b);
                if skip > 0 {
                    skip -= 1;
                    continue;
                }
                out.push(w * 64 + b);
                if out.len() == limit {
                    return out;
                }
            }
        }
        out
    }

    pub fn shrink_to_fit(&mut self) {
        self.words.shrink_to_fit();
    }

    /// The words, lowest positions first (bits at `len..` are zero).
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The bitset of `len` positions held by `words` (as [`Self::words`] gave them), or
    /// `None` if they do not fit: the word count must be exactly what `len` needs and
    /// bits past `len` must be clear, as `insert` relies on.
    pub fn from_words(words: Vec<u64>, len: usize) -> Option<RankBits> {
        if words.len() != len.div_ceil(64) {
            return None;
        }
        if len % 64 != 0 && words[len / 64] >> (len % 64) != 0 {
            return None;
        }
        let ones = words.iter().map(|w| w.count_ones() as usize).sum();
        Some(RankBits { words, len, ones })
    }

    pub fn heap_bytes(&self) -> usize {
        self.words.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `Vec<bool>` model: every operation on random inputs must agree with it.
    #[test]
    fn agrees_with_a_vector_of_bools_across_word_boundaries() {
        let mut bits = RankBits::default();
        let mut model: Vec<bool> = Vec::new();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for step in 0..3000 {
            let bit = next(3) == 0;
            // Mostly appends or near the end, sometimes anywhere (as out-of-order ids are).
            let at = if next(4) == 0 {
                next(model.len() + 1)
            } else {
                model.len() - next(3).min(model.len())
            };
            bits.insert(at, bit);
            model.insert(at, bit);
            if step % 7 == 0 && !model.is_empty() {
                let i = next(model.len());
                let b = next(2) == 0;
                bits.set(i, b);
                model[i] = b;
            }
            assert_eq!(bits.len(), model.len());
            assert_eq!(bits.ones(), model.iter().filter(|b| **b).count());
        }
        for (i, b) in model.iter().enumerate() {
            assert_eq!(bits.get(i), *b, "bit {i}");
        }
        for from in [0, 1, 63, 64, 65, 1000, 2999, 3000, 3001] {
            let expect: Vec<usize> = (from..model.len()).rev().filter(|i| model[*i]).collect();
            assert_eq!(bits.count_from(from), expect.len(), "count from {from}");
            for (skip, limit) in [(0, 5), (3, 50), (64, 10), (500, 1000), (0, 0)] {
                let want: Vec<usize> = expect.iter().copied().skip(skip).take(limit).collect();
                assert_eq!(
                    bits.descending(from, skip, limit),
                    want,
                    "{from} {skip} {limit}"
                );
            }
        }
    }
}
