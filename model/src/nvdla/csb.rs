//! The configuration space bus and the register files behind it (seeds/001, "Configuration
//! space bus", "Ping-pong Synchronization Mechanism", "Host interrupt"): GLB's interrupt
//! status, mask and set, and each unit's single register group and two ping-pong groups with
//! their producer and consumer pointers. RTL: `npu_hdl::nvdla::csb::Csb`; docs/nvdla.md, "CSB"
//! and "Register groups", has the decisions this model keeps.
//!
//! Addresses, field positions, reset values and access types come from the register map
//! table `npu_hdl::nvdla::regmap` (checked against NVIDIA's RDL files); the behaviour is
//! written here from seeds/001.
use npu_hdl::nvdla::csb::{is_lut_data, lut_fields, read_only_value, CDP_COUNTERS, CDP_LUT_ENTRIES, GROUPED};
use npu_hdl::nvdla::regmap::{self, Access, Group, Register, Unit};

/// A unit's registers: the single group and the two ping-pong groups, each a value per
/// register of the table (the ping-pong copy of a single register is unused).
#[derive(Clone, Debug)]
pub struct UnitRegisters {
    unit: &'static Unit,
    single: Vec<u32>,
    groups: [Vec<u32>; 2],
    producer: usize,
    /// The group the unit's engine runs on next (S_POINTER.CONSUMER).
    pub consumer: usize,
}

impl UnitRegisters {
    fn new(name: &str) -> Self {
        let unit = regmap::unit(name).unwrap_or_else(|| panic!("no unit {name}"));
        let reset: Vec<u32> = unit.registers.iter().map(Register::reset).collect();
        Self { unit, single: reset.clone(), groups: [reset.clone(), reset], producer: 0, consumer: 0 }
    }

    fn index(&self, name: &str) -> usize {
        self.unit.registers.iter().position(|r| r.name == name).unwrap_or_else(|| panic!("no register {}.{name}", self.unit.name))
    }

    /// Register `name` of group `group` (ping-pong registers) or of the single group.
    pub fn get(&self, group: usize, name: &str) -> u32 {
        let i = self.index(name);
        match self.unit.registers[i].group {
            Group::Single => self.single[i],
            Group::PingPong => self.groups[group][i],
        }
    }

    /// Register `name` of the consumer group: what the engine runs on.
    pub fn consumed(&self, name: &str) -> u32 {
        self.get(self.consumer, name)
    }

    /// Field `field` of register `name` in the consumer group, shifted down.
    pub fn consumed_field(&self, name: &str, field: &str) -> u32 {
        let f = regmap::field(self.unit.name, name, field);
        (self.consumed(name) & f.mask()) >> f.lsb
    }

    pub fn enabled(&self, group: usize) -> bool {
        self.get(group, "D_OP_ENABLE") & 1 != 0
    }

    /// The consumer group is enabled: the engine may start on it.
    pub fn ready(&self) -> bool {
        self.enabled(self.consumer)
    }

    /// Ends the consumer group's layer: its D_OP_ENABLE clears and the consumer advances
    /// (seeds/001, ping-pong steps 7-9).
    fn finish(&mut self) {
        let i = self.index("D_OP_ENABLE");
        self.groups[self.consumer][i] = 0;
        self.consumer ^= 1;
    }
}

/// GLB and the grouped units' register files.
#[derive(Clone, Debug)]
pub struct Csb {
    glb: UnitRegisters,
    /// The units with ping-pong groups, in register-map order.
    units: Vec<UnitRegisters>,
    /// Steps whenever a register may have changed (every CSB access, a layer's end, an
    /// interrupt), not when CDP's counters count: [`Cached`] rebuilds on it.
    version: u64,
}

impl Default for Csb {
    fn default() -> Self {
        Self { glb: UnitRegisters::new("GLB"), units: GROUPED.into_iter().map(UnitRegisters::new).collect(), version: 0 }
    }
}

/// A configuration derived from the registers (SDP's LUT, CDP's datapath ports), rebuilt
/// only when the CSB has changed since: looking registers up by name every cycle took most
/// of the model's time (perf: about 70 % on a dc trace).
#[derive(Clone, Debug, Default)]
pub struct Cached<T> {
    built: Option<(u64, T)>,
}

