//! The Ethos-U65 command front end (`npu_hdl::ethos::CommandFrontEnd`), Verilated and in lock
//! step with its model every cycle, driven as a driver would (`npu::ethos::front_end`): on
//! Vela-compiled conv layers (the register file at every kernel start equals the host
//! reference `npu::ethos::operation`), on random command streams built from the command
//! table with memory stalls and latencies, and on bad streams, each with its documented
//! STATUS, QREAD and IRQ in bounded cycles; and the registers a driver reads, as the digest
//! gives them. `SEED` repeats a run, `CYCLES` sets the number of
//! layers or streams.
use npu::cosim::lockstep::{Coverage, Run};
use npu::ethos::command_stream::{decode, DriverPayload};
use npu::ethos::conv::random_layer;
use npu::ethos::front_end::{lockstep, Job, Outcome};
use npu::ethos::memory::Timing;
use npu::ethos::operation::{operations, Operation, Registers};
use npu::ethos::tflite::{ConvLayer, TfLite, VelaCore};
use npu_hdl::ethos::command_set::{named, register, register_count, Kind, KERNEL_OPS};
use npu::model::ethos::command_front_end::{BUS_STATUS, CMD_END_REACHED, CMD_PARSE_ERROR, IRQ_RAISED};
use rand::Rng;

/// Runs `job`, panicking with the mismatch report or when the NPU hangs.
fn run(test: &str, seed: u64, job: &Job, coverage: &mut Coverage) -> Outcome {
    let run = Run { test: test.into(), seed, cycles: 0 };
    let (outcome, job_coverage) = lockstep(&run, job).unwrap_or_else(|mismatch| panic!("{mismatch}"));
    coverage.merge(&job_coverage);
    outcome.unwrap_or_else(|| panic!("{test}: SEED={seed}: the NPU did not raise its IRQ (hung)"))
}

/// The register file as the host reference says a kernel sees it, in register-file order.
fn expected_registers(registers: &Registers) -> Vec<u64> {
    (0..register_count())
        .map(|i| {
            let command = register(i).unwrap();
            match command.kind {
                Kind::Cmd0 => u64::from(registers.param(command.name)),
                Kind::Cmd1 => registers.address(command.name),
            }
        })
        .collect()
}

/// Checks the kernels the front end started against the reference's operations of `words`.
fn check_kernels(context: &str, words: &[u32], outcome: &Outcome) {
    let commands = decode(words).unwrap_or_else(|e| panic!("{context}: {e}"));
    let kernels: Vec<_> = operations(&commands).into_iter().filter(|op| KERNEL_OPS.contains(&op.name)).collect();
    assert_eq!(outcome.kernels.len(), kernels.len(), "{context}: kernels started");
    for (k, (got, op)) in outcome.kernels.iter().zip(&kernels).enumerate() {
        assert_eq!(KERNEL_OPS[usize::from(got.op)], op.name, "{context}: kernel {k}");
        assert_eq!(got.mode, op.mode, "{context}: kernel {k} ({}) mode", op.name);
        let expected = expected_registers(&op.registers);
        for (i, (&value, &want)) in got.registers.iter().zip(&expected).enumerate() {
            assert_eq!(
                value,
                want,
                "{context}: kernel {k} ({} at {:#x}): {} is {value:#x} in the register file, the reference says {want:#x}",
                op.name,
                op.offset,
                register(i).unwrap().name
            );
        }
    }
}

