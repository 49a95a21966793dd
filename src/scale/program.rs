//! Random layer programs for ScaleNPU and what the documented rules say they must give:
//! the exit code of each layer (docs/scale.md, "Exit codes") and, for a layer that succeeds
//! with SAVEOUT, its result matrix from the plain integer reference (`layer::reference`), not
//! from the model.
use super::layer::{matrix_bytes, reference, Layer, Registers};
use npu_model::scale::engine::{CPU_ERR, MEM_BYTES, MEM_ERR, SUCCESS, WORD_BYTES};
use npu_model::scale::result_buffer::results_fit;
use npu_model::scale::engine::x_fits;
use npu_model::scale::SIZE;
use rand::{rngs::SmallRng, Rng};

/// The results the unit keeps on chip for REINPUTS (docs/scale.md, "REINPUTS and the result
/// buffer"): those of the last layer that ended SUCCESS, if they fit in the result buffer.
#[derive(Clone, Debug)]
pub struct Kept {
    pub rows: u8,
    pub cols: u8,
    values: Vec<i16>,
    /// Where the layer that made them also wrote them to memory (SAVEOUT): `[start, end)`.
    pub saved_at: Option<(u32, u32)>,
    /// Layers in the REINPUTS chain that made them (1: that layer read its X from memory).
    pub chain: u32,
}

/// What the unit keeps from the layers before (for REINPUTS and REWEIGHTS), tracked by the
/// bench from the rules, independently of the model.
#[derive(Clone, Debug, Default)]
pub struct History {
    kept: Option<Kept>,
    /// The shape (rows, columns) of the last successful layer's results if they did not fit.
    overflowed: Option<(u8, u8)>,
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
        let reinputs_ok = matches!(&self.kept, Some(k) if k.rows == r.inrows && k.cols == r.incols);
        let reweights_ok = matches!(&self.weights, Some((rows, cols, _)) if *rows == r.wghtrows && *cols == r.wghtcols);
        if dims_zero || r.incols != r.wghtrows || (r.reinputs && !reinputs_ok) || (r.reweights && !reweights_ok) {
            return Some(CPU_ERR);
        }
        let at_base = !r.reinputs || !r.reweights || r.usebias || r.usesumm;
        let result_bytes = matrix_bytes(r.inrows, r.wghtcols);
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
        let x = if r.reinputs { self.kept.as_ref().unwrap().values.clone() } else { layer.x.clone() };
        let w = if r.reweights { self.weights.as_ref().unwrap().2.clone() } else { layer.w.clone() };
        let bias: &[i32] = if r.usebias { &layer.bias } else { &[] };
        let sums: &[i32] = if r.usesumm { &layer.sums } else { &[] };
        let (m, k, n) = (usize::from(r.inrows), usize::from(r.incols), usize::from(r.wghtcols));
        let result = reference(&x, &w, m, k, n, bias, sums, r.actfn, r.shiftamt);
        self.weights = Some((r.wghtrows, r.wghtcols, w));
        self.end(layer, SUCCESS, Some(result.clone()));
        Expected { exit_code: SUCCESS, result: r.saveout.then_some(result) }
    }

    /// A layer ended with `code` (also when a stop ended it early); `result` is its result
    /// matrix if it succeeded. A failed layer leaves the kept results as they were.
    pub fn end(&mut self, layer: &Layer, code: u8, result: Option<Vec<i16>>) {
        let r = &layer.regs;
        if let (SUCCESS, Some(values)) = (code, result) {
            let fit = results_fit(r.inrows, r.wghtcols);
            let chain = if r.reinputs { self.kept.as_ref().map_or(1, |k| k.chain + 1) } else { 1 };
            let saved_at = r.saveout.then(|| (r.result, r.result + matrix_bytes(r.inrows, r.wghtcols)));
            self.overflowed = (!fit).then_some((r.inrows, r.wghtcols));
            self.kept = fit.then_some(Kept { rows: r.inrows, cols: r.wghtcols, values, saved_at, chain });
            if usize::from(r.wghtrows) > SIZE || usize::from(r.wghtcols) > SIZE {
                self.weights = None;
            }
        } else if !r.reweights {
            self.weights = None;
        }
    }

    /// The REINPUTS cases `layer` exercises, from the history before it: "REINPUTS after
    /// SAVEOUT 0", "REINPUTS over the old RESULT region" (its image at BASE overwrites the memory
    /// the kept results were saved to), "REINPUTS chain of 3+ layers", "REINPUTS beyond the
    /// result buffer" (the last successful layer's results did not fit: CPU_ERR).
    pub fn reinput_cases(&self, layer: &Layer) -> Vec<&'static str> {
        let r = &layer.regs;
        let mut cases = Vec::new();
        if !r.reinputs {
            return cases;
        }
        match &self.kept {
            Some(k) if k.rows == r.inrows && k.cols == r.incols => {
                let image = (r.base, r.base.saturating_add(layer.image_bytes()));
                match k.saved_at {
                    None => cases.push("REINPUTS after SAVEOUT 0"),
                    Some((start, end)) if image.0 < end && start < image.1 => cases.push("REINPUTS over the old RESULT region"),
                    Some(_) => {}
                }
                if k.chain >= 2 {
                    cases.push("REINPUTS chain of 3+ layers");
                }
            }
            None if self.overflowed == Some((r.inrows, r.incols)) => cases.push("REINPUTS beyond the result buffer"),
            _ => {}
        }
        cases
    }

    /// Where the kept results were saved in memory, if they were.
    pub fn kept_saved_at(&self) -> Option<u32> {
        self.kept.as_ref().and_then(|k| k.saved_at).map(|(start, _)| start)
    }

    /// Checks a finished layer the bench expected to end with `code` against the rules, and
    /// moves the history on: on SUCCESS with SAVEOUT its result region in `memory` must be
    /// the integer reference's; in any case every write the layer made (`writes`) must lie in
    /// its RESULT region. Returns whether results were compared, or what is wrong.
    pub fn settle(&mut self, layer: &Layer, code: u8, memory: &[u8], writes: &[(u32, u128)]) -> Result<bool, String> {
        let r = &layer.regs;
        let end = u64::from(r.result) + u64::from(matrix_bytes(r.inrows, r.wghtcols));
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

    pub fn kept_rows_cols(&self) -> Option<(u8, u8)> {
        self.kept.as_ref().map(|k| (k.rows, k.cols))
    }

    pub fn weights_rows_cols(&self) -> Option<(u8, u8)> {
        self.weights.as_ref().map(|w| (w.0, w.1))
    }
}

