//! Plays one of NVIDIA's trace tests ([`Trace`]) on NVDLA nv_small, the Verilated RTL or the
//! model (both are a step function over `npu_model::nvdla::nv_small`'s ports): `reg_write`
//! as a non-posted CSB write (waiting for its completion), `poll_reg_equal` as CSB reads until
//! the value is there, `intr_notify` as a wait for `irq` followed by reading GLB's interrupt
//! status and writing the unit's done bits back to clear them, `check_crc` on the memory the
//! unit wrote through its memory port. Every wait is bounded: a time-out is a failed trace
//! with a message, never a hang. docs/nvdla.md, "Trace player".
use super::memory::Memory;
use super::trace::{Command, Register, Trace};
use npu_hdl::nvdla::regmap::{self, Group};
use npu_model::nvdla::nv_small::{In, Out};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use std::collections::HashMap;

/// Cycles a CSB request may wait for its response (the register file answers in one).
const CSB_WAIT: u64 = 64;
/// Cycles `poll_reg_equal` and `intr_notify` wait. The largest nv_small SDP trace moves 8192
/// atoms at a few cycles each; this is fifty times that with the stalling memory.
const EVENT_WAIT: u64 = 4_000_000;

/// One `check_crc`: where in the `.cfg`, what it covers, and both CRCs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub line: usize,
    pub address: u64,
    pub size: u64,
    pub expected: u32,
    pub got: u32,
}

impl Check {
    pub fn passed(&self) -> bool {
        self.expected == self.got
    }
}

/// Why a trace could not be played to its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The trace uses a unit or a feature not built (exit status 2); the message names it.
    NotImplemented(String),
    /// The trace names a register the unit does not have (exit status 2).
    Malformed(String),
    /// A wait ran out (exit status 1): the hardware did not do what the trace waits for.
    Timeout(String),
}

/// The memory behind the NVDLA's memory port, optionally stalling: with a seed, each cycle
/// the port is ready with probability 1/2 and read data comes 1 to 8 cycles after the request
/// (a memory with a seed and one without must give the same results, only later).
pub struct Bench<'a> {
    step: &'a mut dyn FnMut(&In) -> Out,
    pub memory: Memory,
    stalls: Option<SmallRng>,
    /// The one outstanding read: its address and the cycle its data may come.
    read: Option<(u64, u64)>,
    pub cycles: u64,
    /// Cycles the memory held a request or its data back (with stalls).
    pub stalled: u64,
    last: Out,
}

impl<'a> Bench<'a> {
    /// Resets the NVDLA (one cycle) in front of `memory`.
    pub fn new(step: &'a mut dyn FnMut(&In) -> Out, memory: Memory, stall_seed: Option<u64>) -> Self {
        let last = step(&In { reset: true, ..In::default() });
        Self { step, memory, stalls: stall_seed.map(SmallRng::seed_from_u64), read: None, cycles: 1, stalled: 0, last }
    }

    /// One cycle with `csb` as the CSB request (its memory-port fields are filled in here).
    fn cycle(&mut self, csb: &In) -> Out {
        let ready = self.stalls.as_mut().is_none_or(|r| r.gen_bool(0.5));
        let data_now = self.read.filter(|&(_, at)| at <= self.cycles);
        let input = In {
            dbb_req_ready: ready,
            dbb_resp_valid: data_now.is_some(),
            dbb_resp_data: data_now.map_or(0, |(a, _)| u64::from_le_bytes(std::array::from_fn(|k| self.memory.read(a + k as u64)))),
            ..csb.clone()
        };
        let out = (self.step)(&input);
        if data_now.is_some() {
            self.read = None;
        }
        if out.dbb_req_valid && !ready || self.read.is_some() {
            self.stalled += 1;
        }
        if out.dbb_req_valid && ready {
            if out.dbb_req_write {
                self.memory.write(out.dbb_req_addr, &out.dbb_req_wdata.to_le_bytes());
            } else {
                let latency = self.stalls.as_mut().map_or(1, |r| r.gen_range(1..=8));
                self.read = Some((out.dbb_req_addr, self.cycles + latency));
            }
        }
        self.cycles += 1;
        self.last = out.clone();
        out
    }

