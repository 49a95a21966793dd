//! The text file `npu scale run` takes: one or more layers, each its register values and the
//! matrices its image at BASE holds (docs/scale.md, "Layer files", which also lists what the
//! grammar refuses and why).
//!
//! ```text
//! # comment
//! INROWS 2          # registers by their seeds/004 names, decimal or 0x hex
//! INCOLS 3
//! ...
//! BASE 0x0
//! RESULT 0x1000
//! X                 # INROWS lines of INCOLS int16 (unless REINPUTS: X is then kept on chip)
//! 1 2 3
//! 4 5 6
//! W                 # WGHTROWS lines of WGHTCOLS int16 (unless REWEIGHTS)
//! ...
//! BIAS 10 -10       # WGHTCOLS int32 (if USEBIAS); SUMS likewise (if USESUMM)
//! LAYER             # starts the next layer; it keeps the registers it does not set
//! ```
use crate::integer;
use super::layer::{Layer, Registers};

/// The sections of a layer, in the order the memory image holds them (docs/scale.md,
/// "Memory layout at BASE").
const SECTIONS: [&str; 4] = ["X", "W", "BIAS", "SUMS"];

/// A layer being read: what it holds, and the line of everything it set, so that a repeat, a
/// section the registers make unused, or a shape changed after its section is refused.
struct Reading<'a> {
    layer: Layer,
    /// The line the layer starts on: its `LAYER` line, or the file's first word.
    line: usize,
    /// Registers (by name) and sections set in this layer, with their lines.
    set: Vec<(&'a str, usize)>,
}

impl Reading<'_> {
    fn line_of(&self, name: &str) -> Option<usize> {
        self.set.iter().find(|(n, _)| *n == name).map(|&(_, line)| line)
    }

    /// The checks only the whole layer allows: every section its registers read is given,
    /// none it does not read is. `index` is 1-based.
    fn finish(self, index: usize) -> Result<Layer, String> {
        let r = &self.layer.regs;
        let (x, w, cols) = (usize::from(r.inrows) * usize::from(r.incols), usize::from(r.wghtrows) * usize::from(r.wghtcols), usize::from(r.wghtcols));
        // (section, read by the unit, why not, how many values, what they are). A section of
        // no values (a dimension 0, which the unit refuses with CPU_ERR) need not be given.
        let rules = [
            ("X", !r.reinputs, "REINPUTS is 1: the unit takes X from its result buffer (the last successful layer's results)", x, "INROWS x INCOLS int16"),
            ("W", !r.reweights, "REWEIGHTS is 1: the unit keeps the previous layer's weights", w, "WGHTROWS x WGHTCOLS int16"),
            ("BIAS", r.usebias, "USEBIAS is 0", cols, "WGHTCOLS int32"),
            ("SUMS", r.usesumm, "USESUMM is 0", cols, "WGHTCOLS int32"),
        ];
        for (section, read, why_not, values, holds) in rules {
            match (self.line_of(section), read) {
                (Some(line), false) => return Err(format!("line {line}: {section} is given but not read: {why_not}")),
                (None, true) if values > 0 => return Err(format!("line {}: layer {index} does not give {section} ({holds})", self.line)),
                _ => {}
            }
        }
        Ok(self.layer)
    }
}

