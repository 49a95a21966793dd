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
use super::integer;
use super::layer::{Layer, Registers};

/// Reads a layer file; errors name the 1-based line (a missing section names its layer).
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
                        values.push(integer(v, i64::from(i16::MIN)..=i64::from(i16::MAX)).map_err(|m| format!("line {row_line}: {m}"))? as i16);
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
                    .map(|v| integer(v, i64::from(i32::MIN)..=i64::from(i32::MAX)).map(|v| v as i32))
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

/// Sets register `name` (a seeds/004 name) to `value`, which must fit the field.
fn set(r: &mut Registers, name: &str, value: &str) -> Result<(), String> {
    let byte = |v: &str| integer(v, 0..=255).map(|v| v as u8).map_err(|m| format!("{name} is an 8-bit field: {m}"));
    let flag = |v: &str| integer(v, 0..=1).map(|v| v == 1).map_err(|m| format!("{name} is a 1-bit field: {m}"));
    let word = |v: &str| integer(v, 0..=i64::from(u32::MAX)).map(|v| v as u32).map_err(|m| format!("{name} is a 32-bit field: {m}"));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A layer header shared by the malformed inputs: 2 x 3 by 3 x 2, no bias or sums.
    const HEAD: &str = "INROWS 2\nINCOLS 3\nWGHTROWS 3\nWGHTCOLS 2\n";
    const MATRICES: &str = "X\n1 2 3\n4 5 6\nW\n1 0\n0 1\n1 1\n";

    /// The error of `text`, which must not parse.
    fn error(text: &str) -> String {
        match parse(text) {
            Ok(layers) => panic!("parsed into {} layers:\n{text}", layers.len()),
            Err(e) => e,
        }
    }

    /// `text` fails with a message starting `line {line}: ` and containing `words`.
    fn fails_at(text: &str, line: usize, words: &str) {
        let e = error(text);
        assert!(e.starts_with(&format!("line {line}: ")), "expected line {line}, got `{e}` for:\n{text}");
        assert!(e.contains(words), "expected `{words}` in `{e}` for:\n{text}");
    }

    #[test]
    fn example_file_parses_into_two_layers() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/scale/two_layers.txt")).unwrap();
        let layers = parse(&text).unwrap();
        assert_eq!(layers.len(), 2);
        let first = Registers {
            inrows: 3,
            incols: 10,
            wghtrows: 10,
            wghtcols: 4,
            reinputs: false,
            reweights: false,
            saveout: true,
            usebias: true,
            usesumm: false,
            shiftamt: 2,
            actfn: true,
            base: 0,
            result: 0x1000,
        };
        assert_eq!(layers[0].regs, first);
        assert_eq!(layers[0].x.len(), 30);
        assert_eq!(&layers[0].x[..10], &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        assert_eq!(&layers[0].x[20..], &[32767, -32768, 0, 1, -1, 100, -100, 1000, -1000, 7]);
        assert_eq!(layers[0].w.len(), 40);
        assert_eq!(&layers[0].w[..4], &[1, 0, 0, -1]);
        assert_eq!(&layers[0].w[36..], &[1, -1, 1, -1]);
        assert_eq!(layers[0].bias, vec![100, -100, 0, 50000]);
        assert!(layers[0].sums.is_empty());
        // The second layer sets only what changes; INROWS, SAVEOUT, REWEIGHTS, USESUMM and BASE
        // carry over from the first.
        let second = Registers {
            incols: 4,
            wghtrows: 4,
            wghtcols: 2,
            reinputs: true,
            usebias: false,
            actfn: false,
            shiftamt: 0,
            result: 0x2000,
            ..first
        };
        assert_eq!(layers[1].regs, second);
        assert!(layers[1].x.is_empty(), "REINPUTS: no X");
        assert_eq!(layers[1].w, vec![1, 0, 0, 1, 1, 1, -1, 2]);
        assert!(layers[1].bias.is_empty() && layers[1].sums.is_empty());
    }

    #[test]
    fn well_formed_variants_parse() {
        let text = format!("# comment only\n\n{HEAD}USEBIAS 1\nUSESUMM 0x1\nBASE 0x10  # hex\nRESULT 4096\n{MATRICES}BIAS -1 2147483647\nSUMS -2147483648 0x7\n");
        let layers = parse(&text).unwrap();
        assert_eq!(layers.len(), 1);
        let l = &layers[0];
        assert_eq!((l.regs.base, l.regs.result, l.regs.usebias, l.regs.usesumm), (0x10, 4096, true, true));
        assert_eq!(l.x, vec![1, 2, 3, 4, 5, 6]);
        assert_eq!(l.bias, vec![-1, i32::MAX]);
        assert_eq!(l.sums, vec![i32::MIN, 7]);
    }

    #[test]
    fn unknown_register_names_its_line() {
        fails_at(&format!("{HEAD}INPUTS 2\n{MATRICES}"), 5, "unknown register or section `INPUTS`");
    }

    #[test]
    fn values_out_of_range_name_their_line() {
        fails_at("INCOLS 1\nINROWS 256\n", 2, "INROWS is an 8-bit field: \"256\" is not an integer in 0..=255");
        fails_at(&format!("{HEAD}ACTFN 2\n"), 5, "ACTFN is a 1-bit field: \"2\" is not an integer in 0..=1");
        fails_at(&format!("{HEAD}BASE 0x0\nRESULT 0x100\nBASE 0x100000000\n"), 7, "BASE is a 32-bit field: \"0x100000000\" is not an integer in 0..=4294967295");
        fails_at(&format!("{HEAD}X\n1 2 3\n4 40000 6\n"), 7, "\"40000\" is not an integer in -32768..=32767");
        fails_at(&format!("{HEAD}X\n1 2 -32769\n"), 6, "\"-32769\" is not an integer in -32768..=32767");
        fails_at(&format!("{HEAD}USEBIAS 1\n{MATRICES}BIAS 1 2147483648\n"), 13, "\"2147483648\" is not an integer in -2147483648..=2147483647");
    }

    #[test]
    fn matrix_row_with_wrong_count_names_the_row() {
        fails_at(&format!("{HEAD}X\n1 2 3\n4 5\nW\n1 0\n0 1\n1 1\n"), 7, "a row of X needs 3 values, not 2");
        fails_at(&format!("{HEAD}X\n1 2 3\n4 5 6\nW\n1 0\n0 1 2\n1 1\n"), 10, "a row of W needs 2 values, not 3");
        // A keyword where a row belongs is a short row, not the next section.
        fails_at(&format!("{HEAD}X\n1 2 3\nW\n1 0\n0 1\n1 1\n"), 7, "a row of X needs 3 values, not 1");
    }

    #[test]
    fn matrix_cut_short_names_its_header() {
        fails_at(&format!("{HEAD}X\n1 2 3\n4 5 6\nW\n1 0\n0 1\n"), 8, "W needs 3 rows, the file ends first");
        fails_at(&format!("{HEAD}X\n"), 5, "X needs 2 rows, the file ends first");
    }

    #[test]
    fn bias_and_sums_with_wrong_count_name_their_line() {
        fails_at(&format!("{HEAD}USEBIAS 1\n{MATRICES}BIAS 1 2 3\n"), 13, "BIAS needs WGHTCOLS = 2 values, not 3");
        fails_at(&format!("{HEAD}USESUMM 1\n{MATRICES}SUMS 1\n"), 13, "SUMS needs WGHTCOLS = 2 values, not 1");
    }

    #[test]
    fn missing_sections_name_the_layer() {
        // Without REINPUTS a layer must give X; the message names the layer (the section
        // has no line to name).
        assert_eq!(error(&format!("{HEAD}REINPUTS 0\nW\n1 0\n0 1\n1 1\n")), "layer 1: X (INROWS x INCOLS) is not given");
        assert_eq!(error(&format!("{HEAD}{MATRICES}LAYER\nW\n1 0\n0 1\n1 1\n")), "layer 2: X (INROWS x INCOLS) is not given");
        // ... and with it, none.
        assert!(parse(&format!("{HEAD}{MATRICES}SAVEOUT 1\nLAYER\nREINPUTS 1\nINCOLS 2\nWGHTROWS 2\nW\n1 0\n0 1\n")).is_ok());
        assert_eq!(error(&format!("{HEAD}X\n1 2 3\n4 5 6\n")), "layer 1: W (WGHTROWS x WGHTCOLS) is not given");
        assert_eq!(error(&format!("{HEAD}USEBIAS 1\n{MATRICES}")), "layer 1: BIAS is not given");
        assert_eq!(error(&format!("{HEAD}USESUMM 1\n{MATRICES}")), "layer 1: SUMS is not given");
    }

    #[test]
    fn non_numbers_name_their_line() {
        fails_at(&format!("{HEAD}SHIFTAMT two\n"), 5, "\"two\" is not an integer");
        fails_at(&format!("{HEAD}X\n1 2 3\n4 five 6\n"), 7, "\"five\" is not an integer");
        fails_at(&format!("{HEAD}USEBIAS 1\n{MATRICES}BIAS 1 0xZZ\n"), 13, "\"0xZZ\" is not an integer");
        fails_at("INCOLS 1.5\n", 1, "\"1.5\" is not an integer");
    }

    #[test]
    fn register_without_value_names_its_line() {
        fails_at("INCOLS 3\n\n# blank and comment lines count\nINROWS\n", 4, "expected `INROWS VALUE`");
        fails_at("INROWS 2 3\n", 1, "expected `INROWS VALUE`");
    }
}
