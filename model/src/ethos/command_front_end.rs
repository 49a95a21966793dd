//! Ethos-U65 command front end (TRM §4.6, register map; digest `shared/spec/ethos-u65.md`
//! §3-§4). RTL: `hdl/src/ethos/command_front_end.rs`, whose documentation states the ports,
//! the timing and the decisions this model keeps; docs/ethos.md, "Command front end".
//!
//! Written from the digest's register and command semantics. The command table is the one of
//! `npu_hdl::ethos::command_set` (the one source the RTL's decode ROM is generated from). The
//! parts are the RTL's sub-blocks, under the same names: the APB register port with STATUS
//! ([`super::register_port`]), the command processor ([`super::command_processor`]) and the DMA
//! ([`super::dma`]); this block keeps the register file and the debug port.
//!
//! Per cycle, with the inputs applied: `kernel_start` (Mealy: it follows `debug_hold`) and
//! `kernel_op`/`kernel_mode` come from the command word now in the fetch line; everything else
//! comes from registers. At the edge: the command executes (one a cycle when its word is in
//! the line), the fetch moves, the APB write takes effect, STATUS takes what happened.
use super::command_processor::{CommandProcessor, Context};
use super::dma::{Cycle as DmaCycle, Dma};
use super::register_port::{Happened, RegisterPort};
use npu_hdl::ethos::command_set::register;

pub use super::register_port::{
    BASEP0, BUS_STATUS, CLEAR_CYCLES, CMD, CMD_END_REACHED, CMD_PARSE_ERROR, CONFIG, CONFIG_VALUE, ID, ID_VALUE,
    IRQ_RAISED, QBASE0, QBASE1, QREAD, QSIZE, RESET_STATUS, RUNNING, STATUS,
};

/// The kernel handshake's code of each kernel operation.
pub use npu_hdl::ethos::command_set::KERNEL_OPS;

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub apb_sel: bool,
    pub apb_enable: bool,
    pub apb_write: bool,
    pub apb_addr: u16,
    pub apb_wdata: u32,
    pub mem_ar_ready: bool,
    pub mem_r_valid: bool,
    pub mem_r_data: u64,
    pub mem_r_error: bool,
    pub kernel_done: bool,
    pub kernel_error: u8,
    pub debug_index: u8,
    pub debug_hold: bool,
    pub mem_aw_ready: bool,
    pub mem_b_valid: bool,
    pub mem_b_error: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub apb_rdata: u32,
    pub irq: bool,
    pub mem_ar_valid: bool,
    pub mem_ar_addr: u64,
    pub kernel_start: bool,
    pub kernel_op: u8,
    pub kernel_mode: u16,
    pub debug_value: u64,
    pub mem_aw_valid: bool,
    pub mem_aw_addr: u64,
    pub mem_w_data: u64,
    pub mem_w_strb: u8,
}

#[derive(Clone, Debug)]
pub struct CommandFrontEnd {
    port: RegisterPort,
    processor: CommandProcessor,
    dma: Dma,
    /// The register file (`NPU_SET_*` values by index) and its registered read port.
    registers: Vec<u64>,
    register_read: u64,
    /// The debug port's BASEP copy: its read register, and whether the last read was one.
    kernel_basep_read: u32,
    debug_basep: bool,
    events: Vec<&'static str>,
}

impl Default for CommandFrontEnd {
    fn default() -> Self {
        Self {
            port: RegisterPort::default(),
            processor: CommandProcessor::default(),
            dma: Dma::default(),
            registers: vec![0; 128],
            register_read: 0,
            kernel_basep_read: 0,
            debug_basep: false,
            events: Vec::new(),
        }
    }
}

impl CommandFrontEnd {
    /// What the processor reads this cycle from the register port and the DMA.
    fn context(&self, input: &In) -> Context {
        Context {
            running: self.port.running(),
            qbase: self.port.qbase(),
            qsize: self.port.qsize(),
            start: self.port.start(input, self.dma.idle()),
            dma_idle: self.dma.idle(),
            dma_fields_bad: self.dma.fields_bad(),
            dma_wants_read: self.dma.wants_read(),
            dma_read_addr: self.dma.read_addr(),
        }
    }

    fn outputs(&self, input: &In) -> Out {
        let processor = self.processor.ports(input, &self.context(input));
        let (mem_aw_valid, mem_aw_addr, mem_w_data, mem_w_strb) = self.dma.write_port();
        Out {
            apb_rdata: self.port.apb_rdata(),
            irq: self.port.irq(),
            mem_ar_valid: processor.mem_ar_valid,
            mem_ar_addr: processor.mem_ar_addr,
            kernel_start: processor.kernel_start,
            kernel_op: processor.kernel_op,
            kernel_mode: processor.kernel_mode,
            debug_value: if self.debug_basep { u64::from(self.kernel_basep_read) } else { self.register_read },
            mem_aw_valid,
            mem_aw_addr,
            mem_w_data,
            mem_w_strb,
        }
    }

    fn clock(&mut self, input: &In) {
        if input.reset {
            *self = Self::default();
            self.events = vec!["reset"];
            return;
        }
        let context = self.context(input);
        let qread = self.processor.qread();
        let clearing = self.port.clearing();
        let mut events = Vec::new();
        let done = self.processor.clock(input, &context, &mut events);

        // Register file: read (old value), then the clear or a SET writes.
        if !clearing {
            self.register_read = self.registers[usize::from(input.debug_index & 0x7f)];
            self.kernel_basep_read = self.port.basep()[usize::from(input.debug_index & 0xf)];
        }
        self.debug_basep = usize::from(input.debug_index & 0x70) == npu_hdl::ethos::command_front_end::DEBUG_BASEP;
        if clearing {
            self.registers[self.port.clear_index() as usize] = 0;
            events.push("clear");
        } else if let Some((index, value)) = done.write {
            self.registers[usize::from(index)] = value;
            if let Some(command) = register(usize::from(index)) {
                self.dma.set(command.name, value);
            }
        }

        // DMA, on the BASEPs as they are before this edge's APB write.
        let dma = self.dma.clock(
            DmaCycle {
                go: done.dma_go,
                read_issued: done.dma_read_issued,
                r_valid: done.dma_r_valid,
                r_error: input.mem_r_error,
                r_data: input.mem_r_data,
                aw_ready: input.mem_aw_ready,
                b_valid: input.mem_b_valid,
                b_error: input.mem_b_error,
            },
            self.port.basep(),
            &mut events,
        );

        // APB and STATUS.
        let happened = Happened {
            signal: done.signal,
            history: done.history,
            stop: done.stop,
            parse_error: done.parse_error,
            at_end: done.at_end,
            fetch_error: done.fetch_error,
            dma_read_error: dma.read,
            dma_write_error: dma.write,
            kernel_failed: done.kernel_failed,
        };
        self.port.clock(input, qread, context.dma_idle, &happened, &mut events);
        self.events = events;
    }
}

crate::sequential_block!(CommandFrontEnd, mealy, events);