    pub fn idle(&mut self) -> Out {
        self.cycle(&In::default())
    }

    /// Sends one CSB request (holding it until `csb_ready`) and waits for its answer: read
    /// data, or the completion of the non-posted write.
    pub fn csb(&mut self, address: u16, write: Option<u32>) -> Result<u32, Stop> {
        let request = In { csb_valid: true, csb_addr: address, csb_wdat: write.unwrap_or(0), csb_write: write.is_some(), csb_nposted: write.is_some(), ..In::default() };
        let what = || format!("CSB {} of address {address:#06x}", if write.is_some() { "write" } else { "read" });
        let mut waited = 0;
        while !self.cycle(&request).csb_ready {
            waited += 1;
            if waited > CSB_WAIT {
                return Err(Stop::Timeout(format!("{}: not accepted in {CSB_WAIT} cycles", what())));
            }
        }
        for _ in 0..CSB_WAIT {
            let out = self.idle();
            match write {
                Some(_) if out.csb_wr_complete => return Ok(0),
                None if out.csb_rvalid => return Ok(out.csb_rdata),
                _ => {}
            }
        }
        Err(Stop::Timeout(format!("{}: no answer in {CSB_WAIT} cycles", what())))
    }

    /// Steps until `irq` is high, at most `EVENT_WAIT` cycles.
    pub fn wait_irq(&mut self) -> bool {
        (0..EVENT_WAIT).any(|_| self.last.irq || self.idle().irq)
    }
}

/// The register map entry of a trace register (`NVDLA_SDP.D_OP_ENABLE_0`): its CSB address.
fn resolve(register: &Register) -> Result<(&'static regmap::Unit, &'static regmap::Register), Stop> {
    let unit = regmap::unit(&register.unit).ok_or_else(|| {
        let built: Vec<&str> = regmap::UNITS.iter().map(|u| u.name).collect();
        Stop::NotImplemented(format!("NVDLA_{} is not implemented (built: {})", register.unit, built.join(", ")))
    })?;
    let name = register.name.strip_suffix("_0").ok_or_else(|| Stop::Malformed(format!("{register}: a register name ends in _0")))?;
    let r = unit.register(name).ok_or_else(|| Stop::Malformed(format!("{register}: NVDLA_{} has no register {name}", unit.name)))?;
    Ok((unit, r))
}

/// What the trace wrote so far, as the hardware holds it: per unit, its producer pointer and
/// the values of each group, so that the layer a D_OP_ENABLE write starts can be checked for
/// features not built before it runs.
struct Shadow {
    producer: HashMap<&'static str, usize>,
    values: HashMap<(&'static str, usize, &'static str), u32>,
}

impl Shadow {
    fn write(&mut self, unit: &'static regmap::Unit, register: &'static regmap::Register, value: u32) {
        let group = match register.group {
            Group::Single => 0,
            Group::PingPong => self.producer.get(unit.name).copied().unwrap_or(0),
        };
        if register.name == "S_POINTER" {
            self.producer.insert(unit.name, (value & 1) as usize);
        }
        self.values.insert((unit.name, group, register.name), value);
    }

    /// Field `field` of `unit.register` in the producer group (its reset value if unwritten).
    fn field(&self, unit: &str, register: &str, field: &str) -> u32 {
        let (u, r) = regmap::register(unit, register);
        let group = self.producer.get(u.name).copied().unwrap_or(0);
        let value = self.values.get(&(u.name, group, r.name)).copied().unwrap_or_else(|| r.reset());
        let f = regmap::field(unit, register, field);
        (value & f.mask()) >> f.lsb
    }

    /// The first feature of the layer of `unit`'s engine in the producer groups that is not
    /// built, if any.
    fn unsupported(&self, unit: &str) -> Option<String> {
        match unit {
            "PDP_RDMA" | "PDP" => self.unsupported_pdp(),
            "CDP_RDMA" | "CDP" => self.unsupported_cdp(),
            "CDMA" | "CSC" | "CMAC_A" | "CMAC_B" | "CACC" => self.unsupported_conv(),
            _ => self.unsupported_sdp(),
        }
    }