/// Reads a layer file; every error names the 1-based line (a missing section names the line
/// its layer starts on), except for a file with no layer at all.
pub fn parse(text: &str) -> Result<Vec<Layer>, String> {
    // Each line's words before any `#`, blank lines dropped; the words borrow from `text`, so
    // this takes memory in proportion to the file, never to a register's value.
    let lines: Vec<(usize, Vec<&str>)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split('#').next().unwrap_or("").split_whitespace().collect::<Vec<_>>()))
        .filter(|(_, words)| !words.is_empty())
        .collect();
    let Some((first_line, _)) = lines.first() else {
        return Err("the file holds no layer: it has only blank lines and comments".to_string());
    };
    let mut layers = Vec::new();
    let mut now = Reading { layer: Layer::default(), line: *first_line, set: Vec::new() };
    let mut at = 0;
    while at < lines.len() {
        let (line, words) = (lines[at].0, &lines[at].1);
        let err = |m: String| format!("line {line}: {m}");
        at += 1;
        let name = words[0];
        // A section or LAYER takes its values on the following lines (BIAS and SUMS on its
        // own), a register exactly one value.
        let takes_values = matches!(name, "BIAS" | "SUMS");
        if matches!(name, "LAYER" | "X" | "W") && words.len() > 1 {
            return Err(err(format!("`{name}` stands alone on its line; found `{}` after it", words[1])));
        }
        if name == "LAYER" {
            if now.set.is_empty() {
                return Err(err(if layers.is_empty() {
                    "LAYER before any register or section: the first layer starts at the top of the file".to_string()
                } else {
                    format!("LAYER ends layer {}, which sets nothing (from line {})", layers.len() + 1, now.line)
                }));
            }
            let regs = now.layer.regs.clone();
            let done = std::mem::replace(&mut now, Reading { layer: Layer { regs, ..Layer::default() }, line, set: Vec::new() });
            layers.push(done.finish(layers.len() + 1)?);
            continue;
        }
        if let Some(first) = now.line_of(name) {
            let what = if SECTIONS.contains(&name) { "given" } else { "set" };
            return Err(err(format!("{name} is {what} twice in layer {} (first on line {first})", layers.len() + 1)));
        }
        match name {
            "X" | "W" => {
                let r = &now.layer.regs;
                let (rows, cols) = if name == "X" { (r.inrows, r.incols) } else { (r.wghtrows, r.wghtcols) };
                // Values are pushed as rows are read: a large INROWS x INCOLS with a short
                // file ends at the file's end, having taken no more than the file holds.
                let mut values = Vec::new();
                for _ in 0..rows {
                    let Some((row_line, row)) = lines.get(at) else {
                        return Err(err(format!("{name} needs {rows} rows, the file ends first")));
                    };
                    if row.len() != usize::from(cols) {
                        return Err(format!("line {row_line}: a row of {name} needs {cols} values, not {}", row.len()));
                    }
                    for v in row {
                        values.push(integer(v, i64::from(i16::MIN)..=i64::from(i16::MAX)).map_err(|m| format!("line {row_line}: {m}"))? as i16);
                    }
                    at += 1;
                }
                if name == "X" {
                    now.layer.x = values;
                } else {
                    now.layer.w = values;
                }
            }
            _ if takes_values => {
                let values = words[1..]
                    .iter()
                    .map(|v| integer(v, i64::from(i32::MIN)..=i64::from(i32::MAX)).map(|v| v as i32))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(err)?;
                if values.len() != usize::from(now.layer.regs.wghtcols) {
                    return Err(err(format!("{name} needs WGHTCOLS = {} values, not {}", now.layer.regs.wghtcols, values.len())));
                }
                if name == "BIAS" {
                    now.layer.bias = values;
                } else {
                    now.layer.sums = values;
                }
            }
            _ => {
                let [_, value] = words[..] else {
                    return Err(err(if REGISTERS.contains(&name) { format!("expected `{name} VALUE`") } else { unknown(name) }));
                };
                // A shape register after the section it shapes would leave the section read
                // with the old shape.
                let shaped = match name {
                    "INROWS" | "INCOLS" => &["X"][..],
                    "WGHTROWS" => &["W"][..],
                    "WGHTCOLS" => &["W", "BIAS", "SUMS"][..],
                    _ => &[][..],
                };
                if let Some((section, at_line)) = shaped.iter().find_map(|s| now.line_of(s).map(|l| (s, l))) {
                    return Err(err(format!("{name} is set after {section} (line {at_line}), which it shapes: set it before")));
                }
                set(&mut now.layer.regs, name, value).map_err(err)?;
            }
        }
        now.set.push((name, line));
    }
    if now.set.is_empty() {
        return Err(format!("line {}: LAYER ends the file: the layer it starts sets nothing", now.line));
    }
    layers.push(now.finish(layers.len() + 1)?);
    Ok(layers)
}

