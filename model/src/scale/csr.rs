//! ScaleNPU control and status registers behind an AXI4-Lite slave (seeds/004). RTL:
//! `hdl/src/scale/csr.rs`, whose documentation states the timing this model keeps.
//!
//! Written from the register semantics, not from the RTL or its register-map table: the
//! offsets and reset values below are the seed's, as literals.
//!
//! Per cycle, with the inputs applied: `awready = wready = awvalid & wvalid & !bvalid`
//! (Mealy), `arready = !rvalid`; everything else comes from registers. At the edge an
//! accepted write takes effect and its response is registered for `bvalid` in the next cycle;
//! an accepted read registers `rdata`/`rresp` (the registers as they were before the edge).

/// AXI response codes.
pub const OKAY: u8 = 0b00;
pub const SLVERR: u8 = 0b10;
pub const DECERR: u8 = 0b11;

/// Register offsets (seeds/004).
pub const ARCHID: u8 = 0x00;
pub const IMPID: u8 = 0x04;
pub const INROWS: u8 = 0x08;
pub const INCOLS: u8 = 0x0C;
pub const WGHTROWS: u8 = 0x10;
pub const WGHTCOLS: u8 = 0x14;
pub const REINPUTS: u8 = 0x18;
pub const REWEIGHTS: u8 = 0x1C;
pub const SAVEOUT: u8 = 0x20;
pub const USEBIAS: u8 = 0x24;
pub const USESUMM: u8 = 0x28;
pub const SHIFTAMT: u8 = 0x2C;
pub const ACTFN: u8 = 0x30;
pub const BASE: u8 = 0x34;
pub const RESULT: u8 = 0x38;
pub const INIT: u8 = 0x3C;
pub const IRQ: u8 = 0x40;
pub const EXITCODE: u8 = 0x44;
/// First byte address past the map.
pub const MAP_SIZE: u8 = 0x48;

/// ARCHID.ID and IMPID.ID (seeds/004).
pub const ARCHID_VALUE: u32 = 0xB00B;
pub const IMPID_VALUE: u32 = 0x100;

/// The registers in offset order (offset = 4 x index), and the events a write or a read of
/// each reports ("write INROWS", "read INROWS", ...).
macro_rules! registers {
    ($($name:literal),*) => {
        pub const NAMES: [&str; 18] = [$($name),*];
        const WRITE_EVENTS: [&str; 18] = [$(concat!("write ", $name)),*];
        const READ_EVENTS: [&str; 18] = [$(concat!("read ", $name)),*];
    };
}
registers!(
    "ARCHID", "IMPID", "INROWS", "INCOLS", "WGHTROWS", "WGHTCOLS", "REINPUTS", "REWEIGHTS", "SAVEOUT", "USEBIAS", "USESUMM",
    "SHIFTAMT", "ACTFN", "BASE", "RESULT", "INIT", "IRQ", "EXITCODE"
);

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub awvalid: bool,
    pub awaddr: u8,
    pub wvalid: bool,
    pub wdata: u32,
    pub wstrb: u8,
    pub bready: bool,
    pub arvalid: bool,
    pub araddr: u8,
    pub rready: bool,
    pub busy: bool,
    pub finish: bool,
    pub exit_code: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub awready: bool,
    pub wready: bool,
    pub bvalid: bool,
    pub bresp: u8,
    pub arready: bool,
    pub rvalid: bool,
    pub rdata: u32,
    pub rresp: u8,
    pub start: bool,
    pub abort_layer: bool,
    pub irq: bool,
    pub inrows: u8,
    pub incols: u8,
    pub wghtrows: u8,
    pub wghtcols: u8,
    pub reinputs: bool,
    pub reweights: bool,
    pub saveout: bool,
    pub usebias: bool,
    pub usesumm: bool,
    pub shiftamt: u8,
    pub actfn: bool,
    pub base: u32,
    pub result: u32,
}

