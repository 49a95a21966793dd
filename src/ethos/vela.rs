//! Arm's Vela compiler as the oracle of the weight codec: PyPI `ethos-u-vela` 5.2.0, whose
//! `ethosu.mlw_codec` is the C encoder and decoder that Vela-compiled networks run with. It is
//! installed once into a venv under `build/` and driven by `vela_oracle.py`: one Python
//! process per batch, the data over stdin/stdout (framing described in that file).
use crate::ethos::reorder::{ReorderParams, Traversal, UBLOCK_DEPTH};
use std::path::{Path, PathBuf};
use std::process::Command;

const PACKAGE: &str = "ethos-u-vela==5.2.0";
const ORACLE: &str = include_str!("vela_oracle.py");

/// A venv's Python with Vela installed.
#[derive(Clone, Debug)]
pub struct Vela {
    python: PathBuf,
}

impl Vela {
    /// Vela in the venv `build/vela-venv` of the project at `root`, created on first use.
    /// Several processes may race: each builds a venv of its own next to it and renames it
    /// into place; whoever finds the place taken discards its copy.
    pub fn in_project(root: &Path) -> Result<Vela, String> {
        Self::in_venv(&root.join("build/vela-venv"))
    }

    /// Vela in the venv `venv`, created on first use (as [`Vela::in_project`]).
    pub fn in_venv(venv: &Path) -> Result<Vela, String> {
        crate::pypi::venv_python(venv, &[PACKAGE], "import ethosu.mlw_codec", "the Vela oracle").map(|python| Vela { python })
    }

    /// Vela's encoding of each weight vector (-255..=255), padded to 16 bytes.
    pub fn encode(&self, batch: &[Vec<i16>]) -> Result<Vec<Vec<u8>>, String> {
        let mut request = Request::new(batch.len());
        for weights in batch {
            request.i16s(weights);
        }
        let answer = self.call("encode", request)?;
        answer.frames(batch.len(), |a| a.bytes())
    }

    /// Vela's decoding of each stream; `None` where Vela rejected it.
    pub fn decode(&self, batch: &[Vec<u8>]) -> Result<Vec<Option<Vec<i16>>>, String> {
        let mut request = Request::new(batch.len());
        for stream in batch {
            request.u32(stream.len());
            request.0.extend_from_slice(stream);
        }
        let answer = self.call("decode", request)?;
        answer.frames(batch.len(), |a| {
            let n = a.u32()? as i32;
            (n >= 0).then(|| a.i16s(n as usize)).transpose()
        })
    }

    /// Vela's `reorder_encode` of each OHWI kernel, with the U65's micro-block depths.
    pub fn reorder_encode(
        &self,
        batch: &[(ReorderParams, Vec<i16>)],
    ) -> Result<Vec<Vec<u8>>, String> {
        let mut request = Request::new(batch.len());
        for (p, weights) in batch {
            let flags = usize::from(p.kind == Traversal::Depthwise)
                | usize::from(p.kind == Traversal::PartKernelFirst) << 1;
            let fields = [
                UBLOCK_DEPTH,
                UBLOCK_DEPTH,
                p.ofm_depth,
                p.kernel_height,
                p.kernel_width,
                p.ifm_depth,
                p.ofm_block_depth,
                flags,
                usize::from(p.ifm_bitdepth),
                p.decomp_h() << 16 | p.decomp_w(),
            ];
            fields.into_iter().for_each(|f| request.u32(f));
            request.i16s(weights);
        }
        let answer = self.call("reorder_encode", request)?;
        answer.frames(batch.len(), |a| a.bytes())
    }

    fn command(&self) -> Command {
        let mut command = Command::new(&self.python);
        // Isolated from the user's Python settings; numpy's BLAS threads are not needed.
        command.arg("-I").env("OPENBLAS_NUM_THREADS", "1");
        command
    }

    fn call(&self, op: &str, request: Request) -> Result<Answer, String> {
        let mut command = self.command();
        command.args(["-c", ORACLE, op]);
        let data = crate::pypi::exchange(command, request.0, &format!("Vela oracle {op}"))?;
        Ok(Answer { data, pos: 0 })
    }
}


struct Request(Vec<u8>);

impl Request {
    fn new(count: usize) -> Self {
        let mut request = Request(Vec::new());
        request.u32(count);
        request
    }

    fn u32(&mut self, value: usize) {
        let value = u32::try_from(value).expect("oracle request field exceeds 32 bits");
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    fn i16s(&mut self, values: &[i16]) {
        self.u32(values.len());
        self.0.extend(values.iter().flat_map(|v| v.to_le_bytes()));
    }
}

struct Answer {
    data: Vec<u8>,
    pos: usize,
}

impl Answer {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let bytes = self
            .data
            .get(self.pos..self.pos + n)
            .ok_or("the Vela oracle's answer is cut short")?;
        self.pos += n;
        Ok(bytes)
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }

    fn bytes(&mut self) -> Result<Vec<u8>, String> {
        let n = self.u32()? as usize;
        Ok(self.take(n)?.to_vec())
    }

    fn i16s(&mut self, n: usize) -> Result<Vec<i16>, String> {
        Ok(self
            .take(2 * n)?
            .chunks(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect())
    }

    /// `count` answers read by `item`, and nothing after them.
    fn frames<T>(
        mut self,
        count: usize,
        mut item: impl FnMut(&mut Self) -> Result<T, String>,
    ) -> Result<Vec<T>, String> {
        let items = (0..count)
            .map(|_| item(&mut self))
            .collect::<Result<Vec<_>, _>>()?;
        if self.pos != self.data.len() {
            return Err(format!(
                "the Vela oracle answered {} bytes more than expected",
                self.data.len() - self.pos
            ));
        }
        Ok(items)
    }
}