/// The memory after the stream's DMAs (1D, external to external, in order: each DMA_START
/// waits for the one before), from the reference's operations and the BASEPs; and the byte
/// ranges they write.
fn after_dmas(words: &[u32], basep: &[u32; 16], memory: &[u8]) -> (Vec<u8>, Vec<std::ops::Range<u64>>) {
    let mut memory = memory.to_vec();
    let mut ranges = Vec::new();
    let base = |region: u16| (u64::from(basep[2 * usize::from(region) + 1] & 0xff) << 32) | u64::from(basep[2 * usize::from(region)]);
    let dmas: Vec<Operation> = operations(&decode(words).unwrap()).into_iter().filter(|op| op.name == "NPU_OP_DMA_START").collect();
    for op in dmas {
        let r = &op.registers;
        let len = r.address("NPU_SET_DMA0_LEN");
        let src = base(r.param("NPU_SET_DMA0_SRC_REGION")) + r.address("NPU_SET_DMA0_SRC");
        let dst = base(r.param("NPU_SET_DMA0_DST_REGION")) + r.address("NPU_SET_DMA0_DST");
        memory.copy_within(src as usize..(src + len) as usize, dst as usize);
        ranges.push(dst..dst + len);
    }
    (memory, ranges)
}

/// The memory after the run equals the reference's, and every byte the NPU wrote is inside a
/// DMA destination range.
fn check_memory(context: &str, job: &Job, outcome: &Outcome) {
    let mut initial = vec![0u8; job.memory_size];
    let stream: Vec<u8> = job.stream.iter().flat_map(|w| w.to_le_bytes()).collect();
    initial[job.qbase as usize..job.qbase as usize + stream.len()].copy_from_slice(&stream);
    for (address, data) in &job.data {
        initial[*address as usize..*address as usize + data.len()].copy_from_slice(data);
    }
    let (expected, ranges) = after_dmas(&job.stream, &job.basep, &initial);
    if let Some(at) = (0..expected.len()).find(|&i| expected[i] != outcome.memory[i]) {
        panic!("{context}: memory differs from the reference at {at:#x}: {:#04x}, expected {:#04x}", outcome.memory[at], expected[at]);
    }
    if let Some(stray) = outcome.written.iter().find(|&&a| !ranges.iter().any(|r| r.contains(&a))) {
        panic!("{context}: the NPU wrote {stray:#x}, outside every DMA destination");
    }
}

/// IRQ history the stream's STOP and IRQ commands set (TRM: STATUS |= mask << 16).
fn history(words: &[u32]) -> u32 {
    decode(words)
        .unwrap()
        .iter()
        .filter(|c| matches!(c.command.name, "NPU_OP_STOP" | "NPU_OP_IRQ"))
        .fold(0, |h, c| h | u32::from(c.param) << 16)
}

/// A stream that ran to its STOP: stopped, IRQ raised with the history, no error bit, QREAD
/// after the STOP; and after the driver's clear, STATUS 0 and the IRQ low.
fn check_stopped(context: &str, words: &[u32], outcome: &Outcome) {
    assert_eq!(outcome.status, history(words) | IRQ_RAISED, "{context}: STATUS after the stream");
    assert_eq!(outcome.qread as usize, 4 * words.len(), "{context}: QREAD after the STOP");
    assert_eq!((outcome.status_cleared, outcome.irq_cleared), (0, false), "{context}: after the driver cleared the IRQ");
}

/// Each layer's command stream and read-only region (weights and scales).
fn compile(layers: &[ConvLayer], core: VelaCore) -> Vec<(Vec<u32>, Vec<u8>)> {
    let oracle = TfLite::in_project(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_or_else(|e| panic!("{e}"));
    oracle
        .compile(layers, core)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|c| (DriverPayload::parse(&c.cmd_data).unwrap_or_else(|e| panic!("{e}")).stream, c.weight_data))
        .collect()
}

/// Region bases of the Vela layers: 0 read-only (weights), 1 scratch, 2 scratch_fast (SRAM),
/// in a 1 MB memory with the stream below them.
const REGIONS: [u64; 3] = [0x1_0000, 0x4_0000, 0x8_0000];

