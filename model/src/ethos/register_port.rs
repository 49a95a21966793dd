//! The command front end's APB register port (TRM register map, §3; digest
//! `shared/spec/ethos-u65.md` §4): ID, STATUS, CMD, QBASE0/1, QREAD, QSIZE, CONFIG and
//! BASEP0..15, STATUS and IRQ, and the clear after reset. RTL: `hdl/src/ethos/register_port.rs`;
//! a part of the [`super::command_front_end`] model, whose ports and decisions are the RTL
//! front end's. Offsets, STATUS bits and reset values are the digest's, as literals here.
use super::command_front_end::In;

/// Register offsets (digest §4).
pub const ID: u16 = 0x000;
pub const STATUS: u16 = 0x004;
pub const CMD: u16 = 0x008;
pub const QBASE0: u16 = 0x010;
pub const QBASE1: u16 = 0x014;
pub const QREAD: u16 = 0x018;
pub const QSIZE: u16 = 0x020;
pub const CONFIG: u16 = 0x028;
pub const BASEP0: u16 = 0x080;

/// ID and CONFIG (digest §4; ethos-u65-256).
pub const ID_VALUE: u32 = 0x1006_6001;
pub const CONFIG_VALUE: u32 = 0x1000_3008;

/// STATUS fields (digest §4), the RTL's constants.
pub use npu_hdl::ethos::command_front_end::status::{BUS_STATUS, CMD_END_REACHED, CMD_PARSE_ERROR, IRQ_RAISED, RESET_STATUS, RUNNING};
const HISTORY: u32 = 0xffff_0000;

/// Cycles after reset while the register file and BASEPs are cleared.
pub const CLEAR_CYCLES: u32 = 128;

/// What happened in the rest of the front end this cycle, for STATUS.
#[derive(Clone, Copy, Debug, Default)]
pub struct Happened {
    /// STOP or IRQ executed, with its parameter.
    pub signal: bool,
    pub history: u16,
    pub stop: bool,
    pub parse_error: bool,
    pub at_end: bool,
    pub fetch_error: bool,
    pub dma_read_error: bool,
    pub dma_write_error: bool,
    pub kernel_failed: bool,
}

#[derive(Clone, Debug)]
pub struct RegisterPort {
    status: u32,
    clear_index: u32,
    cmd: u32,
    qbase0: u32,
    qbase1: u32,
    qsize: u32,
    rdata: u32,
    rd_basep: bool,
    basep: [u32; 16],
    basep_read: u32,
}

impl Default for RegisterPort {
    fn default() -> Self {
        Self { status: RESET_STATUS, clear_index: 0, cmd: 0xC, qbase0: 0, qbase1: 0, qsize: 0, rdata: 0, rd_basep: false, basep: [0; 16], basep_read: 0 }
    }
}

impl RegisterPort {
    pub fn running(&self) -> bool {
        self.status & RUNNING != 0
    }

    /// STATUS.reset_status: the register file and BASEPs are being cleared.
    pub fn clearing(&self) -> bool {
        self.status & RESET_STATUS != 0
    }

    /// The register-file entry the clear writes this cycle.
    pub fn clear_index(&self) -> u32 {
        self.clear_index
    }

    /// QBASE1:QBASE0.
    pub fn qbase(&self) -> u64 {
        (u64::from(self.qbase1) << 32) | u64::from(self.qbase0)
    }

    pub fn qsize(&self) -> u32 {
        self.qsize
    }

    pub fn basep(&self) -> &[u32; 16] {
        &self.basep
    }

    pub fn apb_rdata(&self) -> u32 {
        if self.rd_basep {
            self.basep_read
        } else {
            self.rdata
        }
    }

    pub fn irq(&self) -> bool {
        self.status & IRQ_RAISED != 0
    }

    /// A CMD write with transition_to_running accepted this cycle.
    pub fn start(&self, input: &In, dma_idle: bool) -> bool {
        let apb_wr = input.apb_sel && input.apb_enable && input.apb_write;
        apb_wr
            && input.apb_addr & 0xfff == CMD
            && input.apb_wdata & 1 != 0
            && dma_idle
            && self.status & (RUNNING | RESET_STATUS | BUS_STATUS | CMD_PARSE_ERROR) == 0
    }

