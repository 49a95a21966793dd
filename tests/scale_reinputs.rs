//! The unit's on-chip buffers. REINPUTS takes the previous successful layer's results from
//! the result buffer, not from memory (docs/scale.md, "REINPUTS and the result buffer"), and a
//! layer's X crosses the memory port once if it fits the X buffer (docs/scale.md, "Timing"):
//! directed layer programs on the whole unit through AXI4-Lite, the Verilated RTL and its
//! model in lock step, every result against the plain integer reference chained by hand.
use npu::scale::driver::{self, Bench, Outcome};
use npu::scale::layer::{matrix_bytes, reference, Layer, Registers};
use npu::scale::memory::Timing;
use npu::scale::program::value16;
use npu_model::scale::engine::{CPU_ERR, MEM_ERR, SUCCESS};
use npu_model::scale::scale_npu::{In, Out, ScaleNpu as Model};
use npu_model::scale::{RESULT_WORDS, SIZE, X_WORDS};
use npu_model::Block;
use rand::{rngs::SmallRng, Rng, SeedableRng};

/// The Verilated unit and its model in lock step: every output of every cycle compared.
fn lockstep(test: &'static str, seed: u64) -> impl FnMut(&In) -> Out {
    let mut dut = <npu::cosim::tops::scale_npu::ScaleNpu as npu::cosim::Dut>::open(&npu::cosim::DutOptions::from_env(seed));
    let mut model = Model::default();
    let mut cycle = 0u64;
    move |i| {
        let (out, expected) = (npu::cosim::Dut::step(&mut dut, i), model.step(i));
        // (Not in the reset cycle: the RTL powers up in a random state.)
        assert!(i.reset || out == expected, "{test}, cycle {cycle}: Verilog and model differ:\n{out:?}\n{expected:?}");
        cycle += 1;
        out
    }
}

/// A layer `m` x `k` x `n` with random W and bias, X random too unless REINPUTS.
fn layer(rng: &mut SmallRng, (m, k, n): (u8, u8, u8), reinputs: bool, saveout: bool, base: u32, result: u32) -> Layer {
    let regs = Registers {
        inrows: m,
        incols: k,
        wghtrows: k,
        wghtcols: n,
        reinputs,
        saveout,
        usebias: true,
        actfn: rng.gen_bool(0.5),
        shiftamt: rng.gen_range(0..12),
        base,
        result,
        ..Registers::default()
    };
    let (m, k, n) = (usize::from(m), usize::from(k), usize::from(n));
    Layer {
        regs,
        x: if reinputs { Vec::new() } else { (0..m * k).map(|_| value16(rng)).collect() },
        w: (0..k * n).map(|_| value16(rng)).collect(),
        bias: (0..n).map(|_| rng.gen_range(-1 << 20..1 << 20)).collect(),
        sums: Vec::new(),
    }
}

/// The integer reference of `layer` with X = `x`.
fn expected(layer: &Layer, x: &[i16]) -> Vec<i16> {
    let r = &layer.regs;
    let (m, k, n) = (usize::from(r.inrows), usize::from(r.incols), usize::from(r.wghtcols));
    reference(x, &layer.w, m, k, n, &layer.bias, &[], r.actfn, r.shiftamt)
}

fn run(test: &'static str, layers: &[Layer]) -> Vec<Outcome> {
    let mut step = lockstep(test, 5);
    let mut bench = Bench::new(Timing { stall: 0.2, latency: (1, 5) }, 0.1, 5);
    driver::reset(&mut step);
    driver::run_layers(&mut step, &mut bench, layers)
}

#[test]
fn reinputs_chain_takes_results_kept_on_chip_not_memory() {
    let rng = &mut SmallRng::seed_from_u64(20);
    // 1: X at 0x0, results not saved (SAVEOUT 0). 2: REINPUTS, its W image at 0x0 over layer
    // 1's X; results saved at 0x8000. 3: REINPUTS, its image at 0x8000, over layer 2's
    // results. 4: REINPUTS again, a chain of four, several K and column tiles throughout.
    let l1 = layer(rng, (5, 10, 12), false, false, 0x0, 0x4000);
    let l2 = layer(rng, (5, 12, 3), true, true, 0x0, 0x8000);
    let l3 = layer(rng, (5, 3, 20), true, true, 0x8000, 0xC000);
    let l4 = layer(rng, (5, 20, 4), true, true, 0x10000, 0x14000);
    assert!(l3.regs.base < l2.regs.result + matrix_bytes(5, 3) && l2.regs.result < l3.regs.base + l3.image_bytes());
    let r1 = expected(&l1, &l1.x);
    let r2 = expected(&l2, &r1);
    let r3 = expected(&l3, &r2);
    let r4 = expected(&l4, &r3);
    let outcomes = run("chain", &[l1, l2, l3, l4]);
    assert_eq!(outcomes.iter().map(|o| o.exit_code).collect::<Vec<_>>(), [SUCCESS; 4]);
    assert!(outcomes[0].result.is_empty(), "SAVEOUT 0 writes nothing");
    assert_eq!(outcomes[1].result, r2, "REINPUTS after SAVEOUT 0");
    assert_eq!(outcomes[2].result, r3, "REINPUTS over the old RESULT region");
    assert_eq!(outcomes[3].result, r4, "the fourth layer of the chain");
}