#[test]
fn vela_streams_set_the_registers_each_kernel_sees() {
    let test = "ethos_front_end::vela_streams_set_the_registers_each_kernel_sees";
    let run_info = Run::from_env(test, 6);
    let mut rng = run_info.rng();
    // The first layer drawn until it is not depthwise: a layer is depthwise 35 times in 100,
    // so 6 layers had no NPU_OP_CONV with a chance of 0.35^6, 2e-3.
    let layers: Vec<ConvLayer> = (0..run_info.cycles)
        .map(|i| loop {
            let layer = random_layer(&mut rng);
            if i > 0 || !layer.depthwise {
                break layer;
            }
        })
        .collect();
    let mut coverage = Coverage::default();
    // The default core reads weights in place; the legacy core DMAs them into SRAM.
    let compiled: Vec<_> = VelaCore::ALL.iter().flat_map(|&core| compile(&layers, core).into_iter().map(move |c| (core, c))).collect();
    for (i, (core, (words, weights))) in compiled.into_iter().enumerate() {
        let context = format!("SEED={} layer {} ({} core)", run_info.seed, i % layers.len(), core.name());
        let timing = if i == 0 { Timing::fastest() } else { Timing::random(&mut rng) };
        // QBASE 4-byte aligned, on either half of a 64-bit word.
        let qbase = 0x1000 + 4 * if i < 2 { i as u64 } else { rng.gen_range(0..64u64) };
        let mut job = Job::new(words.clone(), qbase, timing);
        job.memory_size = 1 << 20;
        for (region, &base) in REGIONS.iter().enumerate() {
            job.basep[2 * region] = base as u32;
        }
        job.data = vec![(REGIONS[0], weights)];
        let outcome = run(test, run_info.seed.wrapping_add(i as u64), &job, &mut coverage);
        check_kernels(&context, &words, &outcome);
        check_stopped(&context, &words, &outcome);
        check_memory(&context, &job, &outcome);
        coverage.hit(if qbase % 8 == 0 { "QBASE 8-byte aligned" } else { "QBASE on an odd word" });
        eprintln!(
            "{context}: {} words, {} kernels, {} bytes DMA'd, {} cycles",
            words.len(),
            outcome.kernels.len(),
            outcome.written.len(),
            outcome.cycles
        );
    }
    eprintln!("coverage:\n{coverage}");
    coverage.require(&[
        "NPU_OP_CONV",
        "NPU_OP_STOP",
        "NPU_OP_DMA_START",
        "NPU_OP_DMA_WAIT",
        "DMA done",
        "SET cmd0",
        "SET cmd1",
        "payload",
        "QBASE on an odd word",
        "QBASE 8-byte aligned",
    ]);
}

/// The BASEPs of the random streams: region r at 0x2000 + 0x1000 r (plus a few bytes), the odd
/// BASEPs' bits 31:8 (not part of the address) random.
fn random_basep(rng: &mut impl Rng) -> [u32; 16] {
    std::array::from_fn(|k| if k % 2 == 0 { 0x2000 + 0x1000 * (k as u32 / 2) + rng.gen_range(0..64) } else { rng.gen::<u32>() & !0xff })
}

/// A 1D DMA of up to 64 bytes (sometimes none) at any alignment, from regions 0-3 to
/// regions 4-7 (so no DMA reads what another wrote), with its registers set just before.
fn random_dma(rng: &mut impl Rng, words: &mut Vec<u32>) {
    let set = |words: &mut Vec<u32>, name: &str, value: u64| {
        let command = named(name).unwrap();
        match command.kind {
            Kind::Cmd0 => words.push(command.word(value as u16)),
            Kind::Cmd1 => words.extend([command.word((value >> 32) as u16), value as u32]),
        }
    };
    set(words, "NPU_SET_DMA0_SRC_REGION", rng.gen_range(0..4));
    set(words, "NPU_SET_DMA0_DST_REGION", rng.gen_range(4..8));
    set(words, "NPU_SET_DMA0_SRC", rng.gen_range(0..0x800));
    set(words, "NPU_SET_DMA0_DST", rng.gen_range(0..0x800));
    set(words, "NPU_SET_DMA0_LEN", if rng.gen_range(0..8) == 0 { 0 } else { rng.gen_range(1..=64) });
    words.push(named("NPU_OP_DMA_START").unwrap().word(0));
}

