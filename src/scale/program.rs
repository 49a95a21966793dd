//! Random layer programs for ScaleNPU and what the documented rules say they must give:
//! the exit code of each layer (docs/scale.md, "Exit codes") and, for a layer that succeeds
//! with SAVEOUT, its result matrix from the plain integer reference (`layer::reference`), not
//! from the model.
use super::layer::{reference, Layer, Registers};
use npu_model::scale::engine::{CPU_ERR, MEM_BYTES, MEM_ERR, SUCCESS, WORD_BYTES};
use npu_model::scale::SIZE;
use rand::{rngs::SmallRng, Rng};

/// What the unit keeps from the layers before (for REINPUTS and REWEIGHTS), tracked by the
/// bench from the rules, independently of the model.
#[derive(Clone, Debug, Default)]
pub struct History {
    /// The last layer's saved results (its RESULT address, rows, columns, values).
    saved: Option<(u32, u8, u8, Vec<i16>)>,
    /// The weights still in the array (rows, columns, values).
    weights: Option<(u8, u8, Vec<i16>)>,
}

/// One layer's expected outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    pub exit_code: u8,
    /// For SUCCESS with SAVEOUT: the result matrix at RESULT.
    pub result: Option<Vec<i16>>,
}

fn ends_inside(start: u32, bytes: u32) -> bool {
    start % WORD_BYTES == 0 && u64::from(start) + u64::from(bytes) <= MEM_BYTES
}

impl History {
    /// The exit code the rules give `layer` before it touches memory, or `None` if it runs.
    pub fn check(&self, layer: &Layer) -> Option<u8> {
        let r = &layer.regs;
        let dims_zero = [r.inrows, r.incols, r.wghtrows, r.wghtcols].contains(&0);
        let reinputs_ok = matches!(&self.saved, Some((_, rows, cols, _)) if *rows == r.inrows && *cols == r.incols);
        let reweights_ok = matches!(&self.weights, Some((rows, cols, _)) if *rows == r.wghtrows && *cols == r.wghtcols);
        if dims_zero || r.incols != r.wghtrows || (r.reinputs && !reinputs_ok) || (r.reweights && !reweights_ok) {
            return Some(CPU_ERR);
        }
        let at_base = !r.reinputs || !r.reweights || r.usebias || r.usesumm;
        let result_bytes = super::layer::matrix_bytes(r.inrows, r.wghtcols);
        if (at_base && !ends_inside(r.base, layer.image_bytes())) || (r.saveout && !ends_inside(r.result, result_bytes)) {
            return Some(MEM_ERR);
        }
        None
    }

    /// The outcome of `layer` if nothing stops it, and the history after it.
    pub fn run(&mut self, layer: &Layer) -> Expected {
        if let Some(code) = self.check(layer) {
            self.end(layer, code, None);
            return Expected { exit_code: code, result: None };
        }
        let r = &layer.regs;
        let x = if r.reinputs { self.saved.as_ref().unwrap().3.clone() } else { layer.x.clone() };
        let w = if r.reweights { self.weights.as_ref().unwrap().2.clone() } else { layer.w.clone() };
        let bias: &[i32] = if r.usebias { &layer.bias } else { &[] };
        let sums: &[i32] = if r.usesumm { &layer.sums } else { &[] };
        let (m, k, n) = (usize::from(r.inrows), usize::from(r.incols), usize::from(r.wghtcols));
        let result = reference(&x, &w, m, k, n, bias, sums, r.actfn, r.shiftamt);
        self.weights = Some((r.wghtrows, r.wghtcols, w));
        self.end(layer, SUCCESS, Some(result.clone()));
        Expected { exit_code: SUCCESS, result: r.saveout.then_some(result) }
    }

    /// A layer ended with `code` (also when a stop ended it early).
    pub fn end(&mut self, layer: &Layer, code: u8, result: Option<Vec<i16>>) {
        let r = &layer.regs;
        let success = code == SUCCESS;
        self.saved = match (success && r.saveout, result) {
            (true, Some(values)) => Some((r.result, r.inrows, r.wghtcols, values)),
            _ => None,
        };
        if success {
            if usize::from(r.wghtrows) > SIZE || usize::from(r.wghtcols) > SIZE {
                self.weights = None;
            }
        } else if !r.reweights {
            self.weights = None;
        }
    }

    /// Checks a finished layer the bench expected to end with `code` against the rules, and
    /// moves the history on: on SUCCESS with SAVEOUT its result region in `memory` must be
    /// the integer reference's; in any case every write the layer made (`writes`) must lie in
    /// its RESULT region. Returns whether results were compared, or what is wrong.
    pub fn settle(&mut self, layer: &Layer, code: u8, memory: &[u8], writes: &[(u32, u128)]) -> Result<bool, String> {
        let r = &layer.regs;
        let end = u64::from(r.result) + u64::from(super::layer::matrix_bytes(r.inrows, r.wghtcols));
        if let Some(&(addr, _)) = writes.iter().find(|&&(addr, _)| addr < r.result || u64::from(addr) >= end) {
            return Err(format!("a write at {addr:#x}, outside RESULT [{:#x}, {end:#x})", r.result));
        }
        if code != SUCCESS {
            self.end(layer, code, None);
            return Ok(false);
        }
        match self.run(layer).result {
            Some(expected) if super::layer::get_matrix(memory, r.result, r.inrows, r.wghtcols) != expected => {
                Err("the results differ from the integer reference".into())
            }
            Some(_) => Ok(true),
            None => Ok(false),
        }
    }