    /// The first feature of the PDP layer in the producer groups that is not built, if any.
    /// Split width needs nothing: the engine pools the whole width (docs/nvdla.md "PDP").
    fn unsupported_pdp(&self) -> Option<String> {
        let checks: [(&str, &str, &str, u32, &str); 6] = [
            ("PDP", "D_OPERATION_MODE_CFG", "FLYING_MODE", 1, "PDP on-flying mode (input from SDP)"),
            ("PDP_RDMA", "D_FLYING_MODE", "FLYING_MODE", 1, "PDP_RDMA on-flying mode (input from SDP)"),
            ("PDP", "D_DATA_FORMAT", "INPUT_DATA", 0, "PDP precision other than int8"),
            ("PDP_RDMA", "D_DATA_FORMAT", "INPUT_DATA", 0, "PDP_RDMA precision other than int8"),
            ("PDP_RDMA", "D_SRC_RAM_CFG", "SRC_RAM_TYPE", 1, "PDP_RDMA input from CV SRAM (nv_small has none)"),
            ("PDP", "D_DST_RAM_CFG", "DST_RAM_TYPE", 1, "PDP output to CV SRAM (nv_small has none)"),
        ];
        if let Some((.., what)) = checks.iter().find(|&&(u, r, f, built, _)| self.field(u, r, f) != built) {
            return Some(format!("{what}: not implemented"));
        }
        if self.field("PDP", "D_OPERATION_MODE_CFG", "POOLING_METHOD") == 3 {
            return Some("PDP pooling method 3 (the RDL defines 0 average, 1 max, 2 min): not implemented".into());
        }
        let channel = self.field("PDP", "D_DATA_CUBE_OUT_CHANNEL", "CUBE_OUT_CHANNEL");
        let differs = ["WIDTH", "HEIGHT", "CHANNEL"].iter().find_map(|size| {
            let (register, field) = (format!("D_DATA_CUBE_IN_{size}"), format!("CUBE_IN_{size}"));
            let (pdp, rdma) = (self.field("PDP", &register, &field), self.field("PDP_RDMA", &register, &field));
            (pdp != rdma).then(|| format!("PDP's input cube {size} ({pdp}) differs from PDP_RDMA's ({rdma}): PDP_RDMA's is used; a different PDP size is not implemented"))
        });
        differs.or_else(|| {
            let input = self.field("PDP_RDMA", "D_DATA_CUBE_IN_CHANNEL", "CUBE_IN_CHANNEL");
            (channel != input).then(|| format!("PDP's output channels ({channel}) differ from its input's ({input}): pooling keeps the channels; not implemented"))
        })
    }

    /// The first feature of the convolution layer in the producer groups that is not built, if
    /// any: the engine runs int8 direct convolutions of feature data with uncompressed weights
    /// from external memory, one batch (docs/nvdla.md, "Convolution engine").
    fn unsupported_conv(&self) -> Option<String> {
        let checks: [(&str, &str, &str, u32, &str); 12] = [
            ("CDMA", "D_MISC_CFG", "CONV_MODE", 0, "CDMA Winograd convolution"),
            ("CSC", "D_MISC_CFG", "CONV_MODE", 0, "CSC Winograd convolution"),
            ("CMAC_A", "D_MISC_CFG", "CONV_MODE", 0, "CMAC_A Winograd convolution"),
            ("CACC", "D_MISC_CFG", "CONV_MODE", 0, "CACC Winograd convolution"),
            ("CDMA", "D_MISC_CFG", "IN_PRECISION", 0, "CDMA precision other than int8"),
            ("CSC", "D_MISC_CFG", "IN_PRECISION", 0, "CSC precision other than int8"),
            ("CACC", "D_MISC_CFG", "PROC_PRECISION", 0, "CACC precision other than int8"),
            ("CDMA", "D_DATAIN_FORMAT", "DATAIN_FORMAT", 0, "CDMA pixel input (image mode)"),
            ("CDMA", "D_WEIGHT_FORMAT", "WEIGHT_FORMAT", 0, "CDMA compressed weights"),
            ("CDMA", "D_BATCH_NUMBER", "BATCHES", 0, "CDMA batches"),
            ("CDMA", "D_DAIN_RAM_TYPE", "DATAIN_RAM_TYPE", 1, "CDMA input from CV SRAM (nv_small has none)"),
            ("CDMA", "D_WEIGHT_RAM_TYPE", "WEIGHT_RAM_TYPE", 1, "CDMA weights from CV SRAM (nv_small has none)"),
        ];
        checks.iter().find(|&&(u, r, f, built, _)| self.field(u, r, f) != built).map(|(.., what)| format!("{what}: not implemented"))
    }

