//! The whole MNIST NPU chip (seeds/002), at its pins: lock step against the chip model under
//! random legal programs and random pin activity, and the chip team's five directed tests
//! with expected values from plain integer arithmetic (Eqn. 2), not from the model.
//!
//! Every directed test runs the Verilog and the model in lock step and writes its stimulus
//! as a pin trace to `build/traces/<test>.trace` (replay it with `npu mnist replay`).
use npu::cosim::lockstep::{assert_lockstep, run_fixed, Run};
use npu::cosim::tops::mnist_npu::MnistNpu;
use npu::mnist::network::{eqn2, relu};
use npu::mnist::program::{self, auto_idle, Frame, Program, Ssfr, FIRST_BYTE_AFTER_SSFR_WINDOW};
use npu::mnist::trace;
use npu::model::mnist::chip::{In, Out};
use npu::model::mnist::output_mux::sel_out;
use rand::{rngs::SmallRng, Rng, SeedableRng};

/// The two results of a frame after the ReLUs.
fn frame_results(f: &Frame) -> (i16, i16) {
    let out1 = eqn2(f.bias1, f.pairs.iter().map(|p| (p[0], p[1])));
    let out2 = eqn2(f.bias2, f.pairs.iter().map(|p| (p[2], p[3])));
    (relu(out1, f.ssfr.bypass_relu1), relu(out2, f.ssfr.bypass_relu2))
}

/// PISO_OUT's order (§9.3): OUT2[15:8], OUT2[7:0], OUT1[15:8], OUT1[7:0].
fn piso_bytes((out1, out2): (i16, i16)) -> [u8; 4] {
    let [a, b] = out2.to_be_bytes();
    let [c, d] = out1.to_be_bytes();
    [a, b, c, d]
}

fn random_frame(rng: &mut SmallRng, n: usize, ssfr: Ssfr) -> Frame {
    Frame { bias1: rng.gen(), bias2: rng.gen(), pairs: (0..n).map(|_| rng.gen()).collect(), ssfr }
}

/// Runs the program in lock step (Verilog against model) after a reset, writes its trace,
/// and returns the pins' outputs.
fn run(test: &str, p: &Program) -> Vec<Out> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("build/traces");
    std::fs::create_dir_all(&dir).unwrap();
    let mut cycles = vec![In { RST_GLO: true, ..In::default() }];
    cycles.extend(p.cycles.iter().cloned());
    std::fs::write(dir.join(format!("{test}.trace")), trace::write(&format!("{test} (tests/mnist_npu.rs)"), &cycles)).unwrap();
    // run_fixed resets both sides itself; cycle k of the program is output k.
    run_fixed::<MnistNpu>(test, &p.cycles).0
}

fn d_out(outs: &[Out], from: usize, count: usize) -> Vec<u8> {
    outs[from..from + count].iter().map(|o| o.D_OUT).collect()
}

// ---- Directed tests (the chip team's five) ----

/// Manual mode (§10): MAC1 driven from DC[7:0]; ReLU1 bypassed keeps a negative sum, not
/// bypassed clamps it; MAC2/ReLU2 stay 0 and the FIFO is not written.
#[test]
fn manual_mode_with_relu_bypass() {
    let pairs: Vec<[i8; 2]> = vec![[-100, 50], [30, -7], [-128, 127], [5, 5]];
    let bias = -3;
    let expected = eqn2(bias, pairs.iter().map(|p| (p[0], p[1])));
    assert!(expected < 0);
    let mut p = Program::default();
    let fifo_on = Ssfr { sel_out: sel_out::PISO_OUT, en_fifo: true, ..Ssfr::default() };
    let bypassed = p.manual_frame(bias, &pairs, Ssfr { bypass_relu1: true, ..fifo_on });
    let clamped = p.manual_frame(bias, &pairs, fifo_on);
    let outs = run("manual_mode_with_relu_bypass", &p);
    assert_eq!(d_out(&outs, bypassed, 4), piso_bytes((expected, 0)), "bypassed: ReLU2 disabled (0), ReLU1 = Eqn. 2 {expected}");
    assert_eq!(d_out(&outs, clamped, 4), piso_bytes((0, 0)), "not bypassed: ReLU1 clamps {expected} to 0");
    assert!(outs.iter().all(|o| o.EMPTY), "WR_EN is forced low in manual mode: the FIFO stays empty");
}