impl<T> Cached<T> {
    /// The configuration for `csb` as it is, built by `build` if the registers changed.
    pub fn get(&mut self, csb: &Csb, build: impl FnOnce(&Csb) -> T) -> &T {
        if self.built.as_ref().is_none_or(|(version, _)| *version != csb.version) {
            self.built = Some((csb.version, build(csb)));
        }
        &self.built.as_ref().expect("built above").1
    }
}

impl Csb {
    /// The register file of a grouped unit.
    pub fn unit(&self, name: &str) -> &UnitRegisters {
        self.units.iter().find(|u| u.unit.name == name).unwrap_or_else(|| panic!("no grouped unit {name}"))
    }

    fn unit_mut(&mut self, name: &str) -> &mut UnitRegisters {
        if name == "GLB" {
            return &mut self.glb;
        }
        self.units.iter_mut().find(|u| u.unit.name == name).unwrap_or_else(|| panic!("no grouped unit {name}"))
    }

    /// S_STATUS of a unit: per group IDLE (0) when not enabled, RUNNING (1) when its engine
    /// works on it, PENDING (2) when enabled and waiting.
    fn status(u: &UnitRegisters, running: bool) -> u32 {
        let group = |g: usize| -> u32 {
            match (u.enabled(g), running && u.consumer == g) {
                (false, _) => 0,
                (true, true) => 1,
                (true, false) => 2,
            }
        };
        group(0) | group(1) << 16
    }

    /// The LUT port of `unit` (CDP or SDP: RTL `cdp_lut_*`, `sdp_lut_*`; the access rules at
    /// `CDP_LUT_ENTRIES`): the table and entry S_LUT_ACCESS_CFG points at.
    pub fn lut_entry(&self, unit: &str) -> (bool, u16) {
        let [entry, table, _] = lut_fields(unit);
        let cfg = self.unit(unit).get(0, "S_LUT_ACCESS_CFG");
        (cfg & table.mask() != 0, ((cfg & entry.mask()) >> entry.lsb) as u16)
    }

    /// The access type `unit`'s S_LUT_ACCESS_CFG holds: write (true) or read.
    fn lut_writes(&self, unit: &str) -> bool {
        self.unit(unit).get(0, "S_LUT_ACCESS_CFG") & lut_fields(unit)[2].mask() != 0
    }

    /// The data a CSB write of `address` writes into `unit`'s LUT entry [`Self::lut_entry`].
    pub fn lut_write(&self, unit: &str, address: u16, data: u32) -> Option<u16> {
        let data_register = regmap::decode(address).is_some_and(|(u, r)| u.name == unit && is_lut_data(u.name, r.name));
        (data_register && self.lut_writes(unit)).then_some(data as u16)
    }

    /// A data access steps LUT_ADDR, up to the table's last entry.
    fn lut_step(&mut self, unit: &str) {
        let (table, entry) = self.lut_entry(unit);
        if u32::from(entry) < CDP_LUT_ENTRIES[usize::from(table)] - 1 {
            let u = self.unit_mut(unit);
            let i = u.index("S_LUT_ACCESS_CFG");
            u.single[i] += 1 << lut_fields(unit)[0].lsb;
        }
    }

    /// What a CSB read of `address` returns (0 for an address no register has: seeds/001,
    /// "Illegal reads ... will return zeroes"); `running(unit)` says whether the engine of a
    /// unit works on a layer, `lut_entry(unit)` is the value of the LUT entry
    /// [`Self::lut_entry`] of CDP or SDP holds (a read of their S_LUT_ACCESS_DATA returns it and
    /// steps the address).
    pub fn read(&mut self, address: u16, running: impl Fn(&str) -> bool, lut_entry: impl Fn(&str) -> u16) -> u32 {
        self.version += 1;
        let Some((unit, register)) = regmap::decode(address) else { return 0 };
        if is_lut_data(unit.name, register.name) {
            if self.lut_writes(unit.name) {
                return 0;
            }
            self.lut_step(unit.name);
            return u32::from(lut_entry(unit.name));
        }
        let u = if unit.name == "GLB" { &self.glb } else { self.unit(unit.name) };
        let value = match register.name {
            "S_STATUS" => Self::status(u, running(unit.name)),
            "S_POINTER" => u.producer as u32 | (u.consumer as u32) << 16,
            "S_CBUF_FLUSH_STATUS" => read_only_value(unit.name, register),
            name => u.get(u.producer, name),
        };
        value & register.mask_where(Access::readable)
    }

