//! `npu ethos`: Arm Ethos-U65 compressed weight streams (TRM 4.7) through the project's encoder
//! and the Verilated weight decoder.
use super::{check_writable, check_written, dut_options, engine_name, Outcome};
use clap::Subcommand;
use npu::cosim::Dut;
use npu::model::Block;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

#[derive(Subcommand)]
pub enum Ethos {
    /// Decodes a compressed weight stream and prints one weight per line
    ///
    /// The stream's bytes are as Vela writes them. It runs through the Verilated weight
    /// decoder, or its model with --model; cycles and weights per cycle go to stderr. A
    /// malformed stream prints the weights delivered before the fault, then the fault, and
    /// exits 2. NPU_WAVES=FILE.fst writes a waveform of the Verilated run.
    Decode {
        /// The stream file
        stream: PathBuf,
        /// Run the decoder's behavioural model instead of the Verilated RTL
        #[arg(long)]
        model: bool,
    },
    /// Encodes weights into a stream with the project's own encoder
    ///
    /// The weights file holds integers -255..255, whitespace separated, # comments.
    Encode {
        /// The weights file
        weights: PathBuf,
        /// Where to write the stream
        stream: PathBuf,
    },
}

impl Ethos {
    pub fn run(self) -> Outcome {
        match self {
            Ethos::Decode { stream, model } => decode(&stream, model),
            Ethos::Encode { weights, stream } => encode(&weights, &stream),
        }
    }
}

fn decode(path: &Path, model: bool) -> Outcome {
    use npu::cosim::tops::weight_decoder::WeightDecoder as Verilated;
    use npu::ethos::driver::{decode, Outcome};
    use npu::model::ethos::weight_decoder::WeightDecoder;
    let name = path.display();
    let stream = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
    let options = dut_options()?;
    let decoded = if model {
        let mut decoder = WeightDecoder::default();
        decode(&stream, |i| decoder.step(i))
    } else {
        let mut decoder = Verilated::open(&options);
        decode(&stream, |i| decoder.step(i))
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    let write_error = |e: std::io::Error| format!("standard output: {e}");
    for w in &decoded.weights {
        writeln!(out, "{w}").map_err(write_error)?;
    }
    out.flush().map_err(write_error)?;
    if let Some(file) = options.waves.as_ref().filter(|_| !model) {
        check_written(file)?;
    }
    let summary = format!(
        "{name}: {} weights from {} bytes in {} cycles ({:.2} weights per cycle, {})",
        decoded.weights.len(),
        stream.len(),
        decoded.cycles,
        decoded.weights.len() as f64 / decoded.cycles.max(1) as f64,
        engine_name(model)
    );
    match decoded.outcome {
        Outcome::Done => {
            eprintln!("{summary}");
            Ok(())
        }
        Outcome::Error(e) => Err(format!("{summary}\n{name}: malformed stream: {} (error code {})", e.message(), e as u8).into()),
        Outcome::Hung => Err(format!("{summary}\n{name}: the decoder neither finished nor reported a fault (a bug)").into()),
    }
}

fn encode(input: &Path, output: &Path) -> Outcome {
    use npu::ethos::encoder::{encode, EncodeOptions};
    let name = input.display();
    let text = std::fs::read_to_string(input).map_err(|e| format!("{name}: {e}"))?;
    let mut weights = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for word in line.split('#').next().unwrap_or("").split_whitespace() {
            let w: i16 = word.parse().map_err(|_| format!("{name}:{}: {word:?} is not a weight", n + 1))?;
            weights.push(w);
        }
    }
    check_writable(output)?;
    let stream = encode(&weights, &EncodeOptions::default()).map_err(|e| format!("{name}: {e}"))?;
    std::fs::write(output, &stream).map_err(|e| format!("{}: {e}", output.display()))?;
    eprintln!(
        "{}: {} weights in {} bytes ({:.2} bits per weight)",
        output.display(),
        weights.len(),
        stream.len(),
        8.0 * stream.len() as f64 / weights.len().max(1) as f64
    );
    Ok(())
}
