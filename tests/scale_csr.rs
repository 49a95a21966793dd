//! ScaleNPU CSR block (seeds/004): random AXI4-Lite traffic in lock step with the model,
//! directed register tests through a small AXI4-Lite master on the Verilated block (expected
//! values are the seed's, written here as literals), and the generated C header.
use npu::cosim::lockstep::{drive, Run};
use npu::cosim::tops::scale_csr::ScaleCsr;
use npu::cosim::{Dut, DutOptions};
use npu::model::scale::csr::{Csr as Model, In, Out};
use npu::model::Block;
use rand::{rngs::SmallRng, Rng};
use std::cell::RefCell;
use std::process::Command;

const OKAY: u8 = 0b00;
const SLVERR: u8 = 0b10;
const DECERR: u8 = 0b11;

/// The seed's registers: (name, offset).
const MAP: [(&str, u8); 18] = [
    ("ARCHID", 0x00),
    ("IMPID", 0x04),
    ("INROWS", 0x08),
    ("INCOLS", 0x0C),
    ("WGHTROWS", 0x10),
    ("WGHTCOLS", 0x14),
    ("REINPUTS", 0x18),
    ("REWEIGHTS", 0x1C),
    ("SAVEOUT", 0x20),
    ("USEBIAS", 0x24),
    ("USESUMM", 0x28),
    ("SHIFTAMT", 0x2C),
    ("ACTFN", 0x30),
    ("BASE", 0x34),
    ("RESULT", 0x38),
    ("INIT", 0x3C),
    ("IRQ", 0x40),
    ("EXITCODE", 0x44),
];

// ---------------------------------------------------------------------------------------
// Random lock step.

/// One write or read the random master is trying to complete.
#[derive(Clone, Copy, Default)]
struct Pending {
    addr: u8,
    data: u32,
    strb: u8,
    /// Channel valid raised (AXI: once raised, kept until the handshake); a read uses
    /// `aw_up` for ARVALID.
    aw_up: bool,
    w_up: bool,
    active: bool,
}

/// The random master and a stand-in datapath, shared by the stimulus and the per-cycle check.
#[derive(Default)]
struct Bench {
    write: Pending,
    read: Pending,
    /// Cycles the stand-in datapath still runs (busy while > 0), and whether a start was seen.
    running: u32,
    started: bool,
    aborted: bool,
}

fn random_addr(rng: &mut SmallRng) -> u8 {
    match rng.gen_range(0..20) {
        // INIT and IRQ more often: starts, clears, and clears meeting a finish.
        0..=2 => 0x3C,
        3..=5 => 0x40,
        6..=14 => MAP[rng.gen_range(0..MAP.len())].1,
        15..=16 => rng.gen_range(0x12..0x40u8) * 4, // unmapped, aligned
        17..=18 => rng.gen::<u8>() | rng.gen_range(1..4u8), // misaligned
        _ => rng.gen(),
    }
}

fn random_data(rng: &mut SmallRng) -> u32 {
    match rng.gen_range(0..6) {
        0 => u32::MAX,
        1 => 0,
        2 => 1,
        _ => rng.gen(),
    }
}

fn random_strobe(rng: &mut SmallRng) -> u8 {
    if rng.gen_ratio(1, 2) {
        0xF
    } else {
        rng.gen_range(0..16)
    }
}