/// The REINPUTS cases a random program must show (`History::reinput_cases`).
pub const REINPUT_CASES: [&str; 4] =
    ["REINPUTS after SAVEOUT 0", "REINPUTS over the old RESULT region", "REINPUTS chain of 3+ layers", "REINPUTS beyond the result buffer"];

/// Which of a finished layer's REINPUTS `cases` it showed: one beyond the result buffer when
/// it ended CPU_ERR (else the rules and the unit disagree: a panic), the others once its
/// results were compared with the integer reference (`checked`).
pub fn reinput_cases_shown(cases: &[&'static str], code: u8, checked: bool) -> Vec<&'static str> {
    let beyond = "REINPUTS beyond the result buffer";
    if cases.contains(&beyond) {
        assert_eq!(code, CPU_ERR, "{beyond}: the exit code");
    }
    cases.iter().copied().filter(|&c| c == beyond || checked).collect()
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
        saveout: rng.gen_bool(0.7),
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
    // Now and then results near the result buffer's size (RESULT_WORDS words): some fit, some
    // do not, and a REINPUTS layer after one that does not is refused.
    if rng.gen_bool(0.02) {
        (r.inrows, r.incols) = (rng.gen_range(100..=255), rng.gen_range(1..=SIZE as u8));
        r.wghtcols = rng.gen_range(4 * SIZE as u8 + 1..=8 * SIZE as u8);
    }
    // Now and then an X larger than the X buffer (X_WORDS words) in a layer of two column
    // tiles: the second re-reads X from memory.
    if rng.gen_bool(0.003) {
        (r.inrows, r.incols) = (rng.gen_range(200..=255), rng.gen_range(5 * SIZE as u8 + 1..=6 * SIZE as u8));
        r.wghtcols = rng.gen_range(SIZE as u8 + 1..=2 * SIZE as u8);
        debug_assert!(!x_fits(r.inrows, r.incols));
    }
    // Now and then a W of 121 columns or more over 2 or 3 K tiles: the step from one K tile's
    // weight rows to the next's is 2048 bytes or more only there (a mutant with that step's
    // bit 11 stuck at 0 survived the suite, docs/scale.md "Mutation score").
    if rng.gen_bool(0.02) {
        (r.inrows, r.incols) = (rng.gen_range(1..=4), rng.gen_range(SIZE as u8 + 1..=3 * SIZE as u8));
        r.wghtcols = rng.gen_range(121..=255);
    }
    if let Some((rows, cols)) = history.kept_rows_cols().filter(|_| rng.gen_bool(0.5)) {
        (r.reinputs, r.inrows, r.incols) = (true, rows, cols);
    } else if let Some((rows, cols)) = history.overflowed.filter(|_| rng.gen_bool(0.5)) {
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
    // Addresses: images in the first quarter and results in the second half; or, for a
    // REINPUTS layer, now and then the image right over the memory the kept results were saved
    // to (the unit reads X from the result buffer, not from there) and the results in the
    // second quarter or the fourth. A layer's own image and results never overlap (the unit
    // does not check that, docs/scale.md).
    let mut layer = Layer { regs: r, ..Layer::default() };
    let (m, k, n) = (usize::from(layer.regs.inrows), usize::from(layer.regs.incols), usize::from(layer.regs.wghtcols));
    layer.x = (0..m * k).map(|_| value16(rng)).collect();
    layer.w = (0..usize::from(layer.regs.wghtrows) * n).map(|_| value16(rng)).collect();
    layer.bias = (0..n).map(|_| rng.gen_range(-1 << 20..1 << 20)).collect();
    layer.sums = (0..n).map(|_| if rng.gen_bool(0.2) { rng.gen() } else { rng.gen_range(-1000..1000) }).collect();
    let region = (MEM_BYTES / u64::from(WORD_BYTES)) as u32 / 4;
    let quarter_bytes = region * WORD_BYTES;
    let offset = |rng: &mut SmallRng| rng.gen_range(0..region / 2) * WORD_BYTES;
    match history.kept_saved_at().filter(|_| layer.regs.reinputs && rng.gen_bool(0.4)) {
        Some(old_result) => {
            layer.regs.base = old_result;
            layer.regs.result = if old_result / quarter_bytes == 1 { 3 } else { 1 } * quarter_bytes + offset(rng);
        }
        None => {
            layer.regs.base = rng.gen_range(0..region) * WORD_BYTES;
            layer.regs.result = rng.gen_range(2..4) * quarter_bytes + offset(rng);
        }
    }
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
