//! The reference executor's NPU_OP_ELEMENTWISE (TRM §4.6; digest §2.2, §3.2): MUL, ADD, SUB,
//! MIN and MAX of the IFM and the IFM2 (broadcast, or its scalar), through
//! `npu_model::ethos::elementwise::combine` and the OFM scale.
use super::{Exec, ExecError};
use npu_model::ethos::output_unit::apply_scale;

impl Exec<'_> {
    pub(super) fn elementwise(&mut self, mode: &str) -> Result<(), ExecError> {
        let (ifm, ofm) = (self.map("IFM")?, self.map("OFM")?);
        let r = &self.op.registers;
        let broadcast = r.param("NPU_SET_IFM2_BROADCAST");
        let scale_mode = (r.param("NPU_SET_IFM_PRECISION") >> 8) & 3;
        let (opa_shift, opa_scale) = r.cmd1("NPU_SET_OPA_SCALE");
        let opb_scale = r.cmd1("NPU_SET_OPB_SCALE").1;
        let scalar = r.param("NPU_SET_IFM2_SCALAR") as i16;
        let ifm2 = if broadcast & 0x80 != 0 {
            self.seen.push("scalar");
            None
        } else {
            if broadcast & 7 != 0 {
                self.seen.push("broadcast");
            }
            Some(self.map("IFM2")?)
        };
        let ifm2_zero_point = self.op.input("IFM2").zero_point;
        self.upscale(None)?;
        let params = self.output_params(ofm.fm.zero_point)?;
        if matches!(mode, "add" | "sub") && scale_mode == 3 {
            return self.unsupported(format!("IFM scale mode {scale_mode}"));
        }
        for y in 0..i64::from(ofm.fm.height) {
            for x in 0..i64::from(ofm.fm.width) {
                for c in 0..i64::from(ofm.fm.depth) {
                    let first = self.read(&ifm, y, x, c)? - ifm.fm.zero_point;
                    let second = match &ifm2 {
                        None => i32::from(scalar),
                        Some(m) => {
                            let at = |bit: u16, v: i64| if broadcast & bit != 0 { 0 } else { v };
                            self.read(m, at(1, y), at(2, x), at(4, c))?
                        }
                    } - ifm2_zero_point;
                    let (a, b) = if broadcast & 0x40 != 0 { (i64::from(second), i64::from(first)) } else { (i64::from(first), i64::from(second)) };
                    let code = match mode {
                        "mul" => 0,
                        "add" => 1,
                        "sub" => 2,
                        "min" => 3,
                        _ => 4,
                    };
                    let combined = npu_model::ethos::elementwise::combine(code, scale_mode, a, b, (opa_shift, opa_scale), opb_scale);
                    let result = apply_scale(combined, params.scale, params.shift, params.rounding);
                    self.store(&ofm, &params, (y, x, c), result + i128::from(params.ofm_zero_point))?;
                }
            }
        }
        Ok(())
    }
}