impl Bench {
    fn input(&mut self, rng: &mut SmallRng) -> In {
        if !self.write.active && rng.gen_ratio(1, 2) {
            self.write = Pending {
                addr: random_addr(rng),
                data: random_data(rng),
                strb: random_strobe(rng),
                active: true,
                ..Pending::default()
            };
        }
        if !self.read.active && rng.gen_ratio(1, 2) {
            self.read = Pending {
                addr: random_addr(rng),
                active: true,
                ..Pending::default()
            };
        }
        // Valids: AW and W together mostly, sometimes one before the other.
        if self.write.active {
            let both = rng.gen_ratio(3, 4);
            self.write.aw_up |= rng.gen_ratio(1, 2) || (both && self.write.w_up);
            self.write.w_up |= (both && self.write.aw_up) || rng.gen_ratio(1, 3);
        }
        if self.read.active {
            self.read.aw_up |= rng.gen_ratio(2, 3);
        }
        // Stand-in datapath: a start runs a layer of a few cycles that ends with finish and
        // an exit code; an abort ends it without; rarely a finish out of nowhere.
        let mut finish = rng.gen_ratio(1, 400);
        if std::mem::take(&mut self.started) {
            self.running = rng.gen_range(1..40);
        } else if std::mem::take(&mut self.aborted) && rng.gen_ratio(1, 2) {
            self.running = 0;
        } else if self.running > 0 {
            self.running -= 1;
            finish |= self.running == 0;
        }
        In {
            reset: rng.gen_ratio(1, 20_000),
            awvalid: self.write.aw_up,
            awaddr: if self.write.active {
                self.write.addr
            } else {
                rng.gen()
            },
            wvalid: self.write.w_up,
            wdata: if self.write.active {
                self.write.data
            } else {
                rng.gen()
            },
            wstrb: if self.write.active {
                self.write.strb
            } else {
                rng.gen_range(0..16)
            },
            bready: rng.gen_ratio(2, 3),
            arvalid: self.read.aw_up,
            araddr: if self.read.active {
                self.read.addr
            } else {
                rng.gen()
            },
            rready: rng.gen_ratio(2, 3),
            busy: self.running > 0 || rng.gen_ratio(1, 100),
            finish,
            exit_code: rng.gen_range(0..4),
        }
    }

    fn observe(&mut self, i: &In, o: &Out) {
        if i.reset {
            *self = Bench::default();
            return;
        }
        if i.awvalid && i.wvalid && o.awready {
            assert!(o.wready, "awready without wready");
            self.write = Pending::default();
        }
        if i.arvalid && o.arready {
            self.read = Pending::default();
        }
        self.started |= o.start;
        self.aborted |= o.abort_layer;
    }
}

#[test]
fn scale_csr_random_lockstep() {
    let run = Run::from_env("scale_csr_random_lockstep", 300_000);
    let bench = RefCell::new(Bench::default());
    let coverage = drive::<ScaleCsr>(
        &run,
        |rng, _| bench.borrow_mut().input(rng),
        |i, o, cov| {
            bench.borrow_mut().observe(i, o);
            if o.start {
                cov.hit("start pulse");
            }
            if o.abort_layer {
                cov.hit("abort pulse");
            }
            true
        },
    )
    .unwrap_or_else(|m| panic!("{m}"));
    eprintln!(
        "{}: {} cycles match; coverage:\n{coverage}",
        run.test, run.cycles
    );
    let mut required: Vec<String> = MAP
        .iter()
        .flat_map(|(name, _)| [format!("read {name}"), format!("write {name}")])
        .collect();
    required.extend(
        [
            "reset",
            "read slverr misaligned",
            "read decerr",
            "write slverr misaligned",
            "write decerr",
            "write ignored busy",
            "write ignored read-only",
            "abort",
            "abort pulse",
            "start",
            "start pulse",
            "init without start",
            "irq set",
            "irq clear",
            "irq set and clear",
            "irq write 0 kept",
            "finish",
            "exitcode cleared by start",
            "strobe partial",
            "strobe none",
            "write and read",
            "aw and w apart",
            "b stall",
            "r stall",
        ]
        .map(String::from),
    );
    coverage.require(&required.iter().map(String::as_str).collect::<Vec<_>>());
}

// ---------------------------------------------------------------------------------------
// Directed tests through a small AXI4-Lite master, the model checked alongside every cycle.

struct Bus {
    dut: ScaleCsr,
    model: Model,
    /// Datapath inputs, kept between cycles; `finish` is cleared after each cycle.
    busy: bool,
    finish: Option<u8>,
    out: Out,
    starts: usize,
    aborts: usize,
}

impl Bus {
    fn new() -> Self {
        let mut dut = ScaleCsr::open(&DutOptions::from_env(7));
        let mut model = Model::default();
        let reset = Model::reset_input().unwrap();
        let out = dut.step(&reset);
        model.step(&reset);
        let mut bus = Bus {
            dut,
            model,
            busy: false,
            finish: None,
            out,
            starts: 0,
            aborts: 0,
        };
        bus.step(In::default());
        bus
    }