/// The comparator against Table 4 as corrected (rows 4 to 6 follow §6.7's text): index and
/// largest value after each frame, read through SEL_OUT 010, 011 and 100.
#[test]
fn comparator_largest_value_and_index() {
    // (ReLU1, ReLU2, EN_COMP, RST_COMP) per frame; then the expected (index, largest).
    let rows: [((i16, i16, bool, bool), (u8, u16)); 6] = [
        ((0x0000, 0x0000, false, true), (0, 0x8000)),
        ((-15, -14, true, false), (2, 0xFFF2)),
        ((-12, -13, true, false), (3, 0xFFF4)),
        ((-1, -1, true, false), (5, 0xFFFF)),
        ((0, 3, true, false), (8, 0x0003)),
        ((1, 2, true, false), (8, 0x0003)),
    ];
    let mut p = Program::default();
    let mut reads = Vec::new();
    for ((r1, r2, en_comp, rst_comp), expected) in rows {
        // bias 0 and one product v·1 give exactly v (raw Q8.8); the other three pairs are 0.
        let ssfr = Ssfr { sel_out: sel_out::INDEX, bypass_relu1: true, bypass_relu2: true, en_comp, rst_comp, ..Ssfr::default() };
        let mut pairs = vec![[0i8; 4]; 4];
        pairs[0] = [r1 as i8, 1, r2 as i8, 1];
        let window = p.frames(&[Frame { bias1: 0, bias2: 0, pairs, ssfr }])[0];
        let index_at = window + FIRST_BYTE_AFTER_SSFR_WINDOW;
        p.configure(Ssfr { sel_out: sel_out::LARGEST_MSB, ..ssfr });
        let msb_at = p.cycles.len();
        p.configure(Ssfr { sel_out: sel_out::LARGEST_LSB, ..ssfr });
        let lsb_at = p.cycles.len();
        p.configure(ssfr);
        reads.push((index_at, msb_at, lsb_at, expected));
    }
    let outs = run("comparator_largest_value_and_index", &p);
    for (row, (index_at, msb_at, lsb_at, (index, largest))) in reads.into_iter().enumerate() {
        let got = (outs[index_at].D_OUT, u16::from_be_bytes([outs[msb_at].D_OUT, outs[lsb_at].D_OUT]));
        assert_eq!(got, (index, largest), "Table 4 row {} (corrected): (index, largest)", row + 1);
    }
}