    /// The first feature of the CDP layer in the producer groups that is not built, if any.
    fn unsupported_cdp(&self) -> Option<String> {
        let checks: [(&str, &str, &str, u32, &str); 4] = [
            ("CDP", "D_DATA_FORMAT", "INPUT_DATA_TYPE", 0, "CDP precision other than int8"),
            ("CDP_RDMA", "D_DATA_FORMAT", "INPUT_DATA", 0, "CDP_RDMA precision other than int8"),
            ("CDP_RDMA", "D_SRC_DMA_CFG", "SRC_RAM_TYPE", 1, "CDP_RDMA input from CV SRAM (nv_small has none)"),
            ("CDP", "D_DST_DMA_CFG", "DST_RAM_TYPE", 1, "CDP output to CV SRAM (nv_small has none)"),
        ];
        checks.iter().find(|&&(u, r, f, built, _)| self.field(u, r, f) != built).map(|(.., what)| format!("{what}: not implemented"))
    }

    /// The first feature of the SDP layer in the producer groups that is not built, if any.
    fn unsupported_sdp(&self) -> Option<String> {
        let flying = self.field("SDP", "D_FEATURE_MODE_CFG", "FLYING_MODE") != 0;
        let checks: [(&str, &str, &str, u32, &str); 14] = [
            ("SDP", "D_FEATURE_MODE_CFG", "OUTPUT_DST", 0, "SDP output to PDP"),
            ("SDP", "D_FEATURE_MODE_CFG", "WINOGRAD", 0, "SDP Winograd output"),
            ("SDP", "D_FEATURE_MODE_CFG", "BATCH_NUMBER", 0, "SDP batches"),
            ("SDP", "D_DATA_FORMAT", "PROC_PRECISION", 0, "SDP precision other than int8"),
            ("SDP", "D_DATA_FORMAT", "OUT_PRECISION", 0, "SDP output precision other than int8"),
            ("SDP", "D_DST_DMA_CFG", "DST_RAM_TYPE", 1, "SDP output to CV SRAM (nv_small has none)"),
            ("SDP_RDMA", "D_FEATURE_MODE_CFG", "FLYING_MODE", 0, "SDP_RDMA flying mode"),
            ("SDP_RDMA", "D_FEATURE_MODE_CFG", "WINOGRAD", 0, "SDP_RDMA Winograd"),
            ("SDP_RDMA", "D_FEATURE_MODE_CFG", "BATCH_NUMBER", 0, "SDP_RDMA batches"),
            ("SDP_RDMA", "D_FEATURE_MODE_CFG", "IN_PRECISION", 0, "SDP_RDMA input precision other than int8"),
            ("SDP_RDMA", "D_FEATURE_MODE_CFG", "PROC_PRECISION", 0, "SDP_RDMA precision other than int8"),
            ("SDP_RDMA", "D_FEATURE_MODE_CFG", "OUT_PRECISION", 0, "SDP_RDMA output precision other than int8"),
            ("SDP_RDMA", "D_ERDMA_CFG", "ERDMA_DISABLE", 1, "SDP_RDMA EW operand read (ERDMA) enabled"),
            ("SDP_RDMA", "D_SRC_DMA_CFG", "SRC_RAM_TYPE", 1, "SDP_RDMA input from CV SRAM (nv_small has none)"),
        ];
        // On the fly SDP_RDMA does not run: its registers are not looked at.
        if let Some((.., what)) = checks.iter().filter(|c| !flying || c.0 == "SDP").find(|&&(u, r, f, built, _)| self.field(u, r, f) != built) {
            return Some(format!("{what}: not implemented"));
        }
        // The EW stage is built with its operands from the registers, and its LUT
        // (docs/nvdla.md, "SDP's EW stage", "SDP's LUT").
        let ew = |register: &str, field: &str| self.field("SDP", &format!("D_DP_EW_{register}"), &format!("EW_{field}"));
        if ew("CFG", "BYPASS") == 0 {
            let refused = [
                (ew("CFG", "ALU_BYPASS") == 0 && ew("CFG", "ALU_ALGO") == 3, "SDP EW ALU EQL (compare) mode"),
                (ew("CFG", "ALU_BYPASS") == 0 && ew("ALU_CFG", "ALU_SRC") != 0, "SDP EW ALU operand from memory (ERDMA)"),
                (ew("CFG", "MUL_BYPASS") == 0 && ew("MUL_CFG", "MUL_SRC") != 0, "SDP EW multiplier operand from memory (ERDMA)"),
            ];
            if let Some((_, what)) = refused.iter().find(|(refused, _)| *refused) {
                return Some(format!("{what}: not implemented"));
            }
        }
        if flying {
            // On the fly SDP_RDMA does not run: its operand reads (BRDMA, NRDMA) are not built
            // for flying mode, nor is its cube compared (SDP's own sizes the layer).
            for stage in ["BS", "BN"] {
                let cfg = |register: &str, field: &str| self.field("SDP", &format!("D_DP_{stage}_{register}"), &format!("{stage}_{field}"));
                for part in ["ALU", "MUL"] {
                    if cfg("CFG", "BYPASS") == 0 && cfg("CFG", &format!("{part}_BYPASS")) == 0 && cfg(&format!("{part}_CFG"), &format!("{part}_SRC")) != 0 {
                        return Some(format!("SDP {stage} {part} operand from memory in flying mode (SDP_RDMA beside the convolution engine): not implemented"));
                    }
                }
            }
            return None;
        }
        // BS and BN operands from memory: BRDMA and NRDMA read per element or per channel,
        // one or two bytes, for the ALU, the multiplier or both (docs/nvdla.md, "SDP's BS and
        // BN stages"). Refused: CV SRAM, DATA_USE 3 (no RDL name), and an enabled part taking
        // its operand from memory that the read does not supply (read off, or DATA_USE for
        // the other part): NVDLA's C model would wait for it forever.
        for (stage, dma) in [("BS", "BRDMA"), ("BN", "NRDMA")] {
            let rdma = |field: &str| self.field("SDP_RDMA", &format!("D_{dma}_CFG"), &format!("{dma}_{field}"));
            if rdma("DISABLE") == 0 {
                let refused = [(rdma("DATA_USE") == 3, "DATA_USE 3 (reserved)"), (rdma("RAM_TYPE") != 1, "operands in CV SRAM (nv_small has none)")];
                if let Some((_, what)) = refused.iter().find(|(refused, _)| *refused) {
                    return Some(format!("SDP_RDMA {dma} {what}: not implemented"));
                }
            }
            let cfg = |register: &str, field: &str| self.field("SDP", &format!("D_DP_{stage}_{register}"), &format!("{stage}_{field}"));
            // DATA_USE: MUL 0, ALU 1, BOTH 2.
            for (part, supplied) in [("ALU", [1, 2]), ("MUL", [0, 2])] {
                if cfg("CFG", "BYPASS") == 0 && cfg("CFG", &format!("{part}_BYPASS")) == 0 && cfg(&format!("{part}_CFG"), &format!("{part}_SRC")) != 0 {
                    if rdma("DISABLE") != 0 {
                        return Some(format!("SDP {stage} {part} operand from memory with SDP_RDMA's {dma} off: not implemented"));
                    }
                    if !supplied.contains(&rdma("DATA_USE")) {
                        return Some(format!("SDP {stage} {part} operand from memory with SDP_RDMA's {dma} DATA_USE {}: not implemented", rdma("DATA_USE")));
                    }
                }
            }
        }
        ["WIDTH", "HEIGHT", "CHANNEL"].iter().find_map(|size| {
            let register = format!("D_DATA_CUBE_{size}");
            let (sdp, rdma) = (self.field("SDP", &register, size), self.field("SDP_RDMA", &register, size));
            (sdp != rdma).then(|| format!("SDP's cube {size} ({sdp}) differs from SDP_RDMA's ({rdma}): SDP_RDMA's is used; a different SDP size is not implemented"))
        })
    }
}