    /// One cycle with `i` plus the datapath inputs; checks the model agrees.
    fn step(&mut self, mut i: In) -> Out {
        i.busy = self.busy;
        if let Some(code) = self.finish.take() {
            i.finish = true;
            i.exit_code = code;
        }
        let out = self.dut.step(&i);
        assert_eq!(
            out,
            self.model.step(&i),
            "Verilog and model differ, inputs {i:?}"
        );
        self.starts += usize::from(out.start);
        self.aborts += usize::from(out.abort_layer);
        self.out = out.clone();
        out
    }

    /// A write; returns the response. Cycle 1 is the handshake (`finish_then`: the datapath's
    /// finish with that exit code in the same cycle), cycle 2 takes the response.
    fn write_with(&mut self, addr: u8, data: u32, strb: u8, finish_then: Option<u8>) -> u8 {
        let (starts, aborts) = (self.starts, self.aborts);
        self.finish = finish_then;
        let hs = self.step(In {
            awvalid: true,
            wvalid: true,
            awaddr: addr,
            wdata: data,
            wstrb: strb,
            ..In::default()
        });
        assert!(
            hs.awready && hs.wready && !hs.bvalid,
            "write not taken at once: {hs:?}"
        );
        assert_eq!(
            (self.starts, self.aborts),
            (starts, aborts),
            "start/abort must not appear in the handshake cycle"
        );
        let b = self.step(In {
            bready: true,
            ..In::default()
        });
        assert!(
            b.bvalid,
            "bvalid must follow the handshake in the next cycle"
        );
        assert!(!b.awready, "no write taken while B is pending");
        b.bresp
    }

    fn write(&mut self, addr: u8, data: u32, strb: u8) -> u8 {
        self.write_with(addr, data, strb, None)
    }

    /// A read; returns (rdata, rresp).
    fn read(&mut self, addr: u8) -> (u32, u8) {
        let hs = self.step(In {
            arvalid: true,
            araddr: addr,
            ..In::default()
        });
        assert!(hs.arready && !hs.rvalid, "read not taken at once: {hs:?}");
        let r = self.step(In {
            rready: true,
            ..In::default()
        });
        assert!(
            r.rvalid && !r.arready,
            "rvalid must follow the handshake in the next cycle"
        );
        (r.rdata, r.rresp)
    }

    fn read_ok(&mut self, addr: u8) -> u32 {
        let (data, resp) = self.read(addr);
        assert_eq!(resp, OKAY, "read 0x{addr:02X}");
        data
    }

    fn all_registers(&mut self) -> Vec<u32> {
        MAP.iter().map(|&(_, a)| self.read_ok(a)).collect()
    }

    /// The datapath's finish pulse with `code`, then an idle cycle (whose outputs show it).
    fn finish_layer(&mut self, code: u8) {
        self.finish = Some(code);
        self.step(In::default());
        self.step(In::default());
    }
}

/// The rw registers: (offset, bits of the field, the port that shows it).
fn rw_registers() -> Vec<(u8, u32, fn(&Out) -> u32)> {
    vec![
        (0x08, 0xFF, |o| o.inrows.into()),
        (0x0C, 0xFF, |o| o.incols.into()),
        (0x10, 0xFF, |o| o.wghtrows.into()),
        (0x14, 0xFF, |o| o.wghtcols.into()),
        (0x18, 0x1, |o| o.reinputs.into()),
        (0x1C, 0x1, |o| o.reweights.into()),
        (0x20, 0x1, |o| o.saveout.into()),
        (0x24, 0x1, |o| o.usebias.into()),
        (0x28, 0x1, |o| o.usesumm.into()),
        (0x2C, 0xFF, |o| o.shiftamt.into()),
        (0x30, 0x1, |o| o.actfn.into()),
        (0x34, 0xFFFF_FFFF, |o| o.base),
        (0x38, 0xFFFF_FFFF, |o| o.result),
    ]
}