/// The debug chain (§11) in the middle of a frame: the twelve bytes are the state at the
/// interruption, computed by hand, and the frame then finishes with the same result as
/// without the interruption.
#[test]
fn debug_chain_freezes_and_resumes() {
    let mut rng = SmallRng::seed_from_u64(11);
    let ssfr = Ssfr { sel_out: sel_out::PISO_OUT, ..Ssfr::default() };
    let frame = random_frame(&mut rng, 10, ssfr);
    let mut plain = Program::default();
    let window = plain.frames(std::slice::from_ref(&frame))[0];
    // Interrupt before MAC cycle j = 6: the buffer holds pair 5, the MACs hold the bias and
    // pairs 0..=4 (the buffer delays each pair by a cycle).
    let j = 6;
    let at = 2 + j; // trigger cycle, bias window, then MAC cycle 0
    let mut p = Program { cycles: plain.cycles[..at].to_vec() };
    let first = p.debug_dump(&plain.cycles[at], Ssfr::reset());
    p.cycles.extend_from_slice(&plain.cycles[at..]);
    let outs = run("debug_chain_freezes_and_resumes", &p);

    let mac1 = eqn2(frame.bias1, frame.pairs[..j - 1].iter().map(|q| (q[0], q[1])));
    let mac2 = eqn2(frame.bias2, frame.pairs[..j - 1].iter().map(|q| (q[2], q[3])));
    let [ssfr_hi, ssfr_lo] = Ssfr::reset().value().to_be_bytes();
    // FSM_ACC in ACC: EN_BUF_IN, EN_MAC; FSM_OUT idle: SHIFT_OUT (Table 7); counter not 0.
    let con_sig = [0b1010_0100, 0b0000_0000];
    let held = frame.pairs[j - 1].map(|b| b as u8);
    let [m2h, m2l] = mac2.to_be_bytes();
    let [m1h, m1l] = mac1.to_be_bytes();
    let expected = [ssfr_hi, ssfr_lo, con_sig[0], con_sig[1], m2h, m2l, m1h, m1l, held[3], held[2], held[1], held[0]];
    assert_eq!(d_out(&outs, first, 12), expected, "PISO_DEB: SSFR, CON_SIG, MAC2, MAC1, DD, DC, DB, DA");
    let shifted = window + (p.cycles.len() - plain.cycles.len());
    assert_eq!(
        d_out(&outs, shifted + FIRST_BYTE_AFTER_SSFR_WINDOW, 4),
        piso_bytes(frame_results(&frame)),
        "the frame resumes where it stopped"
    );
}

/// All 16 SSFR bits read back through PISO_DEB (§7: "a group of total 16 1-bit registers",
/// bits 6:0 included): each value written with EN_CONFIG leaves the chain as its first two
/// bytes; after RST_GLO the chain shows Table 5's reset value, bits 6:0 at 0.
#[test]
fn ssfr_reads_back_all_16_bits_through_piso_deb() {
    let values = [0xFFFF, 0x007F, 0x0055, 0x002A, 0xA5A5, 0x5A5A, 0x0001, 0x0040];
    let mut p = Program::default();
    let mut dumps = Vec::new();
    for value in values {
        let ssfr = Ssfr::from_value(value);
        assert_eq!(ssfr.value(), value, "program::Ssfr keeps every bit");
        p.configure(ssfr);
        dumps.push((value, p.debug_dump(&auto_idle(), ssfr)));
    }
    p.reset();
    dumps.push((0x2280, p.debug_dump(&auto_idle(), Ssfr::reset())));
    let outs = run("ssfr_reads_back_all_16_bits_through_piso_deb", &p);
    for (value, first) in dumps {
        assert_eq!(d_out(&outs, first, 2), value.to_be_bytes(), "SSFR {value:#06x} through PISO_DEB");
    }
}