/// A random stream from the command table: SETs of random values, kernels of every kind, DMAs,
/// IRQs, waits, PMU_MASK, then STOP.
fn random_stream(rng: &mut impl Rng) -> Vec<u32> {
    let sets: Vec<_> = (0..register_count()).map(|i| register(i).unwrap()).collect();
    let mut words = Vec::new();
    for _ in 0..rng.gen_range(1..60) {
        match rng.gen_range(0..20) {
            0 => words.push(named("NPU_OP_IRQ").unwrap().word(rng.gen())),
            1 | 2 => words.push(named(KERNEL_OPS[rng.gen_range(0..4)]).unwrap().word(rng.gen_range(0..10))),
            3 => words.push(named("NPU_OP_KERNEL_WAIT").unwrap().word(rng.gen_range(0..2))),
            4 => words.push(named("NPU_OP_DMA_WAIT").unwrap().word(rng.gen_range(0..2))),
            5 => words.push(named("NPU_OP_PMU_MASK").unwrap().word(rng.gen_range(0..2))),
            6 | 7 => random_dma(rng, &mut words),
            _ => {
                let set = sets[rng.gen_range(0..sets.len())];
                words.push(set.word(rng.gen()));
                if set.kind == Kind::Cmd1 {
                    words.push(rng.gen());
                }
            }
        }
    }
    words.push(named("NPU_OP_STOP").unwrap().word(rng.gen()));
    words
}

#[test]
fn random_streams_with_stalls() {
    let test = "ethos_front_end::random_streams_with_stalls";
    let run_info = Run::from_env(test, 60);
    let mut rng = run_info.rng();
    let mut coverage = Coverage::default();
    for i in 0..run_info.cycles {
        let words = random_stream(&mut rng);
        let context = format!("SEED={} stream {i}", run_info.seed);
        let mut job = Job::new(words.clone(), 4 * rng.gen_range(0..1024u64), Timing::random(&mut rng));
        // The bench holds the front end for ~90 cycles at each kernel start (the register
        // read): longer latencies make later commands wait for the kernel.
        job.kernel_latency = 1..=rng.gen_range(1..=300);
        job.basep = random_basep(&mut rng);
        let outcome = run(test, run_info.seed.wrapping_add(i), &job, &mut coverage);
        check_kernels(&context, &words, &outcome);
        check_stopped(&context, &words, &outcome);
        check_memory(&context, &job, &outcome);
    }
    eprintln!("{} streams; coverage:\n{coverage}", run_info.cycles);
    let mut required = vec![
        "SET cmd0",
        "SET cmd1",
        "payload",
        "NPU_OP_IRQ",
        "NPU_OP_STOP",
        "NPU_OP_KERNEL_WAIT",
        "NPU_OP_DMA_WAIT",
        "NPU_OP_PMU_MASK",
        "NPU_OP_DMA_START",
        "DMA base",
        "DMA addresses",
        "DMA of 0 bytes",
        "DMA read",
        "DMA data",
        "DMA write",
        "DMA write stalled",
        "DMA step",
        "DMA done",
        "wait for DMA",
        "wait for kernel or DMA",
        "wait for kernel",
        "held",
        "kernel done",
        "fetch request",
        "fetch wait",
        "fetch stalled",
        "fetch data",
        "clear",
        "start",
        "stopped",
        "APB read",
        "APB write",
        "APB write BASEP",
        "bench: address stalled",
    ];
    required.extend(KERNEL_OPS);
    coverage.require(&required);
}

/// One bad job: its STATUS (error bits and IRQ; running 0), QREAD, and bounded cycles.
fn expect_error(test: &str, seed: u64, job: &Job, status: u32, qread: usize, coverage: &mut Coverage) {
    let outcome = run(test, seed, job, coverage);
    assert_eq!(
        (outcome.status & 0xffff, outcome.qread),
        (status | IRQ_RAISED, qread as u32),
        "{test}: STATUS low half and QREAD (expected {:#x}, {qread:#x})",
        status | IRQ_RAISED
    );
}