#[test]
fn scale_csr_reset_values_are_the_seeds() {
    let mut bus = Bus::new();
    // seeds/004: ARCHID 0xB00B, IMPID 0x100; the rest (no reset given) 0 by decision.
    let expected = [
        0xB00B, 0x100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    assert_eq!(bus.all_registers(), expected);
    let o = bus.out.clone();
    assert!(!o.start && !o.abort_layer && !o.irq && !o.bvalid);
    for (_, _, port) in rw_registers() {
        assert_eq!(port(&o), 0);
    }
}

#[test]
fn scale_csr_rw_registers_read_back_their_field_bits() {
    let mut bus = Bus::new();
    for (addr, mask, port) in rw_registers() {
        for value in [0xFFFF_FFFF, 0xA5C3_5A3C, 0x5A3C_A5C3, 0] {
            assert_eq!(bus.write(addr, value, 0xF), OKAY);
            assert_eq!(
                bus.read_ok(addr),
                value & mask,
                "0x{addr:02X} after writing 0x{value:08X}"
            );
            assert_eq!(port(&bus.out), value & mask, "port of 0x{addr:02X}");
        }
        bus.write(addr, 0xFFFF_FFFF, 0xF);
    }
    // Each register kept its own value: all ones in the field.
    let all = bus.all_registers();
    for (addr, mask, _) in rw_registers() {
        assert_eq!(all[usize::from(addr / 4)], mask);
    }
}

#[test]
fn scale_csr_read_only_registers_ignore_writes() {
    let mut bus = Bus::new();
    bus.finish_layer(0b01);
    for addr in [0x00, 0x04, 0x44] {
        assert_eq!(bus.write(addr, 0xFFFF_FFFF, 0xF), OKAY);
        assert_eq!(bus.write(addr, 0, 0xF), OKAY);
    }
    assert_eq!(
        (bus.read_ok(0x00), bus.read_ok(0x04), bus.read_ok(0x44)),
        (0xB00B, 0x100, 0b01)
    );
}

#[test]
fn scale_csr_init_reads_0_and_starts_once() {
    let mut bus = Bus::new();
    assert_eq!(bus.read_ok(0x3C), 0);
    // Writes that do not start: bit 0 clear, or its byte not strobed.
    for (data, strb) in [(0, 0xF), (0xFFFF_FFFE, 0xF), (1, 0b1110), (1, 0)] {
        assert_eq!(bus.write(0x3C, data, strb), OKAY);
    }
    assert_eq!(bus.starts, 0);
    // The start: in the cycle after the handshake (the write's response cycle), one cycle.
    bus.step(In {
        awvalid: true,
        wvalid: true,
        awaddr: 0x3C,
        wdata: 1,
        wstrb: 1,
        ..In::default()
    });
    let b = bus.step(In {
        bready: true,
        ..In::default()
    });
    assert!(b.start && b.bvalid && b.bresp == OKAY, "{b:?}");
    assert!(!bus.step(In::default()).start);
    assert_eq!(bus.starts, 1);
    assert_eq!(bus.read_ok(0x3C), 0);
    for _ in 0..5 {
        bus.step(In::default());
    }
    assert_eq!(bus.starts, 1);
}

#[test]
fn scale_csr_irq_is_set_by_finish_and_cleared_by_writing_1() {
    let mut bus = Bus::new();
    assert!(!bus.out.irq);
    bus.finish_layer(0b01);
    assert!(bus.out.irq);
    assert_eq!(bus.read_ok(0x40), 1);
    // Write 0 keeps it; a 1 in an unstrobed byte keeps it; a 1 in bit 0 clears it.
    assert_eq!(bus.write(0x40, 0, 0xF), OKAY);
    assert_eq!(bus.write(0x40, 1, 0b1110), OKAY);
    assert_eq!(bus.write(0x40, 0xFFFF_FFFE, 0xF), OKAY);
    assert_eq!(bus.read_ok(0x40), 1);
    assert_eq!(bus.write(0x40, 1, 0x1), OKAY);
    assert!(!bus.out.irq);
    assert_eq!(bus.read_ok(0x40), 0);
    // Clearing and a finish in the same cycle: set wins.
    assert_eq!(bus.write_with(0x40, 1, 0xF, Some(0b10)), OKAY);
    assert!(bus.out.irq);
    assert_eq!(bus.read_ok(0x40), 1);
}

#[test]
fn scale_csr_exitcode_follows_finish_and_start_clears_it() {
    let mut bus = Bus::new();
    assert_eq!(bus.read_ok(0x44), 0); // UNUSED
    for code in [0b01, 0b10, 0b11] {
        bus.write(0x3C, 1, 0xF);
        assert_eq!(bus.starts, 1);
        assert_eq!(bus.read_ok(0x44), 0, "start sets UNUSED");
        bus.busy = true;
        assert_eq!(bus.read_ok(0x44), 0, "a poll during the layer reads UNUSED");
        bus.finish_layer(code);
        bus.busy = false;
        assert_eq!(bus.read_ok(0x44), u32::from(code));
        assert_eq!(bus.read_ok(0x40), 1);
        bus.write(0x40, 1, 0xF);
        bus.starts = 0;
    }
}

#[test]
fn scale_csr_unmapped_is_decerr_and_misaligned_is_slverr_without_effect() {
    let mut bus = Bus::new();
    bus.write(0x08, 0x12, 0xF);
    bus.write(0x34, 0x1234_5678, 0xF);
    let before = bus.all_registers();
    for addr in [0x48, 0x4C, 0x80, 0xFC] {
        assert_eq!(
            bus.write(addr, 0xFFFF_FFFF, 0xF),
            DECERR,
            "write 0x{addr:02X}"
        );
        assert_eq!(bus.read(addr), (0, DECERR), "read 0x{addr:02X}");
    }
    for addr in [0x01, 0x09, 0x0A, 0x0B, 0x35, 0x3D, 0x41, 0x49, 0xFF] {
        assert_eq!(
            bus.write(addr, 0xFFFF_FFFF, 0xF),
            SLVERR,
            "write 0x{addr:02X}"
        );
        assert_eq!(bus.read(addr), (0, SLVERR), "read 0x{addr:02X}");
    }
    assert_eq!(bus.all_registers(), before);
    assert_eq!(
        (bus.starts, bus.aborts, bus.out.irq),
        (0, 0, false),
        "a misaligned INIT or IRQ write does nothing"
    );
}

#[test]
fn scale_csr_write_while_busy_is_slverr_and_aborts() {
    let mut bus = Bus::new();
    for (addr, _, _) in rw_registers() {
        bus.write(addr, 0x0000_0001, 0xF);
    }
    let before = bus.all_registers();
    bus.busy = true;
    // Every register from INROWS (0x08) to INIT (0x3C): refused, one abort pulse, in the
    // cycle after the handshake.
    for addr in (0x08..=0x3C).step_by(4) {
        let aborts = bus.aborts;
        bus.step(In {
            awvalid: true,
            wvalid: true,
            awaddr: addr,
            wdata: 0xFFFF_FFFF,
            wstrb: 0xF,
            ..In::default()
        });
        let b = bus.step(In {
            bready: true,
            ..In::default()
        });
        assert!(
            b.abort_layer && b.bvalid && b.bresp == SLVERR,
            "0x{addr:02X}: {b:?}"
        );
        assert!(!bus.step(In::default()).abort_layer);
        assert_eq!(bus.aborts, aborts + 1);
    }
    assert_eq!(bus.starts, 0, "INIT refused while busy");
    // Reads work while busy; nothing changed.
    assert_eq!(bus.all_registers(), before);
    // Outside the protected range: as when idle, no abort.
    assert_eq!(bus.write(0x00, 0xFFFF_FFFF, 0xF), OKAY);
    assert_eq!(bus.write(0x44, 0xFFFF_FFFF, 0xF), OKAY);
    assert_eq!(bus.write(0x48, 0xFFFF_FFFF, 0xF), DECERR);
    assert_eq!(bus.write(0x09, 0xFFFF_FFFF, 0xF), SLVERR);
    bus.finish_layer(0b01);
    assert_eq!(bus.write(0x40, 1, 0xF), OKAY);
    assert_eq!(bus.read_ok(0x40), 0);
    assert_eq!(bus.aborts, 14);
    bus.busy = false;
    assert_eq!(bus.write(0x08, 0xFFFF_FFFF, 0xF), OKAY);
    assert_eq!(bus.read_ok(0x08), 0xFF);
}

#[test]
fn scale_csr_partial_strobes_change_only_their_bytes() {
    let mut bus = Bus::new();
    bus.write(0x34, 0x1122_3344, 0xF);
    assert_eq!(bus.write(0x34, 0xAABB_CCDD, 0b0101), OKAY);
    assert_eq!(bus.read_ok(0x34), 0x11BB_33DD);
    assert_eq!(bus.write(0x34, 0xAABB_CCDD, 0b1010), OKAY);
    assert_eq!(bus.read_ok(0x34), 0xAABB_CCDD);
    assert_eq!(bus.write(0x34, 0, 0), OKAY);
    assert_eq!(bus.read_ok(0x34), 0xAABB_CCDD);
    assert_eq!(bus.write(0x38, 0xDEAD_BEEF, 0b1000), OKAY);
    assert_eq!(bus.read_ok(0x38), 0xDE00_0000);
    // 8-bit and 1-bit fields live in byte 0.
    assert_eq!(bus.write(0x08, 0x1234_5678, 0b1110), OKAY);
    assert_eq!(bus.read_ok(0x08), 0);
    assert_eq!(bus.write(0x08, 0x1234_5678, 0b0001), OKAY);
    assert_eq!(bus.read_ok(0x08), 0x78);
    assert_eq!(bus.write(0x30, 0xFFFF_FFFF, 0b1110), OKAY);
    assert_eq!(bus.read_ok(0x30), 0);
}

#[test]
fn scale_csr_handshake_timing() {
    let mut bus = Bus::new();
    // AW without W (and W without AW): not taken.
    for (aw, w) in [(true, false), (false, true)] {
        let o = bus.step(In {
            awvalid: aw,
            wvalid: w,
            awaddr: 0x08,
            wdata: 5,
            wstrb: 0xF,
            ..In::default()
        });
        assert!(!o.awready && !o.wready);
    }
    assert_eq!(bus.read_ok(0x08), 0);
    // B held until bready; no second write taken meanwhile.
    bus.step(In {
        awvalid: true,
        wvalid: true,
        awaddr: 0x08,
        wdata: 5,
        wstrb: 0xF,
        ..In::default()
    });
    for _ in 0..3 {
        let o = bus.step(In {
            awvalid: true,
            wvalid: true,
            awaddr: 0x0C,
            wdata: 6,
            wstrb: 0xF,
            ..In::default()
        });
        assert!(o.bvalid && !o.awready && !o.wready);
    }
    assert!(
        bus.step(In {
            bready: true,
            ..In::default()
        })
        .bvalid
    );
    assert!(!bus.step(In::default()).bvalid);
    // R held until rready; arready low meanwhile.
    bus.step(In {
        arvalid: true,
        araddr: 0x08,
        ..In::default()
    });
    for _ in 0..3 {
        let o = bus.step(In {
            arvalid: true,
            araddr: 0x0C,
            ..In::default()
        });
        assert!(o.rvalid && !o.arready && o.rdata == 5);
    }
    let o = bus.step(In {
        rready: true,
        ..In::default()
    });
    assert!(o.rvalid && o.rdata == 5);
    assert!(bus.step(In::default()).arready);
    assert_eq!(
        bus.read_ok(0x0C),
        0,
        "the write to INCOLS held while B was pending was never taken"
    );
    // A read and a write of one register in the same cycle: the read returns the old value.
    let o = bus.step(In {
        awvalid: true,
        wvalid: true,
        awaddr: 0x08,
        wdata: 9,
        wstrb: 0xF,
        arvalid: true,
        araddr: 0x08,
        ..In::default()
    });
    assert!(o.awready && o.arready);
    let o = bus.step(In {
        bready: true,
        rready: true,
        ..In::default()
    });
    assert_eq!((o.bvalid, o.rvalid, o.rdata), (true, true, 5));
    assert_eq!(bus.read_ok(0x08), 9);
}

// ---------------------------------------------------------------------------------------
// The C header and the register map.

#[test]
fn scale_csr_c_header_compiles_and_lists_every_register() {
    let header = npu_gen::c_header::scale_npu_header();
    for r in npu_gen::regmap::REGISTERS {
        assert!(
            header.contains(&format!(
                "#define SCALE_NPU_{}_OFFSET 0x{:02X}u",
                r.name, r.offset
            )),
            "{} missing",
            r.name
        );
        for f in r.fields {
            for what in ["SHIFT", "MASK", "RESET"] {
                assert!(
                    header.contains(&format!("#define SCALE_NPU_{}_{}_{what} ", r.name, f.name)),
                    "{}.{} {what}",
                    r.name,
                    f.name
                );
            }
        }
    }
    let dir = std::env::temp_dir().join(format!("npu-scale-header-{}", std::process::id()));
    // make verilog writes the header beside the Verilog.
    let written =
        npu_gen::write_user_files(&[], &dir, std::path::Path::new(env!("CARGO_MANIFEST_DIR")))
            .unwrap();
    assert!(written.contains(&dir.join("scale_npu_regs.h")));
    assert_eq!(
        std::fs::read_to_string(dir.join("scale_npu_regs.h")).unwrap(),
        header
    );
    // seeds/004's values, as literals.
    let c = r#"#include "scale_npu_regs.h"
#include "scale_npu_regs.h" /* the include guard holds */
_Static_assert(SCALE_NPU_ARCHID_OFFSET == 0x00u, "ARCHID offset");
_Static_assert(SCALE_NPU_ARCHID_ID_RESET == 0xB00Bu, "ARCHID reset");
_Static_assert(SCALE_NPU_IMPID_ID_RESET == 0x100u, "IMPID reset");
_Static_assert(SCALE_NPU_INCOLS_OFFSET == 0x0Cu, "INCOLS offset");
_Static_assert(SCALE_NPU_SHIFTAMT_AMOUNT_MASK == 0xFFu, "SHIFTAMT field");
_Static_assert(SCALE_NPU_BASE_OFFSET == 0x34u, "BASE offset");
_Static_assert(SCALE_NPU_RESULT_ADDR_MASK == 0xFFFFFFFFu, "RESULT field");
_Static_assert(SCALE_NPU_INIT_OFFSET == 0x3Cu, "INIT offset");
_Static_assert(SCALE_NPU_IRQ_FINISHED_MASK == 0x1u && SCALE_NPU_IRQ_FINISHED_SHIFT == 0u, "IRQ field");
_Static_assert(SCALE_NPU_EXITCODE_OFFSET == 0x44u, "EXITCODE offset");
_Static_assert(SCALE_NPU_EXITCODE_CODE_MASK == 0x3u, "EXITCODE field");
_Static_assert(SCALE_NPU_EXITCODE_UNUSED == 0u && SCALE_NPU_EXITCODE_SUCCESS == 1u, "exit codes");
_Static_assert(SCALE_NPU_EXITCODE_MEM_ERR == 2u && SCALE_NPU_EXITCODE_CPU_ERR == 3u, "exit codes");
_Static_assert(SCALE_NPU_MAP_SIZE == 0x48u, "map size");
unsigned scale_npu_exit_code(unsigned exitcode) {
    return (exitcode & SCALE_NPU_EXITCODE_CODE_MASK) >> SCALE_NPU_EXITCODE_CODE_SHIFT;
}
"#;
    std::fs::write(dir.join("check.c"), c).unwrap();
    let out = Command::new("cc")
        .args([
            "-std=c99", "-Wall", "-Werror", "-c", "check.c", "-o", "check.o",
        ])
        .current_dir(&dir)
        .output()
        .expect("a C compiler (cc)");
    assert!(
        out.status.success(),
        "cc rejected the header:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The model's register names (written from the seed) agree with the register-map table.
#[test]
fn scale_csr_model_names_match_the_register_map() {
    let table: Vec<(&str, u32)> = npu_gen::regmap::REGISTERS
        .iter()
        .map(|r| (r.name, r.offset))
        .collect();
    let seed: Vec<(&str, u32)> = MAP.iter().map(|&(n, a)| (n, u32::from(a))).collect();
    assert_eq!(table, seed);
    for (k, name) in npu::model::scale::csr::NAMES.iter().enumerate() {
        assert_eq!(table[k].0, *name);
    }
}