    /// A CSB write, and the event it is. Writes to an unmapped address, to read-only fields,
    /// and to a ping-pong group whose D_OP_ENABLE is set (seeds/001: "dropped silently")
    /// change nothing.
    pub fn write(&mut self, address: u16, data: u32) -> &'static str {
        self.version += 1;
        let Some((unit, register)) = regmap::decode(address) else { return "csb write unmapped" };
        if is_lut_data(unit.name, register.name) {
            if !self.lut_writes(unit.name) {
                return "csb write lut ignored";
            }
            self.lut_step(unit.name);
            return "csb write lut";
        }
        let u = self.unit_mut(unit.name);
        let i = u.index(register.name);
        match (unit.name, register.name) {
            ("GLB", "S_INTR_STATUS") => {
                // Write one to clear (`rwo`; the RDL spells SDP_DONE_STATUS0 `rwto`, the
                // register's role is the same for every bit).
                u.single[i] &= !(data & register.mask());
                "csb write intr status"
            }
            ("GLB", "S_INTR_SET") => {
                let status = u.index("S_INTR_STATUS");
                u.single[status] |= data & register.mask();
                "csb write intr set"
            }
            (_, "S_POINTER") => {
                u.producer = (data & 1) as usize;
                "csb write pointer"
            }
            _ => {
                let keep = !register.mask_where(Access::stores);
                let value = data & register.mask_where(Access::stores);
                match register.group {
                    Group::Single => {
                        u.single[i] = u.single[i] & keep | value;
                        "csb write single"
                    }
                    Group::PingPong if u.enabled(u.producer) => "csb write dropped",
                    Group::PingPong => {
                        let g = u.producer;
                        u.groups[g][i] = u.groups[g][i] & keep | value;
                        "csb write group"
                    }
                }
            }
        }
    }

    /// An engine finished the layer of `units`' consumer groups: each group is disabled and
    /// its consumer advances, and GLB's done status `done_fields` names (one field per group
    /// of the last unit, e.g. SDP_DONE_STATUS0/1) is set for the group that finished.
    pub fn finish(&mut self, units: &[&str], done_fields: [&str; 2]) {
        self.version += 1;
        let last = units.last().expect("an engine has a unit");
        let done = regmap::field("GLB", "S_INTR_STATUS", done_fields[self.unit(last).consumer]).mask();
        for name in units {
            self.unit_mut(name).finish();
        }
        let status = self.glb.index("S_INTR_STATUS");
        self.glb.single[status] |= done;
    }

    /// GLB's status field `fields[g]` set, g being `unit`'s consumer group: an event of the
    /// layer running there (CDMA_DAT_DONE and CDMA_WT_DONE when CDMA's fetches end).
    pub fn raise(&mut self, unit: &str, fields: [&str; 2]) {
        self.version += 1;
        let done = regmap::field("GLB", "S_INTR_STATUS", fields[self.unit(unit).consumer]).mask();
        let status = self.glb.index("S_INTR_STATUS");
        self.glb.single[status] |= done;
    }

    /// CDP's counters in its consumer group (`CDP_COUNTERS`): cleared when a layer starts,
    /// else the datapath's counts of an atom out added. Read-only status that no
    /// configuration is derived from, so [`Cached`] configurations stay valid.
    pub fn cdp_count(&mut self, start: bool, counts: Option<[u8; 6]>) {
        if !start && counts.is_none() {
            return;
        }
        let cdp = self.unit_mut("CDP");
        let g = cdp.consumer;
        for (k, (register, _)) in CDP_COUNTERS.iter().enumerate() {
            let i = cdp.index(register);
            if start {
                cdp.groups[g][i] = 0;
            } else if let Some(counts) = counts {
                cdp.groups[g][i] = cdp.groups[g][i].wrapping_add(u32::from(counts[k]));
            }
        }
    }

    /// `nvdla2core_interrupt`: an unmasked GLB interrupt status bit is set.
    pub fn interrupt_pending(&self) -> bool {
        let g = &self.glb;
        g.single[g.index("S_INTR_STATUS")] & !g.single[g.index("S_INTR_MASK")] != 0
    }
}