/// The configuration a CPU programs, as the datapath sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Config {
    pub inrows: u8,
    pub incols: u8,
    pub wghtrows: u8,
    pub wghtcols: u8,
    pub reinputs: bool,
    pub reweights: bool,
    pub saveout: bool,
    pub usebias: bool,
    pub usesumm: bool,
    pub shiftamt: u8,
    pub actfn: bool,
    pub base: u32,
    pub result: u32,
}

#[derive(Default)]
pub struct Csr {
    config: Config,
    irq: bool,
    exitcode: u8,
    bvalid: bool,
    bresp: u8,
    rvalid: bool,
    rdata: u32,
    rresp: u8,
    start: bool,
    abort: bool,
    events: Vec<&'static str>,
}

/// `old` with the bytes selected by `strb` taken from `data`.
fn merge(old: u32, data: u32, strb: u8) -> u32 {
    let lanes = (0..4)
        .filter(|k| strb >> k & 1 == 1)
        .fold(0u32, |m, k| m | 0xFF << (8 * k));
    (old & !lanes) | (data & lanes)
}

impl Csr {
    /// The configuration registers as they are now.
    pub fn config(&self) -> Config {
        self.config
    }

    /// The value a read of the aligned, mapped offset `addr` returns now.
    pub fn read_value(&self, addr: u8) -> u32 {
        let c = &self.config;
        match addr {
            ARCHID => ARCHID_VALUE,
            IMPID => IMPID_VALUE,
            INROWS => c.inrows.into(),
            INCOLS => c.incols.into(),
            WGHTROWS => c.wghtrows.into(),
            WGHTCOLS => c.wghtcols.into(),
            REINPUTS => c.reinputs.into(),
            REWEIGHTS => c.reweights.into(),
            SAVEOUT => c.saveout.into(),
            USEBIAS => c.usebias.into(),
            USESUMM => c.usesumm.into(),
            SHIFTAMT => c.shiftamt.into(),
            ACTFN => c.actfn.into(),
            BASE => c.base,
            RESULT => c.result,
            IRQ => self.irq.into(),
            EXITCODE => self.exitcode.into(),
            _ => 0, // INIT, and anything else
        }
    }

    fn outputs(&self, i: &In) -> Out {
        let c = &self.config;
        let aw = i.awvalid && i.wvalid && !self.bvalid;
        Out {
            awready: aw,
            wready: aw,
            bvalid: self.bvalid,
            bresp: self.bresp,
            arready: !self.rvalid,
            rvalid: self.rvalid,
            rdata: self.rdata,
            rresp: self.rresp,
            start: self.start,
            abort_layer: self.abort,
            irq: self.irq,
            inrows: c.inrows,
            incols: c.incols,
            wghtrows: c.wghtrows,
            wghtcols: c.wghtcols,
            reinputs: c.reinputs,
            reweights: c.reweights,
            saveout: c.saveout,
            usebias: c.usebias,
            usesumm: c.usesumm,
            shiftamt: c.shiftamt,
            actfn: c.actfn,
            base: c.base,
            result: c.result,
        }
    }