/// Back-to-back frames with N = 3 (docs/mnist.md, "Back-to-back frames with N < 4"): the
/// second frame's EN_ReLU (in LAST) comes while FSM_OUT is in S5 and is ignored, so FSM_ACC
/// waits in WAIT for an OUT_DONE that never comes. EN_FSM is ignored from then on (a good
/// frame gives no output); RST_GLO recovers, and the same frame then gives its result.
#[test]
fn short_back_to_back_frames_lock_up_until_rst_glo() {
    use npu::model::mnist::{chip::Chip, fsm_acc::State};
    use npu::model::Block;
    let mut rng = SmallRng::seed_from_u64(12);
    let ssfr = Ssfr { sel_out: sel_out::PISO_OUT, ..Ssfr::default() };
    let short: Vec<Frame> = (0..2).map(|_| random_frame(&mut rng, 3, ssfr)).collect();
    let good = Frame { bias1: 0x10, bias2: 0x20, pairs: vec![[0x10; 4]; 4], ssfr };
    let expected = piso_bytes(frame_results(&good));
    assert_eq!(expected, [0x06, 0x00, 0x05, 0x00], "1 + 4 and 2 + 4 in Q8.8");

    let mut p = Program::default();
    let windows = p.frames_ignoring_timing(&short);
    p.idle(100);
    let stuck_from = p.cycles.len();
    let ignored = p.frames(std::slice::from_ref(&good))[0];
    let reset = p.push(In { RST_GLO: true, ..auto_idle() });
    let recovered = p.frames(std::slice::from_ref(&good))[0];
    let outs = run("short_back_to_back_frames_lock_up_until_rst_glo", &p);

    // The model's FSM_ACC (equal to the RTL at every pin, run() checks) after each cycle.
    let mut chip = Chip::default();
    chip.step(&In { RST_GLO: true, ..In::default() });
    let states: Vec<State> = p.cycles.iter().map(|pins| { chip.step(pins); chip.fsm_acc_state() }).collect();
    assert_eq!(states[windows[1] + 1], State::Wait, "LAST, then WAIT");
    assert!(states[windows[1] + 1..reset].iter().all(|&s| s == State::Wait), "WAIT until RST_GLO: {} cycles", reset - windows[1] - 1);
    assert!(stuck_from - windows[1] > 100);
    assert_ne!(d_out(&outs, ignored + FIRST_BYTE_AFTER_SSFR_WINDOW, 4), expected, "the frame during the lock-up gives nothing");
    assert_eq!(states[reset], State::Idle);
    assert_eq!(d_out(&outs, recovered + FIRST_BYTE_AFTER_SSFR_WINDOW, 4), expected, "after RST_GLO the frame gives its result");
    assert_eq!(*states.last().unwrap(), State::Idle);

    // Which runs of equal N lock up (the model; its pins equal the RTL's under random pin
    // activity, chip_random_pin_activity): exactly N = 3 with an even number of frames.
    for n in 0..=3 {
        for count in 1..=8 {
            let frames: Vec<Frame> = (0..count).map(|_| random_frame(&mut rng, n, ssfr)).collect();
            let mut p = Program::default();
            p.frames_ignoring_timing(&frames);
            p.idle(20);
            let mut chip = Chip::default();
            chip.step(&In { RST_GLO: true, ..In::default() });
            for pins in &p.cycles {
                chip.step(pins);
            }
            let locked = chip.fsm_acc_state() == State::Wait;
            assert_eq!(locked, n == 3 && count % 2 == 0, "N = {n}, {count} frames back to back: locked up {locked}");
        }
    }
}

/// Full inference with the FSM and PISO_OUT (§9.3): back-to-back frames, each result read
/// from D_OUT in the four cycles after its SSFR window + 3; one frame saturates.
#[test]
fn full_inference_with_fsm_and_piso_out() {
    let mut rng = SmallRng::seed_from_u64(4);
    let mut frames: Vec<Frame> = (0..4)
        .map(|k| random_frame(&mut rng, [4, 16, 9, 300][k], Ssfr { sel_out: sel_out::PISO_OUT, bypass_relu2: k % 2 == 1, ..Ssfr::default() }))
        .collect();
    // Frame 4: 300 products of 127·127 saturate MAC1 at 0x7FFF; MAC2's -128·127 at 0x8000.
    for pair in &mut frames[3].pairs {
        *pair = [127, 127, -128, 127];
    }
    frames[3].ssfr.bypass_relu2 = true;
    let mut p = Program::default();
    let windows = p.frames(&frames);
    let outs = run("full_inference_with_fsm_and_piso_out", &p);
    for (k, (frame, window)) in frames.iter().zip(windows).enumerate() {
        assert_eq!(d_out(&outs, window + FIRST_BYTE_AFTER_SSFR_WINDOW, 4), piso_bytes(frame_results(frame)), "frame {k}");
    }
    assert_eq!(frame_results(&frames[3]), (0x7FFF, -0x8000));
}

