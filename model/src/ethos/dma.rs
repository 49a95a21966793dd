//! The command front end's DMA (TRM §4.6 NPU_OP_DMA_START/DMA_WAIT): one 1D copy between two
//! regions at a time, in steps of up to 8 bytes inside one aligned word on both sides. RTL:
//! `hdl/src/ethos/dma.rs`, whose documentation states the ports and the decisions; this is
//! part of the [`super::command_front_end`] model, which decodes DMA_START and DMA_WAIT, issues
//! the DMA's reads on the shared read channel and turns its errors into STATUS.
use npu_hdl::ethos::dma::state;

const MASK40: u64 = (1 << 40) - 1;

/// What the front end gives the DMA in a cycle (the RTL's input ports, but the register and
/// BASEP copies: [`Dma::set`] and the BASEPs passed to [`Dma::clock`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Cycle {
    /// DMA_START accepted.
    pub go: bool,
    /// The front end issued the read the DMA asks for.
    pub read_issued: bool,
    /// The response to the DMA's read.
    pub r_valid: bool,
    pub r_error: bool,
    pub r_data: u64,
    pub aw_ready: bool,
    pub b_valid: bool,
    pub b_error: bool,
}

/// The errors of a cycle: a read or a write answered with an error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Errors {
    pub read: bool,
    pub write: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Dma {
    // The registers it reads, copied as the register file takes them.
    src_region_set: u16,
    dst_region_set: u16,
    src_set: u64,
    dst_set: u64,
    len_set: u64,
    /// [`state`], as the RTL numbers it.
    state: u64,
    step: u8,
    /// The read register of its copy of the BASEPs (the same contents as the front end's).
    basep_read: u32,
    src_region: u16,
    dst_region: u16,
    src_base: u64,
    dst_base: u64,
    src_addr: u64,
    dst_addr: u64,
    remaining: u64,
    w_data: u64,
    w_strb: u8,
}

impl Dma {
    /// The register-file write of `value` to `name`'s entry (one of the five the DMA reads).
    pub fn set(&mut self, name: &str, value: u64) {
        match name {
            "NPU_SET_DMA0_SRC_REGION" => self.src_region_set = value as u16,
            "NPU_SET_DMA0_DST_REGION" => self.dst_region_set = value as u16,
            "NPU_SET_DMA0_SRC" => self.src_set = value,
            "NPU_SET_DMA0_DST" => self.dst_set = value,
            "NPU_SET_DMA0_LEN" => self.len_set = value,
            _ => {}
        }
    }

    pub fn idle(&self) -> bool {
        self.state == state::IDLE
    }

    /// A DMA_START now would be a cmd_parse_error (region bits above bit 2, LEN above 32 bits).
    pub fn fields_bad(&self) -> bool {
        self.src_region_set & 0xfff8 != 0 || self.dst_region_set & 0xfff8 != 0 || self.len_set >> 32 != 0
    }

    pub fn wants_read(&self) -> bool {
        self.state == state::READ
    }

    pub fn read_addr(&self) -> u64 {
        self.src_addr & MASK40 & !7
    }

    /// The write channel: `mem_aw_valid`, `mem_aw_addr`, `mem_w_data`, `mem_w_strb`.
    pub fn write_port(&self) -> (bool, u64, u64, u8) {
        (self.state == state::WRITE, self.dst_addr & MASK40 & !7, self.w_data, self.w_strb)
    }

    /// One clock edge; `basep` are the BASEPs as they are before it.
    pub fn clock(&mut self, c: Cycle, basep: &[u32; 16], events: &mut Vec<&'static str>) -> Errors {
        let was = self.state;
        let mut errors = Errors::default();
        let (src_off, dst_off) = (self.src_addr & 7, self.dst_addr & 7);
        let chunk = (8 - src_off).min(8 - dst_off).min(self.remaining);
        if c.read_issued {
            self.state = state::READ_WAIT;
            events.push("DMA read");
        }
        if c.r_valid {
            if c.r_error {
                errors.read = true;
                self.state = state::IDLE;
                events.push("error: DMA read bus error");
            } else {
                self.w_data = (c.r_data >> (8 * src_off)) << (8 * dst_off);
                self.w_strb = (((0xffu32 >> (8 - chunk)) << dst_off) & 0xff) as u8;
                self.state = state::WRITE;
                events.push("DMA data");
            }
        }
        // The registers are taken at DMA_START (later SETs do not disturb the copy).
        let src_twice = (2 * self.src_region) & 0xf;
        let dst_twice = (2 * self.dst_region) & 0xf;
        if c.go {
            self.state = state::BASE;
            self.step = 0;
            self.src_region = self.src_region_set & 0xf;
            self.dst_region = self.dst_region_set & 0xf;
            self.src_addr = self.src_set & MASK40;
            self.dst_addr = self.dst_set & MASK40;
            self.remaining = self.len_set & MASK40;
        }
        if was == state::BASE {
            let step = self.step;
            self.step = (step + 1) & 7;
            let ext = u64::from(self.basep_read);
            let read = match step {
                1 => {
                    self.src_base = ext;
                    src_twice + 1
                }
                2 => {
                    self.src_base |= (ext & 0xff) << 32;
                    dst_twice
                }
                3 => {
                    self.dst_base = ext;
                    dst_twice + 1
                }
                4 => {
                    self.dst_base |= (ext & 0xff) << 32;
                    self.state = state::ADDR;
                    src_twice
                }
                _ => src_twice,
            };
            self.basep_read = basep[usize::from(read & 0xf)];
            events.push("DMA base");
        }
        if was == state::ADDR {
            self.src_addr = (self.src_base + self.src_addr) & MASK40;
            self.dst_addr = (self.dst_base + self.dst_addr) & MASK40;
            self.state = if self.remaining == 0 { state::IDLE } else { state::READ };
            events.push(if self.remaining == 0 { "DMA of 0 bytes" } else { "DMA addresses" });
        }
        if was == state::WRITE {
            if c.aw_ready {
                self.state = state::WRITE_WAIT;
                events.push("DMA write");
            } else {
                events.push("DMA write stalled");
            }
        }
        if was == state::WRITE_WAIT && c.b_valid {
            self.src_addr = (self.src_addr + chunk) & MASK40;
            self.dst_addr = (self.dst_addr + chunk) & MASK40;
            let remaining = self.remaining;
            self.remaining = remaining.wrapping_sub(chunk) & MASK40;
            self.state = if remaining == chunk { state::IDLE } else { state::READ };
            if c.b_error {
                errors.write = true;
                self.state = state::IDLE;
                events.push("error: DMA write bus error");
            } else {
                events.push(if remaining == chunk { "DMA done" } else { "DMA step" });
            }
        }
        errors
    }
}
