//! The text file `npu scale run` takes: one or more layers, each its register values and the
//! matrices its image at BASE holds (docs/scale.md, "Layer files").
//!
//! ```text
//! # comment
//! INROWS 2          # registers by their seeds/004 names, decimal or 0x hex
//! INCOLS 3
//! ...
//! BASE 0x0
//! RESULT 0x1000
//! X                 # INROWS lines of INCOLS int16 (unless REINPUTS)
//! 1 2 3
//! 4 5 6
//! W                 # WGHTROWS lines of WGHTCOLS int16 (unless REWEIGHTS)
//! ...
//! BIAS 10 -10       # WGHTCOLS int32 (if USEBIAS); SUMS likewise (if USESUMM)
//! LAYER             # starts the next layer; it keeps the registers it does not set
//! ```
use super::layer::{Layer, Registers};

/// Reads a layer file; errors name the 1-based line.
pub fn parse(text: &str) -> Result<Vec<Layer>, String> {
    let mut layers = vec![Layer::default()];
    let lines: Vec<(usize, Vec<&str>)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split('#').next().unwrap().split_whitespace().collect::<Vec<_>>()))
        .filter(|(_, words)| !words.is_empty())
        .collect();
    let mut at = 0;
    while at < lines.len() {
        let (line, words) = &lines[at];
        let err = |m: String| format!("line {line}: {m}");
        let layer = layers.last_mut().unwrap();
        at += 1;
        match words[0] {
            "LAYER" => {
                let regs = layer.regs.clone();
                layers.push(Layer { regs, ..Layer::default() });
            }
            "X" | "W" => {
                let r = &layer.regs;
                let (rows, cols) = if words[0] == "X" { (r.inrows, r.incols) } else { (r.wghtrows, r.wghtcols) };
                let mut values = Vec::new();
                for _ in 0..rows {
                    let Some((row_line, row)) = lines.get(at) else {
                        return Err(err(format!("{} needs {rows} rows, the file ends first", words[0])));
                    };
                    if row.len() != usize::from(cols) {
                        return Err(format!("line {row_line}: a row of {} needs {cols} values, not {}", words[0], row.len()));
                    }
                    for v in row {
                        values.push(number(v, i64::from(i16::MIN), i64::from(i16::MAX)).map_err(|m| format!("line {row_line}: {m}"))? as i16);
                    }
                    at += 1;
                }
                if words[0] == "X" {
                    layer.x = values;
                } else {
                    layer.w = values;
                }
            }
            "BIAS" | "SUMS" => {
                let values = words[1..]
                    .iter()
                    .map(|v| number(v, i64::from(i32::MIN), i64::from(i32::MAX)).map(|v| v as i32))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(err)?;
                if values.len() != usize::from(layer.regs.wghtcols) {
                    return Err(err(format!("{} needs WGHTCOLS = {} values, not {}", words[0], layer.regs.wghtcols, values.len())));
                }
                if words[0] == "BIAS" {
                    layer.bias = values;
                } else {
                    layer.sums = values;
                }
            }
            name => {
                let [_, value] = words[..] else {
                    return Err(err(format!("expected `{name} VALUE`")));
                };
                set(&mut layer.regs, name, value).map_err(err)?;
            }
        }
    }
    for (i, layer) in layers.iter().enumerate() {
        let r = &layer.regs;
        let missing = |what: &str| Err(format!("layer {}: {what} is not given", i + 1));
        if !r.reinputs && layer.x.len() != usize::from(r.inrows) * usize::from(r.incols) {
            return missing("X (INROWS x INCOLS)");
        }
        if !r.reweights && layer.w.len() != usize::from(r.wghtrows) * usize::from(r.wghtcols) {
            return missing("W (WGHTROWS x WGHTCOLS)");
        }
        if r.usebias && layer.bias.len() != usize::from(r.wghtcols) {
            return missing("BIAS");
        }
        if r.usesumm && layer.sums.len() != usize::from(r.wghtcols) {
            return missing("SUMS");
        }
    }
    Ok(layers)
}

fn number(text: &str, min: i64, max: i64) -> Result<i64, String> {
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    let v = parsed.map_err(|_| format!("`{text}` is not a number"))?;
    if v < min || v > max {
        return Err(format!("{v} is out of range {min}..={max}"));
    }
    Ok(v)
}

/// Sets register `name` (a seeds/004 name) to `value`, which must fit the field.
fn set(r: &mut Registers, name: &str, value: &str) -> Result<(), String> {
    let byte = |v: &str| number(v, 0, 255).map(|v| v as u8).map_err(|m| format!("{name} is an 8-bit field: {m}"));
    let flag = |v: &str| number(v, 0, 1).map(|v| v == 1).map_err(|m| format!("{name} is a 1-bit field: {m}"));
    let word = |v: &str| number(v, 0, i64::from(u32::MAX)).map(|v| v as u32).map_err(|m| format!("{name} is a 32-bit field: {m}"));
    match name {
        "INROWS" => r.inrows = byte(value)?,
        "INCOLS" => r.incols = byte(value)?,
        "WGHTROWS" => r.wghtrows = byte(value)?,
        "WGHTCOLS" => r.wghtcols = byte(value)?,
        "REINPUTS" => r.reinputs = flag(value)?,
        "REWEIGHTS" => r.reweights = flag(value)?,
        "SAVEOUT" => r.saveout = flag(value)?,
        "USEBIAS" => r.usebias = flag(value)?,
        "USESUMM" => r.usesumm = flag(value)?,
        "SHIFTAMT" => r.shiftamt = byte(value)?,
        "ACTFN" => r.actfn = flag(value)?,
        "BASE" => r.base = word(value)?,
        "RESULT" => r.result = word(value)?,
        _ => return Err(format!("unknown register or section `{name}`")),
    }
    Ok(())
}