/// Full inference with the FSM, the FIFO and the comparator (§9.4, §9.5): ten output
/// neurons in five frames go to the FIFO; then all twenty bytes are read back in order, and
/// the comparator names the largest neuron.
#[test]
fn full_inference_with_fsm_fifo_and_comparator() {
    let mut rng = SmallRng::seed_from_u64(5);
    let ssfr = Ssfr { sel_out: sel_out::FIFO, bypass_relu1: true, bypass_relu2: true, en_comp: true, en_fifo: true, ..Ssfr::default() };
    let frames: Vec<Frame> = (0..5).map(|_| random_frame(&mut rng, 12, ssfr)).collect();
    let mut p = Program::default();
    p.frames(&frames);
    let first_read = p.read_fifo(20);
    p.idle(1);
    p.configure(Ssfr { sel_out: sel_out::INDEX, ..ssfr });
    let index_at = p.cycles.len();
    p.idle(1);
    let outs = run("full_inference_with_fsm_fifo_and_comparator", &p);

    let results: Vec<(i16, i16)> = frames.iter().map(frame_results).collect();
    let expected_bytes: Vec<u8> = results.iter().flat_map(|&r| piso_bytes(r)).collect();
    assert_eq!(d_out(&outs, first_read + 1, 20), expected_bytes, "FIFO bytes in PISO_OUT order");
    let neurons: Vec<i16> = results.iter().flat_map(|&(o1, o2)| [o1, o2]).collect();
    let best = neurons.iter().enumerate().fold(0, |best, (k, &v)| if v > neurons[best] { k } else { best });
    assert_eq!(outs[index_at].D_OUT, best as u8 + 1, "comparator index of the largest of {neurons:?} (first on a tie)");
    assert!(outs[first_read + 20].EMPTY);
}

/// 33 back-to-back frames write 132 bytes into the 128-byte FIFO: the first 128 are kept in
/// order, the last four are dropped, FULL rises; 130 reads return the 128 bytes, EMPTY
/// rises, the two reads past empty change nothing, and the FIFO works normally afterwards.
#[test]
fn fifo_overflow_and_underflow_lose_and_duplicate_nothing() {
    let mut rng = SmallRng::seed_from_u64(6);
    let ssfr = Ssfr { sel_out: sel_out::FIFO, en_fifo: true, bypass_relu1: true, bypass_relu2: true, ..Ssfr::default() };
    let frames: Vec<Frame> = (0..33).map(|_| random_frame(&mut rng, 4, ssfr)).collect();
    let mut p = Program::default();
    p.frames(&frames);
    let full_at = p.cycles.len();
    let first_read = p.read_fifo(130);
    p.idle(2);
    let last = random_frame(&mut rng, 5, ssfr);
    p.frames(std::slice::from_ref(&last));
    let again = p.read_fifo(4);
    p.idle(1);
    let outs = run("fifo_overflow_and_underflow_lose_and_duplicate_nothing", &p);

    let written: Vec<u8> = frames.iter().flat_map(|f| piso_bytes(frame_results(f))).collect();
    assert!(outs[full_at].FULL && !outs[full_at].EMPTY, "FULL after 132 writes");
    assert_eq!(d_out(&outs, first_read + 1, 128), written[..128], "the first 128 bytes, in order");
    assert!(!outs[first_read + 1].FULL, "one read frees a place");
    assert!(outs[first_read + 128].EMPTY, "EMPTY after 128 reads");
    assert_eq!(d_out(&outs, first_read + 129, 3), [written[127]; 3], "reads past empty change nothing");
    assert_eq!(d_out(&outs, again + 1, 4), piso_bytes(frame_results(&last)), "nothing stale afterwards");
}

// ---- Random lock step ----