    /// The rising edge.
    fn clock(&mut self, i: &In) {
        self.events.clear();
        if i.reset {
            *self = Csr {
                events: std::mem::take(&mut self.events),
                ..Csr::default()
            };
            self.events.push("reset");
            return;
        }
        let read_value = self.read_value(i.araddr);
        let ev = &mut self.events;
        let busy = i.busy || self.start;
        let write = i.awvalid && i.wvalid && !self.bvalid;
        let read = i.arvalid && !self.rvalid;

        // Read: sampled before any register changes at this edge.
        if read {
            let a = i.araddr;
            (self.rdata, self.rresp) = if a & 3 != 0 {
                ev.push("read slverr misaligned");
                (0, SLVERR)
            } else if a >= MAP_SIZE {
                ev.push("read decerr");
                (0, DECERR)
            } else {
                ev.push(READ_EVENTS[usize::from(a / 4)]);
                (read_value, OKAY)
            };
            self.rvalid = true;
        } else if self.rvalid && i.rready {
            self.rvalid = false;
        } else if self.rvalid {
            ev.push("r stall");
        }

        // Write.
        let mut start = false;
        let mut abort = false;
        let mut irq_clear = false;
        if write {
            let a = i.awaddr;
            let low = i.wstrb & 1 == 1 && i.wdata & 1 == 1;
            self.bresp = if a & 3 != 0 {
                ev.push("write slverr misaligned");
                SLVERR
            } else if a >= MAP_SIZE {
                ev.push("write decerr");
                DECERR
            } else if (INROWS..=INIT).contains(&a) && busy {
                ev.push("write ignored busy");
                abort = true;
                SLVERR
            } else {
                ev.push(WRITE_EVENTS[usize::from(a / 4)]);
                if i.wstrb == 0 {
                    ev.push("strobe none");
                } else if i.wstrb != 0xF {
                    ev.push("strobe partial");
                }
                let c = &mut self.config;
                let byte = |old: u8| merge(old.into(), i.wdata, i.wstrb) as u8;
                let bit = |old: bool| merge(old.into(), i.wdata, i.wstrb) & 1 == 1;
                match a {
                    INROWS => c.inrows = byte(c.inrows),
                    INCOLS => c.incols = byte(c.incols),
                    WGHTROWS => c.wghtrows = byte(c.wghtrows),
                    WGHTCOLS => c.wghtcols = byte(c.wghtcols),
                    REINPUTS => c.reinputs = bit(c.reinputs),
                    REWEIGHTS => c.reweights = bit(c.reweights),
                    SAVEOUT => c.saveout = bit(c.saveout),
                    USEBIAS => c.usebias = bit(c.usebias),
                    USESUMM => c.usesumm = bit(c.usesumm),
                    SHIFTAMT => c.shiftamt = byte(c.shiftamt),
                    ACTFN => c.actfn = bit(c.actfn),
                    BASE => c.base = merge(c.base, i.wdata, i.wstrb),
                    RESULT => c.result = merge(c.result, i.wdata, i.wstrb),
                    INIT => {
                        start = low;
                        ev.push(if low { "start" } else { "init without start" });
                    }
                    IRQ => {
                        irq_clear = low;
                        if !low {
                            ev.push("irq write 0 kept");
                        }
                    }
                    _ => ev.push("write ignored read-only"), // ARCHID, IMPID, EXITCODE
                }
                OKAY
            };
            self.bvalid = true;
        } else if self.bvalid && i.bready {
            self.bvalid = false;
        } else if self.bvalid {
            ev.push("b stall");
        }
        if write && read {
            ev.push("write and read");
        }
        if !write && i.awvalid != i.wvalid {
            ev.push("aw and w apart");
        }
        if abort {
            ev.push("abort");
        }
        self.start = start;
        self.abort = abort;

        // Datapath status.
        if i.finish {
            ev.push("finish");
            ev.push(if irq_clear {
                "irq set and clear"
            } else {
                "irq set"
            });
            self.irq = true;
            self.exitcode = i.exit_code;
            if start {
                ev.push("finish and start");
            }
        } else {
            if irq_clear {
                ev.push(if self.irq {
                    "irq clear"
                } else {
                    "irq clear when clear"
                });
                self.irq = false;
            }
            if start {
                if self.exitcode != 0 {
                    ev.push("exitcode cleared by start");
                }
                self.exitcode = 0;
            }
        }
        if ev.is_empty() {
            ev.push("idle");
        }
    }
}

// Several events a cycle: the read and write channels and the datapath's status act
// independently, each reports what it did.
crate::sequential_block!(Csr, mealy, events);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_csr_model_merges_strobed_bytes() {
        assert_eq!(merge(0x1122_3344, 0xAABB_CCDD, 0b0101), 0x11BB_33DD);
        assert_eq!(merge(0x1122_3344, 0xAABB_CCDD, 0), 0x1122_3344);
        assert_eq!(merge(0, 0xAABB_CCDD, 0xF), 0xAABB_CCDD);
    }
}