    pub fn saved_rows_cols(&self) -> Option<(u8, u8)> {
        self.saved.as_ref().map(|s| (s.1, s.2))
    }

    pub fn weights_rows_cols(&self) -> Option<(u8, u8)> {
        self.weights.as_ref().map(|w| (w.0, w.1))
    }
}

/// An int16 drawn to hit the extremes often.
pub fn value16(rng: &mut SmallRng) -> i16 {
    match rng.gen_range(0..8) {
        0 => i16::MIN,
        1 => i16::MAX,
        2 => rng.gen_range(-4..=4),
        _ => rng.gen(),
    }
}

/// A random layer for a unit whose memory window is `MEM_BYTES`: mostly legal, chaining onto
/// `history` when it can, sometimes wrong on purpose (`bad` of the time).
pub fn random_layer(rng: &mut SmallRng, history: &History, bad: f64) -> Layer {
    let dim = |rng: &mut SmallRng| -> u8 {
        match rng.gen_range(0..10) {
            0 => rng.gen_range(SIZE as u8 + 1..=3 * SIZE as u8),
            1 => SIZE as u8,
            _ => rng.gen_range(1..=SIZE as u8),
        }
    };
    let mut r = Registers {
        inrows: dim(rng),
        incols: dim(rng),
        wghtcols: dim(rng),
        saveout: rng.gen_bool(0.9),
        usebias: rng.gen_bool(0.5),
        usesumm: rng.gen_bool(0.3),
        actfn: rng.gen_bool(0.5),
        shiftamt: match rng.gen_range(0..10) {
            0 => 0,
            1 => rng.gen_range(31..=255),
            _ => rng.gen_range(0..=20),
        },
        ..Registers::default()
    };
    if let Some((rows, cols)) = history.saved_rows_cols().filter(|_| rng.gen_bool(0.4)) {
        (r.reinputs, r.inrows, r.incols) = (true, rows, cols);
    }
    r.wghtrows = r.incols;
    if let Some((_, cols)) = history.weights_rows_cols().filter(|&(rows, _)| rows == r.incols && rng.gen_bool(0.5)) {
        (r.reweights, r.wghtcols) = (true, cols);
    }
    if rng.gen_bool(bad) {
        match rng.gen_range(0..7) {
            0 => r.inrows = 0,
            1 => r.wghtrows = r.wghtrows.wrapping_add(rng.gen_range(1..4)),
            2 => r.reinputs = true,
            3 => r.reweights = true,
            4 => r.wghtcols = 0,
            _ => {}
        }
    }
    // Addresses: BASE, then RESULT after the image (or a bad one now and then).
    let mut layer = Layer { regs: r, ..Layer::default() };
    let (m, k, n) = (usize::from(layer.regs.inrows), usize::from(layer.regs.incols), usize::from(layer.regs.wghtcols));
    layer.x = (0..m * k).map(|_| value16(rng)).collect();
    layer.w = (0..usize::from(layer.regs.wghtrows) * n).map(|_| value16(rng)).collect();
    layer.bias = (0..n).map(|_| rng.gen_range(-1 << 20..1 << 20)).collect();
    layer.sums = (0..n).map(|_| if rng.gen_bool(0.2) { rng.gen() } else { rng.gen_range(-1000..1000) }).collect();
    let words = (MEM_BYTES / u64::from(WORD_BYTES)) as u32;
    let region = words / 4;
    // Images in the first half, results in the third or fourth quarter: not the quarter of
    // the results a REINPUTS layer reads (the unit does not check overlaps, docs/scale.md).
    let quarter_bytes = region * WORD_BYTES;
    layer.regs.base = rng.gen_range(0..region) * WORD_BYTES;
    let read_quarter = history.saved.as_ref().filter(|_| layer.regs.reinputs).map(|s| s.0 / quarter_bytes);
    let quarter = match read_quarter {
        Some(2) => 3,
        Some(_) => 2,
        None => rng.gen_range(2..4),
    };
    layer.regs.result = quarter * quarter_bytes + rng.gen_range(0..region / 2) * WORD_BYTES;
    if rng.gen_bool(bad) {
        match rng.gen_range(0..4) {
            0 => layer.regs.base += rng.gen_range(1..WORD_BYTES),
            1 => layer.regs.result += rng.gen_range(1..WORD_BYTES),
            2 => layer.regs.base = MEM_BYTES as u32 - WORD_BYTES * rng.gen_range(0..4),
            _ => layer.regs.result = u32::MAX - rng.gen_range(0..64) * WORD_BYTES,
        }
    }
    layer
}
