//! The Ethos-U65 command set (TRM §4.6, seeds/000 L3632-4668; digest `shared/spec/ethos-u65.md`
//! §3): the one table of cmd0 and cmd1 opcodes from which the host-side stream decoder
//! (`npu::ethos::command_stream`) names and checks commands, and from which the NPU's command
//! front end decodes them. Change a command here and both follow.
//!
//! Word format (TRM Table 4-107, [FIX-6]): bits 9:0 the opcode, bits 15:10 the control field,
//! bits 31:16 a 16-bit parameter. Control `000000` is a cmd0 (one word); `010000` (0x4000 in
//! the word) a cmd1, followed by one 32-bit payload word. Every other control value is
//! reserved, as is every opcode not in the table (listed in the digest, §3.2).

/// cmd0 or cmd1: whether a payload word follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// One word: opcode and 16-bit parameter.
    Cmd0,
    /// Two words: opcode, 16-bit parameter (address bits 47:32, or 0), then a 32-bit payload.
    Cmd1,
}

/// One command of the set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command {
    pub kind: Kind,
    pub opcode: u16,
    /// The TRM's name (`NPU_OP_CONV`, `NPU_SET_IFM_BASE0`, ...).
    pub name: &'static str,
}

/// Bits 9:0 of a command word.
pub const OPCODE_MASK: u32 = 0x3ff;
/// Bits 15:10 of a command word.
pub const CONTROL_MASK: u32 = 0xfc00;
/// The control field of a cmd1 (bit 14).
pub const CMD1_CONTROL: u32 = 0x4000;

const fn c0(opcode: u16, name: &'static str) -> Command {
    Command { kind: Kind::Cmd0, opcode, name }
}

const fn c1(opcode: u16, name: &'static str) -> Command {
    Command { kind: Kind::Cmd1, opcode, name }
}

