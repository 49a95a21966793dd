//! The integer arithmetic the directed tests expect, written independently of the models
//! (seeds/002 §6.2, Eqn. 1 and 2): raw integers throughout, Q4.4 · Q4.4 = Q8.8.

/// Bias (Q4.4, times 16 for Q8.8) plus the products, clamped to 16 bits after every
/// addition as the 2CASC does.
pub fn eqn2(bias: i8, pairs: impl IntoIterator<Item = (i8, i8)>) -> i16 {
    let mut acc = i32::from(bias) * 16;
    for (a, b) in pairs {
        acc = (acc + i32::from(a) * i32::from(b)).clamp(-32768, 32767);
    }
    acc as i16
}

/// Eqn. 1, unless bypassed.
pub fn relu(x: i16, bypass: bool) -> i16 {
    if bypass || x >= 0 { x } else { 0 }
}