/// The configuration registers a layer file sets, by their seeds/004 names (the others are
/// INIT, IRQ, EXITCODE and the ID registers, which the driver handles).
const REGISTERS: [&str; 13] =
    ["INROWS", "INCOLS", "WGHTROWS", "WGHTCOLS", "REINPUTS", "REWEIGHTS", "SAVEOUT", "USEBIAS", "USESUMM", "SHIFTAMT", "ACTFN", "BASE", "RESULT"];

fn unknown(name: &str) -> String {
    format!("unknown register or section `{name}`")
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
        _ => return Err(unknown(name)),
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
        fails_at("INCOLS 1\nINROWS 256\n", 2, "INROWS is an 8-bit field: `256` is not an integer in 0..=255");
        fails_at(&format!("{HEAD}ACTFN 2\n"), 5, "ACTFN is a 1-bit field: `2` is not an integer in 0..=1");
        fails_at(&format!("{HEAD}RESULT 0x100\nBASE 0x100000000\n"), 6, "BASE is a 32-bit field: `0x100000000` is not an integer in 0..=4294967295");
        fails_at(&format!("{HEAD}X\n1 2 3\n4 40000 6\n"), 7, "`40000` is not an integer in -32768..=32767");
        fails_at(&format!("{HEAD}X\n1 2 -32769\n"), 6, "`-32769` is not an integer in -32768..=32767");
        fails_at(&format!("{HEAD}USEBIAS 1\n{MATRICES}BIAS 1 2147483648\n"), 13, "`2147483648` is not an integer in -2147483648..=2147483647");
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
    fn missing_sections_name_the_line_their_layer_starts_on() {
        // Without REINPUTS a layer must give X: the message names the first line of the layer
        // (the missing section has no line of its own).
        fails_at(&format!("{HEAD}REINPUTS 0\nW\n1 0\n0 1\n1 1\n"), 1, "layer 1 does not give X (INROWS x INCOLS int16)");
        fails_at(&format!("# comment\n\n{HEAD}REINPUTS 0\nW\n1 0\n0 1\n1 1\n"), 3, "layer 1 does not give X");
        fails_at(&format!("{HEAD}{MATRICES}LAYER\nW\n1 0\n0 1\n1 1\n"), 12, "layer 2 does not give X");
        // ... and with it, none.
        assert!(parse(&format!("{HEAD}{MATRICES}SAVEOUT 1\nLAYER\nREINPUTS 1\nINCOLS 2\nWGHTROWS 2\nW\n1 0\n0 1\n")).is_ok());
        fails_at(&format!("{HEAD}X\n1 2 3\n4 5 6\n"), 1, "layer 1 does not give W (WGHTROWS x WGHTCOLS int16)");
        fails_at(&format!("{HEAD}USEBIAS 1\n{MATRICES}"), 1, "layer 1 does not give BIAS (WGHTCOLS int32)");
        fails_at(&format!("{HEAD}USESUMM 1\n{MATRICES}"), 1, "layer 1 does not give SUMS (WGHTCOLS int32)");
        // A section of no values need not be given (the unit refuses the layer: CPU_ERR).
        let layers = parse("INROWS 0\nINCOLS 2\nWGHTROWS 2\nWGHTCOLS 1\nUSEBIAS 1\nW\n1\n2\nBIAS 5\n").unwrap();
        assert!(layers[0].x.is_empty() && layers[0].w == vec![1, 2]);
    }

    #[test]
    fn a_file_without_a_layer_is_refused() {
        for text in ["", "\n\n", "# only\n   # comments\n\t\n"] {
            assert_eq!(error(text), "the file holds no layer: it has only blank lines and comments", "{text:?}");
        }
    }

    #[test]
    fn empty_layers_are_refused_at_their_layer_line() {
        fails_at(&format!("# c\nLAYER\n{HEAD}{MATRICES}"), 2, "LAYER before any register or section");
        fails_at(&format!("{HEAD}{MATRICES}LAYER\nLAYER\n{MATRICES}"), 13, "LAYER ends layer 2, which sets nothing (from line 12)");
        fails_at(&format!("{HEAD}{MATRICES}LAYER\n# nothing more\n"), 12, "LAYER ends the file: the layer it starts sets nothing");
    }

    #[test]
    fn words_after_a_section_name_are_refused_naming_the_word() {
        fails_at(&format!("{HEAD}X junk\n1 2 3\n4 5 6\n"), 5, "`X` stands alone on its line; found `junk` after it");
        fails_at(&format!("{HEAD}X\n1 2 3\n4 5 6\nW foo\n1 0\n0 1\n1 1\n"), 8, "`W` stands alone on its line; found `foo` after it");
        fails_at(&format!("{HEAD}{MATRICES}LAYER 3\n"), 12, "`LAYER` stands alone on its line; found `3` after it");
        // A bare unknown word is unknown, not a register without its value.
        fails_at(&format!("{HEAD}BOGUS\n"), 5, "unknown register or section `BOGUS`");
        fails_at(&format!("{HEAD}inrows 2\n"), 5, "unknown register or section `inrows`");
    }

    #[test]
    fn a_register_or_section_twice_in_a_layer_is_refused() {
        fails_at(&format!("{HEAD}INROWS 2\n"), 5, "INROWS is set twice in layer 1 (first on line 1)");
        fails_at(&format!("{HEAD}X\n1 2 3\n4 5 6\nX\n1 2 3\n4 5 6\n"), 8, "X is given twice in layer 1 (first on line 5)");
        fails_at(&format!("{HEAD}USEBIAS 1\n{MATRICES}BIAS 1 2\nBIAS 1 2\n"), 14, "BIAS is given twice in layer 1 (first on line 13)");
        // The next layer may set it again: that is how a layer changes a register.
        assert_eq!(parse(&format!("{HEAD}{MATRICES}LAYER\nINROWS 1\nX\n7 8 9\n{}", &MATRICES[14..])).unwrap()[1].x, vec![7, 8, 9]);
    }

    #[test]
    fn a_section_the_registers_do_not_read_is_refused() {
        fails_at(&format!("{HEAD}SAVEOUT 1\n{MATRICES}LAYER\nREINPUTS 1\nX\n1 2 3\n4 5 6\n"), 15, "X is given but not read: REINPUTS is 1");
        fails_at(&format!("{HEAD}{MATRICES}LAYER\nREWEIGHTS 1\n{MATRICES}"), 17, "W is given but not read: REWEIGHTS is 1");
        fails_at(&format!("{HEAD}{MATRICES}BIAS 1 2\n"), 12, "BIAS is given but not read: USEBIAS is 0");
        fails_at(&format!("{HEAD}{MATRICES}SUMS 1 2\n"), 12, "SUMS is given but not read: USESUMM is 0");
    }

    #[test]
    fn a_shape_set_after_its_section_is_refused() {
        // (Within one layer a register is set once, so only a carried-over one can come late.)
        fails_at(&format!("{HEAD}{MATRICES}LAYER\nX\n1 2 3\n4 5 6\nINROWS 1\n"), 16, "INROWS is set after X (line 13), which it shapes: set it before");
        fails_at(&format!("{HEAD}{MATRICES}LAYER\n{MATRICES}WGHTCOLS 2\n"), 20, "WGHTCOLS is set after W (line 16)");
        fails_at(&format!("INROWS 2\nUSEBIAS 1\nBIAS\nWGHTCOLS 2\n"), 4, "WGHTCOLS is set after BIAS (line 3)");
    }

    #[test]
    fn non_numbers_name_their_line() {
        fails_at(&format!("{HEAD}SHIFTAMT two\n"), 5, "`two` is not an integer");
        fails_at(&format!("{HEAD}X\n1 2 3\n4 five 6\n"), 7, "`five` is not an integer");
        fails_at(&format!("{HEAD}USEBIAS 1\n{MATRICES}BIAS 1 0xZZ\n"), 13, "`0xZZ` is not an integer");
        fails_at("INCOLS 1.5\n", 1, "`1.5` is not an integer");
    }

    #[test]
    fn register_without_value_names_its_line() {
        fails_at("INCOLS 3\n\n# blank and comment lines count\nINROWS\n", 4, "expected `INROWS VALUE`");
        fails_at("INROWS 2 3\n", 1, "expected `INROWS VALUE`");
    }
}
