//! The NVDLA register map table (`npu_hdl::nvdla::regmap`) against NVIDIA's SystemRDL
//! descriptions it was taken from (`shared/nvdla/manual/NVDLA_<UNIT>.rdl`, read from
//! `NVDLA_MANUAL` or the shared folder beside the repository; a missing folder fails the
//! test): every unit's base, every register's name, offset and group, every field's bit range,
//! reset value and access, and nothing in the RDL left out.
use npu_hdl::nvdla::regmap::{self, Group};
use std::collections::HashMap;
use std::path::PathBuf;

fn manual_dir() -> PathBuf {
    let dir = npu::nvdla::shared_folder("NVDLA_MANUAL", "manual", std::path::Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(dir.is_dir(), "NVIDIA's RDL files are not at {} (set NVDLA_MANUAL to their folder)", dir.display());
    dir
}

#[derive(Debug, PartialEq)]
struct RdlField {
    name: String,
    lsb: u32,
    width: u32,
    sw: String,
    spec_access: String,
    reset: u32,
}

#[derive(Debug)]
struct RdlRegister {
    name: String,
    offset: u32,
    fields: Vec<RdlField>,
}

fn hex(word: &str) -> u32 {
    u32::from_str_radix(word.trim_start_matches("0x"), 16).unwrap_or_else(|_| panic!("not a hex number: {word}"))
}

/// The unit's base and registers, from the RDL's line structure: `reg {` opens a register,
/// `field {` a field, `key = value;` lines set its properties, `} NAME[msb:lsb];` closes the
/// field, `}NAME @0xOFFSET;` the register, and `regs_NVDLA_U NVDLA_U @0xBASE;` places the unit.
fn read_rdl(unit: &str) -> (u32, Vec<RdlRegister>) {
    let path = manual_dir().join(format!("NVDLA_{unit}.rdl"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (mut base, mut registers, mut fields) = (None, Vec::new(), Vec::new());
    let mut properties: HashMap<String, String> = HashMap::new();
    let placement = format!("regs_NVDLA_{unit} NVDLA_{unit} @");
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix(&placement) {
            base = Some(hex(rest.trim_end_matches(';')));
        } else if line.starts_with("field {") {
            properties.clear();
        } else if let Some((key, value)) = line.strip_suffix(';').and_then(|l| l.split_once('=')) {
            properties.insert(key.trim().into(), value.trim().into());
        } else if let Some(rest) = line.strip_prefix('}') {
            let rest = rest.trim().trim_end_matches(';');
            if let Some((name, range)) = rest.split_once('[') {
                let (msb, lsb) = range.trim_end_matches(']').split_once(':').unwrap();
                let (msb, lsb): (u32, u32) = (msb.parse().unwrap(), lsb.parse().unwrap());
                let get = |k: &str| properties.get(k).unwrap_or_else(|| panic!("{unit}: field {name} has no {k}")).clone();
                fields.push(RdlField { name: name.into(), lsb, width: msb - lsb + 1, sw: get("sw"), spec_access: get("spec_access"), reset: hex(&get("reset")) });
            } else if let Some((name, offset)) = rest.split_once('@') {
                registers.push(RdlRegister { name: name.trim().into(), offset: hex(offset.trim()), fields: std::mem::take(&mut fields) });
            }
        }
    }
    (base.unwrap_or_else(|| panic!("{}: no unit placement", path.display())), registers)
}

#[test]
fn every_register_and_field_is_the_rdls() {
    let mut checked = 0;
    for unit in regmap::UNITS {
        let (base, rdl) = read_rdl(unit.name);
        assert_eq!(unit.base, base, "{} base", unit.name);
        let names = |v: Vec<&str>| v.join(" ");
        assert_eq!(
            names(unit.registers.iter().map(|r| r.name).collect()),
            names(rdl.iter().map(|r| r.name.as_str()).collect()),
            "{}: the registers, in order",
            unit.name
        );
        for (ours, theirs) in unit.registers.iter().zip(&rdl) {
            let what = format!("NVDLA_{}.{}", unit.name, ours.name);
            assert_eq!(ours.offset, theirs.offset, "{what} offset");
            // seeds/001: "a register is in a duplicated register group if its name starts
            // with D_".
            let group = if ours.name.starts_with("D_") { Group::PingPong } else { Group::Single };
            assert_eq!(ours.group, group, "{what} group");
            let fields: Vec<RdlField> = ours
                .fields
                .iter()
                .map(|f| RdlField { name: f.name.into(), lsb: f.lsb, width: f.width, sw: f.access.sw().into(), spec_access: f.access.name().into(), reset: f.reset })
                .collect();
            assert_eq!(fields, theirs.fields, "{what} fields");
            checked += 1;
        }
    }
    // GLB 4, CDMA 59, CSC 26, CMAC_A 4, CMAC_B 4, CACC 14, SDP_RDMA 37, SDP 63, PDP_RDMA 20,
    // PDP 40, CDP_RDMA 17, CDP 47 registers.
    assert_eq!(checked, 4 + 59 + 26 + 4 + 4 + 14 + 37 + 63 + 20 + 40 + 17 + 47);
}

/// Decode is the inverse of placement: every register's CSB word address leads back to it,
/// and the units' windows do not overlap.
#[test]
fn csb_addresses_decode_to_their_register() {
    for unit in regmap::UNITS {
        for r in unit.registers {
            let (u, back) = regmap::decode(unit.csb_address(r)).unwrap();
            assert_eq!((u.name, back.name), (unit.name, r.name));
            assert!(r.offset < 0x1000 && r.offset % 4 == 0);
        }
    }
    assert!(regmap::decode(0x9000 / 4 + 0xfc / 4).is_none(), "past SDP's last register");
    assert_eq!(regmap::unit("SDP").map(|u| u.csb_address(regmap::register("SDP", "D_OP_ENABLE").1)), Some(0x9038 / 4));
    assert!(regmap::decode(0xb000 / 4 + 0xa0 / 4).is_none(), "past PDP's last register");
    assert!(regmap::decode(0x7000 / 4 + 0x38 / 4).is_none(), "past CACC's last register");
    assert_eq!(regmap::unit("CACC").map(|u| u.csb_address(regmap::register("CACC", "D_OP_ENABLE").1)), Some(0x7008 / 4));
    assert_eq!(regmap::unit("CDMA").map(|u| u.csb_address(regmap::register("CDMA", "D_OP_ENABLE").1)), Some(0x3010 / 4));
    assert_eq!(regmap::unit("PDP_RDMA").map(|u| u.csb_address(regmap::register("PDP_RDMA", "D_OP_ENABLE").1)), Some(0xa008 / 4));
}