/// Every command of the TRM's Tables 4-110 (cmd0) and 4-111 (cmd1), in opcode order.
pub const COMMANDS: &[Command] = &[
    c0(0x000, "NPU_OP_STOP"),
    c0(0x001, "NPU_OP_IRQ"),
    c0(0x002, "NPU_OP_CONV"),
    c0(0x003, "NPU_OP_DEPTHWISE"),
    c0(0x005, "NPU_OP_POOL"),
    c0(0x006, "NPU_OP_ELEMENTWISE"),
    c0(0x010, "NPU_OP_DMA_START"),
    c0(0x011, "NPU_OP_DMA_WAIT"),
    c0(0x012, "NPU_OP_KERNEL_WAIT"),
    c0(0x013, "NPU_OP_PMU_MASK"),
    c0(0x100, "NPU_SET_IFM_PAD_TOP"),
    c0(0x101, "NPU_SET_IFM_PAD_LEFT"),
    c0(0x102, "NPU_SET_IFM_PAD_RIGHT"),
    c0(0x103, "NPU_SET_IFM_PAD_BOTTOM"),
    c0(0x104, "NPU_SET_IFM_DEPTH_M1"),
    c0(0x105, "NPU_SET_IFM_PRECISION"),
    c0(0x107, "NPU_SET_IFM_UPSCALE"),
    c0(0x109, "NPU_SET_IFM_ZERO_POINT"),
    c0(0x10a, "NPU_SET_IFM_WIDTH0_M1"),
    c0(0x10b, "NPU_SET_IFM_HEIGHT0_M1"),
    c0(0x10c, "NPU_SET_IFM_HEIGHT1_M1"),
    c0(0x10d, "NPU_SET_IFM_IB_END"),
    c0(0x10f, "NPU_SET_IFM_REGION"),
    c0(0x111, "NPU_SET_OFM_WIDTH_M1"),
    c0(0x112, "NPU_SET_OFM_HEIGHT_M1"),
    c0(0x113, "NPU_SET_OFM_DEPTH_M1"),
    c0(0x114, "NPU_SET_OFM_PRECISION"),
    c0(0x115, "NPU_SET_OFM_BLK_WIDTH_M1"),
    c0(0x116, "NPU_SET_OFM_BLK_HEIGHT_M1"),
    c0(0x117, "NPU_SET_OFM_BLK_DEPTH_M1"),
    c0(0x118, "NPU_SET_OFM_ZERO_POINT"),
    c0(0x11a, "NPU_SET_OFM_WIDTH0_M1"),
    c0(0x11b, "NPU_SET_OFM_HEIGHT0_M1"),
    c0(0x11c, "NPU_SET_OFM_HEIGHT1_M1"),
    c0(0x11f, "NPU_SET_OFM_REGION"),
    c0(0x120, "NPU_SET_KERNEL_WIDTH_M1"),
    c0(0x121, "NPU_SET_KERNEL_HEIGHT_M1"),
    c0(0x122, "NPU_SET_KERNEL_STRIDE"),
    c0(0x123, "NPU_SET_PARALLEL_MODE"),
    c0(0x124, "NPU_SET_ACC_FORMAT"),
    c0(0x125, "NPU_SET_ACTIVATION"),
    c0(0x126, "NPU_SET_ACTIVATION_MIN"),
    c0(0x127, "NPU_SET_ACTIVATION_MAX"),
    c0(0x128, "NPU_SET_WEIGHT_REGION"),
    c0(0x129, "NPU_SET_SCALE_REGION"),
    c0(0x12d, "NPU_SET_AB_START"),
    c0(0x12f, "NPU_SET_BLOCKDEP"),
    c0(0x130, "NPU_SET_DMA0_SRC_REGION"),
    c0(0x131, "NPU_SET_DMA0_DST_REGION"),
    c0(0x132, "NPU_SET_DMA0_SIZE0"),
    c0(0x133, "NPU_SET_DMA0_SIZE1"),
    c0(0x180, "NPU_SET_IFM2_BROADCAST"),
    c0(0x181, "NPU_SET_IFM2_SCALAR"),
    c0(0x185, "NPU_SET_IFM2_PRECISION"),
    c0(0x189, "NPU_SET_IFM2_ZERO_POINT"),
    c0(0x18a, "NPU_SET_IFM2_WIDTH0_M1"),
    c0(0x18b, "NPU_SET_IFM2_HEIGHT0_M1"),
    c0(0x18c, "NPU_SET_IFM2_HEIGHT1_M1"),
    c0(0x18d, "NPU_SET_IFM2_IB_START"),
    c0(0x18f, "NPU_SET_IFM2_REGION"),
    c1(0x000, "NPU_SET_IFM_BASE0"),
    c1(0x001, "NPU_SET_IFM_BASE1"),
    c1(0x002, "NPU_SET_IFM_BASE2"),
    c1(0x003, "NPU_SET_IFM_BASE3"),
    c1(0x004, "NPU_SET_IFM_STRIDE_X"),
    c1(0x005, "NPU_SET_IFM_STRIDE_Y"),
    c1(0x006, "NPU_SET_IFM_STRIDE_C"),
    c1(0x010, "NPU_SET_OFM_BASE0"),
    c1(0x011, "NPU_SET_OFM_BASE1"),
    c1(0x012, "NPU_SET_OFM_BASE2"),
    c1(0x013, "NPU_SET_OFM_BASE3"),
    c1(0x014, "NPU_SET_OFM_STRIDE_X"),
    c1(0x015, "NPU_SET_OFM_STRIDE_Y"),
    c1(0x016, "NPU_SET_OFM_STRIDE_C"),
    c1(0x020, "NPU_SET_WEIGHT_BASE"),
    c1(0x021, "NPU_SET_WEIGHT_LENGTH"),
    c1(0x022, "NPU_SET_SCALE_BASE"),
    c1(0x023, "NPU_SET_SCALE_LENGTH"),
    c1(0x024, "NPU_SET_OFM_SCALE"),
    c1(0x025, "NPU_SET_OPA_SCALE"),
    c1(0x026, "NPU_SET_OPB_SCALE"),
    c1(0x030, "NPU_SET_DMA0_SRC"),
    c1(0x031, "NPU_SET_DMA0_DST"),
    c1(0x032, "NPU_SET_DMA0_LEN"),
    c1(0x033, "NPU_SET_DMA0_SKIP0"),
    c1(0x034, "NPU_SET_DMA0_SKIP1"),
    c1(0x080, "NPU_SET_IFM2_BASE0"),
    c1(0x081, "NPU_SET_IFM2_BASE1"),
    c1(0x082, "NPU_SET_IFM2_BASE2"),
    c1(0x083, "NPU_SET_IFM2_BASE3"),
    c1(0x084, "NPU_SET_IFM2_STRIDE_X"),
    c1(0x085, "NPU_SET_IFM2_STRIDE_Y"),
    c1(0x086, "NPU_SET_IFM2_STRIDE_C"),
    c1(0x090, "NPU_SET_WEIGHT1_BASE"),
    c1(0x091, "NPU_SET_WEIGHT1_LENGTH"),
    c1(0x092, "NPU_SET_SCALE1_BASE"),
    c1(0x093, "NPU_SET_SCALE1_LENGTH"),
];

/// The command a word starts, or `None` for a reserved control field or opcode.
pub fn lookup(word: u32) -> Option<&'static Command> {
    let kind = match word & CONTROL_MASK {
        0 => Kind::Cmd0,
        CMD1_CONTROL => Kind::Cmd1,
        _ => return None,
    };
    let opcode = (word & OPCODE_MASK) as u16;
    COMMANDS.iter().find(|c| c.kind == kind && c.opcode == opcode)
}

/// The command of this kind and name.
pub fn named(name: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.name == name)
}

impl Command {
    /// The command's first word with parameter `param` (bits 31:16).
    pub const fn word(&self, param: u16) -> u32 {
        let control = match self.kind {
            Kind::Cmd0 => 0,
            Kind::Cmd1 => CMD1_CONTROL,
        };
        ((param as u32) << 16) | control | self.opcode as u32
    }
}