#[test]
fn bad_streams_stop_with_their_status() {
    let test = "ethos_front_end::bad_streams_stop_with_their_status";
    let run_info = Run::from_env(test, 4);
    let mut rng = run_info.rng();
    let mut coverage = Coverage::default();
    let set0 = named("NPU_SET_IFM_DEPTH_M1").unwrap().word(7);
    let set1 = named("NPU_SET_IFM_BASE0").unwrap().word(0);
    let conv = named("NPU_OP_CONV").unwrap().word(0);
    let stop = named("NPU_OP_STOP").unwrap().word(0xffff);
    for round in 0..run_info.cycles {
        let seed = run_info.seed.wrapping_add(round);
        let timing = Timing::random(&mut rng);
        let qbase = 0x100 + 4 * rng.gen_range(0..16u64);
        let job = |words: Vec<u32>| Job::new(words, qbase, timing.clone());
        // A stream that ends without STOP: cmd_end_reached, QREAD = QSIZE.
        expect_error(test, seed, &job(vec![set0, set1, 5, conv]), CMD_END_REACHED, 16, &mut coverage);
        // An unknown opcode (cmd0 0x004) and reserved control bits, after two good commands.
        expect_error(test, seed, &job(vec![set0, set1, 5, 0x0004, stop]), CMD_PARSE_ERROR, 12, &mut coverage);
        expect_error(test, seed, &job(vec![set0, conv | 0x0400, stop]), CMD_PARSE_ERROR, 4, &mut coverage);
        // A cmd1 whose payload is cut by QSIZE.
        let mut cut = job(vec![set0, set1, 5, stop]);
        cut.qsize = 8;
        expect_error(test, seed, &cut, CMD_PARSE_ERROR, 4, &mut coverage);
        // DMA_START with a field this NPU does not do (an internal destination): refused.
        let dma_start = named("NPU_OP_DMA_START").unwrap().word(0);
        let internal = named("NPU_SET_DMA0_DST_REGION").unwrap().word(0x100);
        expect_error(test, seed, &job(vec![internal, dma_start, stop]), CMD_PARSE_ERROR, 4, &mut coverage);
        // DMAs that read or write beyond the memory: bus_status with the mem2mem channel,
        // nothing written outside the destination.
        let len = named("NPU_SET_DMA0_LEN").unwrap();
        let dst = named("NPU_SET_DMA0_DST").unwrap();
        let src = named("NPU_SET_DMA0_SRC").unwrap();
        let beyond = |offset: &npu_hdl::ethos::command_set::Command| vec![len.word(0), 24, offset.word(0), 0xfff0, dma_start, stop];
        let read_beyond = job(beyond(src));
        // QREAD: the STOP, which waits for the DMA (the error comes while it waits).
        expect_error(test, seed, &read_beyond, BUS_STATUS | (4 << 12), 20, &mut coverage);
        let outcome = run(test, seed, &job(beyond(dst)), &mut coverage);
        assert_eq!(outcome.status & 0xffff, BUS_STATUS | IRQ_RAISED | (9 << 12), "{test}: DMA write beyond memory");
        assert!(outcome.written.iter().all(|&a| (0xfff0..0xfff0 + 24).contains(&a)), "{test}: stray write");
        // A stream that runs off the end of memory: the fetch's bus error, channel 0 (command).
        let mut off = job(vec![set0, set0]);
        off.qbase = 0x1_0000 - 8;
        off.qsize = 48;
        expect_error(test, seed, &off, BUS_STATUS, 8, &mut coverage);
        // A queue above 4 GB (QBASE1 = 0x5a, its 8 bits): the first fetch goes there, beyond
        // the memory, so a bus error with QREAD 0; read back before the start, QBASE1 is
        // 0x5a. Killed the mutant (issue 21) whose QBASE1 held 0 outside reset: it fetched
        // from 0x100, where the lock step saw the address differ.
        let mut high = job(vec![]);
        high.qbase = (0x5a << 32) | 0x100;
        high.qsize = 8;
        high.probes = vec![npu::model::ethos::command_front_end::QBASE0, npu::model::ethos::command_front_end::QBASE1];
        let outcome = run(test, seed, &high, &mut coverage);
        assert_eq!(outcome.probed, [0x100, 0x5a], "{test}: QBASE0, QBASE1 read back");
        assert_eq!((outcome.status & 0xffff, outcome.qread), (BUS_STATUS | IRQ_RAISED, 0), "{test}: queue above 4 GB");
        // A DMA to a region whose base has all of address bits 32-39 set (its BASEP high word
        // 0xff; random BASEPs keep them 0): the write goes above the memory, a bus error of
        // the mem2mem channel, nothing written. Killed the mutant (issue 21) whose DMA
        // destination base held bit 37 at 0: the lock step saw the write address differ.
        let to_region_1 = named("NPU_SET_DMA0_DST_REGION").unwrap().word(1);
        let mut high_dst = job(vec![to_region_1, len.word(0), 24, dst.word(0), 0x100, dma_start, stop]);
        high_dst.basep[3] = 0xff;
        let outcome = run(test, seed, &high_dst, &mut coverage);
        assert_eq!(outcome.status & 0xffff, BUS_STATUS | IRQ_RAISED | (9 << 12), "{test}: DMA write above 4 GB");
        assert!(outcome.written.is_empty(), "{test}: DMA write above 4 GB wrote {:?}", outcome.written);
        // A kernel that reports an error (weights channel, 2): bus_status with that channel.
        let mut failing = job(vec![set0, conv, set0, conv, stop]);
        failing.kernel_errors = vec![0, 2];
        let outcome = run(test, seed, &failing, &mut coverage);
        assert_eq!(outcome.status & 0xffff, BUS_STATUS | IRQ_RAISED | (2 << 12), "{test}: kernel error");
        assert_eq!(outcome.kernels.len(), 2);
    }
    eprintln!("coverage:\n{coverage}");
    coverage.require(&[
        "error: end of stream without STOP",
        "error: reserved command",
        "error: cmd1 without payload",
        "error: DMA region or length unsupported",
        "error: DMA read bus error",
        "error: DMA write bus error",
        "error: fetch bus error",
        "error: kernel",
    ]);
}

