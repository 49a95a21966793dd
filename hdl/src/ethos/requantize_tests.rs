//! The 64-bit arithmetic of `requantize.rs` against the 74-bit definition (i128 here, written
//! from the TRM's formulas, not from the pieces): every shift and rounding mode, at the edges
//! of every input and at random (`SEED=` chooses the random inputs).
use super::*;

/// `(acc + bias) · scale`, exact.
fn product_def(acc: i128, bias: i128, scale: i128) -> i128 {
    (acc + bias) * scale
}

/// `p / 2^n` rounded (0 TFL: half up to 2^31 then half away from zero past it for n > 31;
/// 1 toward zero; 2 and 3 half up), `+ zp`, then below `lo` is `lo`, else above `hi` is `hi`.
fn requantized_def(p: i128, n: u32, mode: u64, zp: i128, lo: i128, hi: i128) -> i128 {
    let half_up = |x: i128, k: u32| if k == 0 { x } else { (x + (1 << (k - 1))).div_euclid(1 << k) };
    let rounded = match mode {
        1 => {
            let q = p.abs() / (1i128 << n);
            if p < 0 { -q } else { q }
        }
        0 if n > 31 => {
            let high = half_up(p, 31);
            let e = n - 31;
            let away = (high.abs() + (1 << (e - 1))) / (1i128 << e);
            if high < 0 { -away } else { away }
        }
        _ => half_up(p, n),
    };
    let v = rounded + zp;
    if v < lo {
        lo
    } else if v > hi {
        hi
    } else {
        v
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A signed value of `width` bits, often near a power of two.
    fn signed(&mut self, width: u32) -> i128 {
        let r = self.next();
        let v = if r % 4 == 0 {
            let k = (self.next() % u64::from(width)) as u32;
            (1i128 << k) + (self.next() % 5) as i128 - 2
        } else {
            i128::from(self.next() as i64) >> (64 - width.min(64))
        };
        let v = if self.next() % 2 == 0 { -v } else { v };
        v.clamp(-(1 << (width - 1)), (1 << (width - 1)) - 1)
    }
}

fn seed() -> u64 {
    let seed: u64 = std::env::var("SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    println!("SEED={seed}");
    seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1
}

/// The product's parts, checked against the definition, and the requantized value through the
/// 74-bit entry (which splits the product) and through the parts, for every shift and mode.
fn check(p: i128, zp: i128, lo: i128, hi: i128, count: &mut u64) {
    for n in 0..64u32 {
        for mode in 0..4u64 {
            let want = requantized_def(p, n, mode, zp, lo, hi);
            let got = requantized(bits(p), bits(n.into()), bits(mode.into()), bits(zp), bits(lo), bits(hi));
            assert_eq!(signed(got), want, "p {p} n {n} mode {mode} zp {zp} lo {lo} hi {hi}");
            *count += 1;
        }
    }
}

const EDGES40: [i128; 9] = [-(1 << 39), -(1 << 39) + 1, -(1 << 16), -1, 0, 1, 1 << 16, (1 << 39) - 2, (1 << 39) - 1];
const SCALES: [i128; 9] = [0, 1, 2, 0xffff, 0x1_0000, 0x1_0001, 1 << 31, (1 << 32) - 2, (1 << 32) - 1];
const CLAMPS: [(i128, i128, i128); 4] =
    [(0, -32768, 32767), (-128, -128, 127), (32767, -32768, 32767), (-32768, -32768, 32767)];

#[test]
fn scaled_parts_equal_the_product_at_the_edges_and_at_random() {
    let mut rng = Rng(seed());
    let mut cases: Vec<(i128, i128, i128)> = Vec::new();
    for a in EDGES40 {
        for b in EDGES40 {
            for s in SCALES {
                cases.push((a, b, s));
            }
        }
    }
    for _ in 0..200_000 {
        cases.push((rng.signed(40), rng.signed(40), rng.next() as i128 & 0xffff_ffff));
    }
    for (a, b, s) in cases {
        let want = product_def(a, b, s);
        let (high, low) = scaled_parts(bits(a), bits(b), bits(s));
        assert_eq!((signed(high), low.index() as i128), (want >> 16, want & 0xffff), "{a} + {b} times {s}");
        assert_eq!(signed(scaled(bits(a), bits(b), bits(s))), want);
    }
}

#[test]
fn requantized_equals_the_74_bit_definition_at_the_edges() {
    let mut count = 0;
    // Every product of edge inputs, then around every rounding boundary of every shift and at
    // the extremes of the 74-bit port.
    for a in EDGES40 {
        for b in EDGES40 {
            for s in SCALES {
                check(product_def(a, b, s), 0, -32768, 32767, &mut count);
            }
        }
    }
    let mut products = vec![-(1i128 << 73), (1 << 73) - 1, -(1 << 72), (1 << 72) - 1];
    for k in 0..73 {
        for base in [1i128 << k, 3 << k, -(1i128 << k), -(3 << k)] {
            for d in -2..=2 {
                products.push(base + d);
            }
        }
    }
    for n in 1..64 {
        for j in [-70_000i128, -32768, -129, -3, -1, 0, 1, 2, 127, 32767, 70_000] {
            for d in -1..=1 {
                products.push((j << n) + (1 << (n - 1)) + d);
                if n > 31 {
                    // TFL's second rounding's boundary after the first one.
                    products.push((((j << (n - 31)) + (1 << (n - 32))) << 31) - (1 << 30) + d);
                }
            }
        }
    }
    for p in products.into_iter().filter(|p| (-(1i128 << 73)..1 << 73).contains(p)) {
        for (zp, lo, hi) in CLAMPS {
            check(p, zp, lo, hi, &mut count);
        }
    }
    println!("{count} cases");
}

#[test]
fn requantized_equals_the_74_bit_definition_at_random() {
    let mut rng = Rng(seed());
    let mut count = 0;
    for _ in 0..3000 {
        let p = if rng.next() % 2 == 0 {
            product_def(rng.signed(40), rng.signed(40), rng.next() as i128 & 0xffff_ffff)
        } else {
            rng.signed(74)
        };
        let (zp, lo, hi) = (rng.signed(16), rng.signed(16), rng.signed(16));
        check(p, zp, lo, hi, &mut count);
        check(p, zp, lo.min(hi), lo.max(hi), &mut count);
    }
    println!("{count} cases");
}