/// The outcome of a trace played to its end: every check, and the cycles it took.
#[derive(Clone, Debug)]
pub struct Played {
    pub checks: Vec<Check>,
    pub cycles: u64,
    pub registers_written: usize,
    pub stalled: u64,
}

/// Plays `trace` on `step` (nv_small, RTL or model); `stall_seed` makes the memory stall. A
/// trace needing a feature not built stops before its layer runs.
pub fn play(trace: &Trace, step: &mut dyn FnMut(&In) -> Out, stall_seed: Option<u64>) -> Result<Played, Stop> {
    let mut bench = Bench::new(step, Memory::default(), stall_seed);
    let mut shadow = Shadow { producer: HashMap::new(), values: HashMap::new() };
    let (mut checks, mut registers_written) = (Vec::new(), 0);
    for (line, command) in &trace.commands {
        let at = |message: String| format!("{}.cfg:{line}: {message}", trace.name);
        match command {
            Command::MemInit { address, size } => bench.memory.zero(*address, *size),
            Command::MemLoad { records, .. } => {
                for (address, bytes) in records {
                    bench.memory.write(*address, bytes);
                }
            }
            Command::RegWrite { register, value } => {
                let (unit, r) = resolve(register).map_err(|e| relabel(e, &at))?;
                shadow.write(unit, r, *value);
                if r.name == "D_OP_ENABLE" && value & 1 != 0 && unit.name != "GLB" {
                    if let Some(what) = shadow.unsupported(unit.name) {
                        return Err(Stop::NotImplemented(at(what)));
                    }
                }
                bench.csb(unit.csb_address(r), Some(*value)).map_err(|e| relabel(e, &at))?;
                registers_written += 1;
            }
            Command::Poll { register, value } => {
                let (unit, r) = resolve(register).map_err(|e| relabel(e, &at))?;
                let start = bench.cycles;
                while bench.csb(unit.csb_address(r), None).map_err(|e| relabel(e, &at))? != *value {
                    if bench.cycles - start > EVENT_WAIT {
                        return Err(Stop::Timeout(at(format!("{register} did not read {value:#x} in {EVENT_WAIT} cycles"))));
                    }
                }
            }
            Command::Interrupt { unit, .. } => {
                let name = unit.rsplit_once('_').map_or(unit.as_str(), |(u, _)| u);
                if !matches!(name, "SDP" | "PDP" | "CDP" | "CDMA_DAT" | "CDMA_WT" | "CACC") {
                    return Err(Stop::NotImplemented(at(format!("{name} is not implemented (its done interrupt cannot come)"))));
                }
                if !bench.wait_irq() {
                    return Err(Stop::Timeout(at(format!("no interrupt from {unit} in {EVENT_WAIT} cycles"))));
                }
                let (glb, status) = regmap::register("GLB", "S_INTR_STATUS");
                let done = [0, 1].iter().fold(0, |m, g| m | regmap::field("GLB", "S_INTR_STATUS", &format!("{name}_DONE_STATUS{g}")).mask());
                let pending = bench.csb(glb.csb_address(status), None).map_err(|e| relabel(e, &at))?;
                if pending & done == 0 {
                    return Err(Stop::Timeout(at(format!("the interrupt came, but GLB S_INTR_STATUS ({pending:#x}) has no {name} done bit"))));
                }
                bench.csb(glb.csb_address(status), Some(pending & done)).map_err(|e| relabel(e, &at))?;
            }
            Command::CheckCrc { address, size, crc, .. } => {
                checks.push(Check { line: *line, address: *address, size: *size, expected: *crc, got: bench.memory.crc32(*address, *size) });
            }
        }
    }
    Ok(Played { checks, cycles: bench.cycles, registers_written, stalled: bench.stalled })
}

/// `stop` with its message placed at the trace line.
fn relabel(stop: Stop, at: &dyn Fn(String) -> String) -> Stop {
    match stop {
        Stop::NotImplemented(m) => Stop::NotImplemented(at(m)),
        Stop::Malformed(m) => Stop::Malformed(at(m)),
        Stop::Timeout(m) => Stop::Timeout(at(m)),
    }
}