/// Random legal programs (program::random_legal) for 1M cycles.
#[test]
fn chip_random_legal_programs() {
    let run = Run::from_env("chip_random_legal_programs", 1_000_000);
    let program = program::random_legal(&mut run.rng(), run.cycles as usize);
    assert_lockstep::<MnistNpu>(&run, |_, cycle| program.cycles[cycle as usize].clone(), |_, _| {}).require(&[
        "auto mode",
        "manual mode",
        "IDLE",
        "BIAS",
        "BIAS after ACC",
        "ACC",
        "LAST",
        "WAIT",
        "OUT_IDLE",
        "OUT_S1",
        "OUT_S2",
        "OUT_S3",
        "OUT_S4",
        "OUT_S5",
        "saturate +",
        "saturate -",
        "clamp negative",
        "bypass negative",
        "write",
        "write fills",
        "write when full dropped",
        "read",
        "read when empty ignored",
        "rst_fifo",
        "update from relu1",
        "update from relu2",
        "rst_comp",
        "freeze mid-frame",
        "fifo",
        "piso_out",
        "index",
        "largest msb",
        "largest lsb",
        "piso_deb",
        "ground 110",
        "ground 111",
    ]);
}

/// Random pin activity, legal or not: EN_FSM and EN_CONFIG at any time, N < 4 back to back,
/// RST_GLO in the middle of frames, debug freezes of random length, mode switches.
#[test]
fn chip_random_pin_activity() {
    let run = Run::from_env("chip_random_pin_activity", 1_000_000);
    let (mut auto, mut freeze_left) = (true, 0u32);
    assert_lockstep::<MnistNpu>(
        &run,
        |rng, cycle| {
            // Phases of 5000 cycles with many or few FIFO reads, so the FIFO also fills up.
            let reading = (cycle / 5_000) % 2 == 0;
            if rng.gen_ratio(1, 2_000) {
                auto = !auto;
            }
            if freeze_left == 0 && rng.gen_ratio(1, 300) {
                freeze_left = rng.gen_range(1..30);
            }
            freeze_left = freeze_left.saturating_sub(1);
            In {
                DA: rng.gen(),
                // CTR[15:8] mostly 0, so frames are short and many.
                DB: if rng.gen_ratio(15, 16) { 0 } else { rng.gen_range(0..2) },
                DC: rng.gen(),
                DD: rng.gen_range(0..12),
                EXT_EN_PISO_DEB: freeze_left > 0,
                EXT_CLR_PISO_DEB: rng.gen_ratio(1, 50),
                EXT_SHIFT_DEB: rng.gen_ratio(4, 5),
                RST_GLO: rng.gen_ratio(1, 3_000),
                EN_CONFIG: rng.gen_ratio(1, 400),
                RD_EN: rng.gen_ratio(1, if reading { 3 } else { 200 }),
                EN_FSM: rng.gen_ratio(1, 3),
                SEL_CON: auto,
            }
        },
        |_, _| {},
    )
    .require(&["RST_GLO mid-frame", "freeze mid-frame", "EN_ReLU while busy ignored", "manual mode", "BIAS after ACC", "LAST", "WAIT", "write when full dropped", "read when empty ignored"]);
}

/// After RST_GLO from random power-up state (Verilator --x-initial unique, 8 seeds), every
/// register is defined: a program that shows each output option, dumps the debug chain
/// (SSFR, controls, MACs, input buffer) and computes a frame matches the model exactly.
#[test]
fn chip_reset_defines_every_register() {
    let mut p = Program::default();
    for sel in 0..8 {
        p.configure(Ssfr { sel_out: sel, ..Ssfr::reset() });
        p.idle(1);
    }
    p.debug_dump(&auto_idle(), Ssfr::reset());
    p.read_fifo(2);
    let mut rng = SmallRng::seed_from_u64(8);
    p.frames(&[random_frame(&mut rng, 5, Ssfr { sel_out: sel_out::PISO_OUT, en_comp: true, en_fifo: true, ..Ssfr::default() })]);
    for seed in 1..=8 {
        let run = Run { seed, ..Run::fixed("chip_reset_defines_every_register", p.cycles.len()) };
        assert_lockstep::<MnistNpu>(&run, |_, cycle| p.cycles[cycle as usize].clone(), |_, _| {});
    }
}
