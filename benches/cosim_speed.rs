//! `make bench`: cycles per second of each top's behavioural model, of its Verilated model
//! through the Rust bridge (one FFI call per cycle), and of the same Verilated model driven
//! by a plain C++ loop inside the shim, all on the same stimulus in one run. The three
//! output checksums must agree, or the numbers mean nothing.
use npu::cosim::{Dut, DutOptions, In, FOLD_START};
use npu::cosim::tops::{mac::Mac, piso_deb::PisoDeb, two_casc::TwoCasc};
use npu::model::{mnist, Block};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use std::time::Instant;

const CYCLES: usize = 2_000_000;
const REPEATS: usize = 3;

/// Best of `REPEATS` timings of `f`, in cycles per second, and its checksum.
fn measure(mut f: impl FnMut() -> u64) -> (f64, u64) {
    let mut best = f64::MAX;
    let mut sum = 0;
    for _ in 0..REPEATS {
        let start = Instant::now();
        sum = std::hint::black_box(f());
        best = best.min(start.elapsed().as_secs_f64());
    }
    (CYCLES as f64 / best, sum)
}

fn bench<D: Dut>(stimulus: impl Fn(&mut SmallRng) -> In<D>) {
    let mut rng = SmallRng::seed_from_u64(1);
    let mut inputs: Vec<In<D>> = D::Model::reset_input().into_iter().collect();
    inputs.extend((inputs.len()..CYCLES).map(|_| stimulus(&mut rng)));
    let raw: Vec<D::RawIn> = inputs.iter().map(D::pack).collect();
    let quiet = DutOptions::default();

    let (model, model_sum) = measure(|| {
        let mut m = D::Model::default();
        inputs.iter().fold(FOLD_START, |h, i| D::fold_outputs(h, &m.step(i)))
    });
    let (bridge, bridge_sum) = measure(|| {
        let mut dut = D::open(&quiet);
        inputs.iter().fold(FOLD_START, |h, i| D::fold_outputs(h, &dut.step(i)))
    });
    let (cxx, cxx_sum) = measure(|| D::open(&quiet).run_raw(&raw));
    assert_eq!(model_sum, bridge_sum, "{}: model and Verilog outputs differ", D::NAME);
    assert_eq!(cxx_sum, bridge_sum, "{}: the C++ loop and the bridge saw different outputs", D::NAME);
    println!(
        "| {:<9} | {:>8.1} M | {:>8.1} M | {:>8.1} M | {:>6.1}x  | {:>5.2}x |",
        D::NAME,
        model / 1e6,
        bridge / 1e6,
        cxx / 1e6,
        model / bridge,
        cxx / bridge,
    );
}

fn main() {
    println!("{CYCLES} cycles per engine, best of {REPEATS}, same stimulus; cycles/s:\n");
    println!("| top       | model      | bridge     | C++ loop   | model / bridge | C++ loop / bridge (target <= 1.5) |");
    println!("|-----------|------------|------------|------------|---------|-------|");
    bench::<TwoCasc>(|r| mnist::two_casc::In { a: r.gen(), b: r.gen() });
    bench::<Mac>(|r| mnist::mac::In {
        reset: false,
        data_a: r.gen(),
        data_b: r.gen(),
        bias: r.gen(),
        en_mac: r.gen_ratio(9, 10),
        rst_mac: r.gen_ratio(1, 64),
    });
    bench::<PisoDeb>(|r| mnist::piso_deb::In {
        reset: false,
        en_piso_deb: r.gen_ratio(3, 4),
        clr_piso_deb: r.gen_ratio(1, 64),
        shift_deb: r.gen_ratio(7, 8),
        samples: r.gen::<u128>() & mnist::piso_deb::CHAIN_MASK,
    });
}