/// What the NPU's command front end does with a command (digest §3.2-3.4): the decoder's
/// classes, from which `npu_hdl::ethos::CommandFrontEnd` generates its decode ROM and
/// `npu_model::ethos::command_front_end` its decoder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// `NPU_SET_*` cmd0: the 16-bit parameter goes into the register file at `index`.
    Set0 { index: usize },
    /// `NPU_SET_*` cmd1: parameter (bits 47:32) and payload (bits 31:0) at `index`.
    Set1 { index: usize },
    Stop,
    Irq,
    /// A kernel operation: `op` is [`KERNEL_OPS`]'s index (the kernel handshake's code).
    Kernel { op: usize },
    DmaStart,
    DmaWait,
    KernelWait,
    PmuMask,
}

/// The kernel operations in the order of their code on the front end's kernel handshake.
pub const KERNEL_OPS: [&str; 4] = ["NPU_OP_CONV", "NPU_OP_DEPTHWISE", "NPU_OP_POOL", "NPU_OP_ELEMENTWISE"];

/// The number of `NPU_SET_*` commands: the register file's size.
pub fn register_count() -> usize {
    COMMANDS.iter().filter(|c| c.name.starts_with("NPU_SET_")).count()
}

/// The `NPU_SET_*` command held at register-file index `index` (the order of [`COMMANDS`]).
pub fn register(index: usize) -> Option<&'static Command> {
    COMMANDS.iter().filter(|c| c.name.starts_with("NPU_SET_")).nth(index)
}

impl Command {
    /// What the front end does with this command.
    pub fn action(&self) -> Action {
        if self.name.starts_with("NPU_SET_") {
            let index = COMMANDS.iter().filter(|c| c.name.starts_with("NPU_SET_")).position(|c| c == self).expect("in the table");
            return match self.kind {
                Kind::Cmd0 => Action::Set0 { index },
                Kind::Cmd1 => Action::Set1 { index },
            };
        }
        if let Some(op) = KERNEL_OPS.iter().position(|&k| k == self.name) {
            return Action::Kernel { op };
        }
        match self.name {
            "NPU_OP_STOP" => Action::Stop,
            "NPU_OP_IRQ" => Action::Irq,
            "NPU_OP_DMA_START" => Action::DmaStart,
            "NPU_OP_DMA_WAIT" => Action::DmaWait,
            "NPU_OP_KERNEL_WAIT" => Action::KernelWait,
            "NPU_OP_PMU_MASK" => Action::PmuMask,
            other => unreachable!("{other} has no action: add it to Command::action"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcodes_are_unique_ordered_and_in_range() {
        for pair in COMMANDS.windows(2) {
            let key = |c: &Command| (c.kind == Kind::Cmd1, c.opcode);
            assert!(key(&pair[0]) < key(&pair[1]), "{} before {}", pair[0].name, pair[1].name);
        }
        assert!(COMMANDS.iter().all(|c| u32::from(c.opcode) <= OPCODE_MASK));
        // The TRM's worked example (digest §3.1): 0x4020 is NPU_SET_WEIGHT_BASE, 0x0002 NPU_OP_CONV.
        assert_eq!(lookup(0x4020).unwrap().name, "NPU_SET_WEIGHT_BASE");
        assert_eq!(lookup(0xffff_0002).unwrap().name, "NPU_OP_CONV");
        assert_eq!(named("NPU_OP_STOP").unwrap().word(0xffff), 0xffff_0000);
    }

    #[test]
    fn every_command_has_an_action_and_registers_are_dense() {
        let sets = register_count();
        assert_eq!(sets, 87);
        for c in COMMANDS {
            match c.action() {
                Action::Set0 { index } | Action::Set1 { index } => assert_eq!(register(index), Some(c)),
                _ => assert!(c.name.starts_with("NPU_OP_"), "{}", c.name),
            }
        }
        assert_eq!(named("NPU_OP_POOL").unwrap().action(), Action::Kernel { op: 2 });
    }

    #[test]
    fn reserved_control_fields_and_opcodes_are_refused() {
        // Every control value but 000000 and 010000, on a valid opcode.
        for control in 1..64u32 {
            if control != 0b010000 {
                assert!(lookup((control << 10) | 0x002).is_none(), "control {control:#b}");
            }
        }
        // Reserved opcodes the digest lists (§3.2).
        for opcode in [0x004, 0x007, 0x106, 0x108, 0x10e, 0x110, 0x119, 0x11d, 0x11e, 0x12a, 0x12e, 0x134, 0x17f, 0x182, 0x18e, 0x3ff] {
            assert!(lookup(opcode).is_none(), "cmd0 {opcode:#x}");
        }
        for opcode in [0x007, 0x017, 0x027, 0x035, 0x087, 0x094, 0x3ff] {
            assert!(lookup(CMD1_CONTROL | opcode).is_none(), "cmd1 {opcode:#x}");
        }
    }
}