#[test]
fn reinputs_beyond_the_result_buffer_is_cpu_err_and_a_full_buffer_works() {
    let rng = &mut SmallRng::seed_from_u64(21);
    // 255 rows x 33 columns: 255 x 5 words, more than a bank holds.
    let big = layer(rng, (255, 1, 33), false, true, 0x0, 0x40000);
    assert!(255 * 5 > RESULT_WORDS);
    let refused = layer(rng, (255, 33, 2), true, true, 0x0, 0x60000);
    // 128 rows x 64 columns: exactly a bank (SIZE 8), not saved, then taken (8 K tiles).
    let full = layer(rng, (128, 1, 64), false, false, 0x0, 0x40000);
    assert_eq!(128 * 8, RESULT_WORDS);
    let after_full = layer(rng, (128, 64, 2), true, true, 0x0, 0x60000);
    let r_big = expected(&big, &big.x);
    let r_full = expected(&full, &full.x);
    let r_after = expected(&after_full, &r_full);
    let outcomes = run("beyond", &[big, refused, full, after_full]);
    assert_eq!(outcomes.iter().map(|o| o.exit_code).collect::<Vec<_>>(), [SUCCESS, CPU_ERR, SUCCESS, SUCCESS]);
    assert_eq!(outcomes[0].result, r_big, "a layer whose results do not fit still runs and saves them");
    assert_eq!(outcomes[3].result, r_after, "REINPUTS from a full bank");
}

#[test]
fn a_failed_layer_leaves_the_kept_results() {
    let rng = &mut SmallRng::seed_from_u64(22);
    let mut step = lockstep("failed", 6);
    let mut bench = Bench::new(Timing { stall: 0.2, latency: (1, 5) }, 0.1, 6);
    driver::reset(&mut step);
    let kept = layer(rng, (6, 4, 9), false, false, 0x0, 0x4000);
    // Fails half way: an error response on its second column tile's first weight row, after
    // the first tile's results went into the result buffer's free bank.
    let failing = layer(rng, (6, 4, 12), false, true, 0x0, 0x8000);
    let second_tile_weights = failing.regs.base + matrix_bytes(6, 4) + 16;
    // Refused at PLAN (misaligned BASE): touches nothing.
    let misaligned = layer(rng, (6, 9, 3), true, true, 0x8, 0x8000);
    let taker = layer(rng, (6, 9, 3), true, true, 0x100, 0xC000);
    let r_kept = expected(&kept, &kept.x);
    let r_taker = expected(&taker, &r_kept);
    let mut codes = Vec::new();
    for (l, faulty) in [(&kept, vec![]), (&failing, vec![second_tile_weights]), (&misaligned, vec![]), (&taker, vec![])] {
        bench.memory.faulty = faulty;
        let outcome = driver::run_layers(&mut step, &mut bench, std::slice::from_ref(l)).remove(0);
        codes.push(outcome.exit_code);
        if l.regs.result == taker.regs.result {
            assert_eq!(outcome.result, r_taker, "REINPUTS after a failed layer: the last successful layer's results");
        }
    }
    assert_eq!(codes, [SUCCESS, MEM_ERR, MEM_ERR, SUCCESS]);
}

#[test]
fn x_is_read_from_memory_once_if_it_fits_the_x_buffer() {
    let rng = &mut SmallRng::seed_from_u64(23);
    // 128 rows x 64 columns: exactly X_WORDS words of X (SIZE 8); 129 rows: one row more than
    // fits. Both with 16 columns of W, two column tiles, 8 K tiles.
    assert_eq!(128 * 64 / SIZE, X_WORDS);
    let words = |n: usize| n.div_ceil(SIZE) as u64;
    for (rows, fits) in [(128u8, true), (129, false)] {
        let l = layer(rng, (rows, 64, 16), false, true, 0x0, 0x40000);
        let r = expected(&l, &l.x);
        let mut step = lockstep("x buffer", 7);
        let mut bench = Bench::new(Timing { stall: 0.2, latency: (1, 5) }, 0.1, 7);
        driver::reset(&mut step);
        let outcome = driver::run_layers(&mut step, &mut bench, std::slice::from_ref(&l)).remove(0);
        assert_eq!((outcome.exit_code, &outcome.result), (SUCCESS, &r), "{rows} rows");
        // The memory layout's words: X (read once per column tile if it does not fit), W, bias.
        let (x, w, bias) = (u64::from(rows) * words(64), 64 * words(16), 2 * words(16));
        let x_reads = if fits { x } else { words(16) * x };
        assert_eq!(bench.memory.reads, x_reads + w + bias, "{rows} rows: memory reads");
    }
}