#[test]
fn registers_read_as_the_digest_says() {
    use npu::model::ethos::command_front_end::{BASEP0, CMD, CONFIG, ID, QBASE0, QBASE1, QREAD, QSIZE, STATUS};
    let test = "ethos_front_end::registers_read_as_the_digest_says";
    let run_info = Run::from_env(test, 4);
    let mut rng = run_info.rng();
    let mut coverage = Coverage::default();
    let stop = named("NPU_OP_STOP").unwrap().word(1);
    for round in 0..run_info.cycles {
        let mut job = Job::new(vec![stop], 4 * rng.gen_range(0..1024u64), Timing::random(&mut rng));
        job.basep = std::array::from_fn(|_| rng.gen());
        // Unlisted offsets (PROT, LOCK, PMCR, CID3) and a misaligned one read 0.
        let others = [0x024, 0x02c, 0x180, 0xffc, 0x012, 0x081];
        job.probes = [ID, STATUS, CMD, QBASE0, QBASE1, QREAD, QSIZE, CONFIG].to_vec();
        job.probes.extend((0..16).map(|k| BASEP0 + 4 * k));
        job.probes.extend(others);
        let outcome = run(test, run_info.seed.wrapping_add(round), &job, &mut coverage);
        let mut expected = vec![
            0x1006_6001,  // ID (digest §4)
            0,            // STATUS: stopped, reset done, nothing raised
            0xc,          // CMD's reset value
            job.qbase as u32,
            0,
            0,
            job.qsize,
            0x1000_3008, // CONFIG of ethos-u65-256
        ];
        expected.extend(job.basep);
        expected.extend([0; 6]);
        assert_eq!(outcome.probed, expected, "{test}: SEED={} round {round}", run_info.seed);
        assert_eq!(outcome.status, (1 << 16) | IRQ_RAISED);
    }
}