    /// The edge: the APB access, the clear, and STATUS from what `happened`; `qread` is QREAD
    /// before the edge.
    pub fn clock(&mut self, input: &In, qread: u32, dma_idle: bool, happened: &Happened, events: &mut Vec<&'static str>) {
        let running = self.running();
        let clearing = self.clearing();
        // APB reads sample the registers as they are before this edge.
        let read_value = match input.apb_addr {
            ID => ID_VALUE,
            STATUS => self.status,
            CMD => self.cmd,
            QBASE0 => self.qbase0,
            QBASE1 => self.qbase1,
            QREAD => qread,
            QSIZE => self.qsize,
            CONFIG => CONFIG_VALUE,
            _ => 0,
        };
        let clear_index = self.clear_index;
        if clearing {
            self.clear_index = (self.clear_index + 1) % CLEAR_CYCLES;
        }

        // APB.
        let start = self.start(input, dma_idle);
        let apb_wr = input.apb_sel && input.apb_enable && input.apb_write;
        let apb_rd = input.apb_sel && !input.apb_enable && !input.apb_write;
        let addr = input.apb_addr & 0xfff;
        let basep_hit = addr >> 6 == BASEP0 >> 6 && addr & 3 == 0;
        let basep_index = usize::from((addr >> 2) & 15);
        let wdata = input.apb_wdata;
        if apb_wr {
            match addr {
                CMD => {
                    self.cmd = wdata;
                    if start {
                        events.push("start");
                    }
                }
                QBASE0 => self.qbase0 = wdata & 0xffff_fffc,
                QBASE1 => self.qbase1 = wdata & 0xff,
                QSIZE => self.qsize = wdata & 0x01ff_fffc,
                _ => {}
            }
            events.push(if basep_hit { "APB write BASEP" } else { "APB write" });
        }
        if apb_rd {
            if !clearing {
                self.basep_read = self.basep[basep_index];
            }
            self.rdata = read_value;
            self.rd_basep = basep_hit;
            events.push("APB read");
        }
        if clearing {
            self.basep[(clear_index & 15) as usize] = 0;
        } else if apb_wr && basep_hit {
            self.basep[basep_index] = wdata;
        }

        // STATUS.
        let mut clear = 0;
        if apb_wr && addr == CMD {
            clear = wdata & HISTORY;
            if wdata & 2 != 0 {
                clear |= IRQ_RAISED;
            }
        }
        if apb_wr && matches!(addr, QBASE0 | QBASE1 | QSIZE) && !running {
            clear = CMD_END_REACHED;
        }
        let h = happened;
        let mut set = 0;
        if h.signal {
            set = (u32::from(h.history) << 16) | IRQ_RAISED;
        }
        if h.parse_error {
            set = CMD_PARSE_ERROR | IRQ_RAISED;
        }
        if running && h.at_end {
            set = CMD_END_REACHED | IRQ_RAISED;
            events.push("error: end of stream without STOP");
        }
        if h.fetch_error {
            set = BUS_STATUS | IRQ_RAISED;
        }
        if h.dma_read_error {
            set = BUS_STATUS | IRQ_RAISED | (4 << 12);
        }
        if h.dma_write_error {
            set = BUS_STATUS | IRQ_RAISED | (9 << 12);
        }
        if h.kernel_failed && input.kernel_error & 0xf == npu_hdl::ethos::elementwise::ERROR_UNSUPPORTED {
            set |= CMD_PARSE_ERROR | IRQ_RAISED;
        } else if h.kernel_failed {
            set |= BUS_STATUS | IRQ_RAISED | (u32::from(input.kernel_error & 0xf) << 12);
        }
        let mut run = running;
        if h.stop || h.parse_error || h.at_end || h.fetch_error || h.dma_read_error || h.dma_write_error || h.kernel_failed {
            run = false;
        }
        if start {
            run = true;
        }
        let resetting = clearing && clear_index != CLEAR_CYCLES - 1;
        let state = if resetting {
            RESET_STATUS
        } else if run {
            RUNNING
        } else {
            0
        };
        self.status = (((self.status & !clear) | set) & !(RUNNING | RESET_STATUS)) | state;
        if !running && !clearing && !start {
            events.push("stopped");
        }
    }
}
