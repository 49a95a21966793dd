//! A CONV and a DEPTHWISE of more than 1024 OFM channels in one operation, on the NPU
//! (docs/ethos.md, "NPU top", mutation section: the traversal's 9-bit OFM group counter `og`,
//! groups of 8 OFM channels, passes 127 only there). The convolution unit's CHECK accepts
//! OFM_DEPTH_M1 up to 4094 (`conv_layer.rs`), but Vela 5.2 never writes such an operation: it
//! splits a deep layer into operations of at most 512 OFM channels. So the stream is Vela's
//! for the same layer cut to 16 OFM channels, edited: OFM_DEPTH_M1, the OFM's place and
//! strides (a DEPTHWISE's IFM depth, place and strides too), and the weight and scale/bias
//! streams, which the project's own encoder and record writer make
//! (`npu::ethos::conv_datapath::Job`, in the order the stream's KERNEL_STRIDE and
//! OFM_BLK_DEPTH_M1 name) and which sit after Vela's memory image with the feature maps.
use npu::cosim::lockstep::Run;
use npu::ethos::command_stream::{decode, DriverPayload};
use npu::ethos::conv::reference;
use npu::ethos::conv_datapath::Job;
use npu::ethos::executor::{execute, Memory};
use npu::ethos::memory::Timing;
use npu::ethos::network::{Kind, Network, Op, Operand, Quant, Weights, Window};
use npu::ethos::operation::operations;
use npu::ethos::tflite::{Activation, ConvLayer, Padding, VelaCore};
use npu::model::ethos::command_front_end::{BUS_STATUS, CMD_PARSE_ERROR, IRQ_RAISED};
use rand::Rng;

/// The OFM channels of Vela's layer, whose stream is edited.
const VELA_CHANNELS: usize = 16;

/// A random 1x1 CONV (VALID, stride 1) on an IFM of 1-2 x 1-2 x 1-8 to `channels`, or a 1x1
/// DEPTHWISE of `channels` (`depthwise`): per-channel weight scales over a decade, zero points
/// and the activation drawn.
fn deep_layer(rng: &mut impl Rng, channels: usize, depthwise: bool) -> ConvLayer {
    let (h, w) = (rng.gen_range(1..=2), rng.gen_range(1..=2));
    let c = if depthwise { channels } else { rng.gen_range(1..=8) };
    let taps_per_output = if depthwise { 1 } else { c };
    ConvLayer {
        input_shape: (h, w, c),
        input: (0..h * w * c).map(|_| rng.gen()).collect(),
        input_scale: 0.02,
        input_zero_point: rng.gen(),
        kernel: (1, 1),
        out_channels: channels,
        weights: (0..channels * taps_per_output).map(|_| rng.gen_range(-127..=127)).collect(),
        weight_scales: (0..channels).map(|_| 10f32.powf(rng.gen_range(-2.7..-1.7))).collect(),
        bias: (0..channels).map(|_| rng.gen_range(-4000..=4000)).collect(),
        output_scale: 0.02 * taps_per_output as f32,
        output_zero_point: rng.gen(),
        stride: (1, 1),
        dilation: (1, 1),
        padding: Padding::Valid,
        activation: Activation::ALL[rng.gen_range(0..4)],
        depthwise,
    }
}

/// The one-operator network (CONV_2D or DEPTHWISE_CONV_2D) of `layer`'s first `channels` OFM
/// channels (a DEPTHWISE's IFM cut to them too).
fn network(layer: &ConvLayer, channels: usize) -> Network {
    let (h, w, c) = layer.input_shape;
    let (kind, in_channels, weights) = if layer.depthwise {
        // 1HWC of a 1x1 kernel: one weight per channel.
        let input = layer.input.chunks(c).flat_map(|pixel| pixel[..channels].to_vec()).collect();
        (Kind::DepthwiseConv2d, input, layer.weights[..channels].to_vec())
    } else {
        (Kind::Conv2d, layer.input.clone(), layer.weights[..channels * c].to_vec())
    };
    Network {
        input_shape: [h, w, if layer.depthwise { channels } else { c }],
        input_quant: Quant { scale: layer.input_scale, zero_point: layer.input_zero_point },
        input: in_channels,
        ops: vec![Op {
            kind,
            inputs: vec![Operand::Tensor(0)],
            shape: [h, w, channels],
            quant: Quant { scale: layer.output_scale, zero_point: layer.output_zero_point },
            activation: layer.activation,
            window: Some(Window { kernel: (1, 1), stride: (1, 1), padding: Padding::Valid, dilation: (1, 1) }),
            weights: Some(Weights { weights, scales: layer.weight_scales[..channels].to_vec(), bias: layer.bias[..channels].to_vec() }),
        }],
    }
}

/// Appends `bytes` to the image at a 16-byte boundary; returns their address.
fn append(image: &mut Memory, bytes: &[u8]) -> u64 {
    let at = image.bytes.len().next_multiple_of(16);
    image.bytes.resize(at, 0);
    image.bytes.extend_from_slice(bytes);
    at as u64
}

/// A 1x1 CONV and a 1x1 DEPTHWISE of 1025-1100 OFM channels each (129-138 groups of 8: `og`
/// reaches 128 and more) in one operation, on the Verilated NPU in lock step with its model: the
/// memory after the run must equal the reference executor's, and the OFM the executor wrote
/// must equal TFLite's integer arithmetic done in plain Rust (`npu::ethos::conv::reference`).
/// Kills the N=20 mutant of `og` (bit 5 inverted while bit 7 is set) that the networks of the
/// other tests cannot reach. `CYCLES` layers, CONV and DEPTHWISE in turn.
#[test]
fn ofm_deeper_than_1024_channels_runs_as_the_executor_says() {
    let run = Run::from_env("ofm_deeper_than_1024_channels_runs_as_the_executor_says", 2);
    let mut rng = run.rng();
    let tflite = npu::ethos::tflite::TfLite::in_project(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_or_else(|e| panic!("{e}"));
    for n in 0..run.cycles {
        let depthwise = n % 2 == 1;
        let channels = rng.gen_range(1025..=1100);
        let layer = deep_layer(&mut rng, channels, depthwise);
        let (h, w, c) = layer.input_shape;
        let name = if depthwise { "NPU_OP_DEPTHWISE" } else { "NPU_OP_CONV" };
        let context = format!("SEED={} layer {n}: {name} {h}x{w}x{c} to {channels} channels", run.seed);
        let model = tflite.compile_networks(&[network(&layer, VELA_CHANNELS)], VelaCore::Regor).unwrap().remove(0).unwrap_or_else(|e| panic!("{context}: {e}"));
        let vela = DriverPayload::parse(&model.cmd_data).unwrap().stream;
        let commands = decode(&vela).unwrap();
        let ops = operations(&commands);
        assert_eq!(ops.iter().map(|op| op.name).collect::<Vec<_>>(), [name], "{context}: Vela's operations");
        let conv = &ops[0];
        for (what, map) in [("OFM", conv.output()), ("IFM", conv.input("IFM"))] {
            let depth = if what == "IFM" && !depthwise { c } else { VELA_CHANNELS };
            assert!(!map.nhcwb16 && map.depth as usize == depth && map.stride.0 == depth as i64, "{context}: Vela's {what} {map:?}");
        }
        // The weights in the stream's order, the records, the OFM's place (and a DEPTHWISE's
        // whole IFM) after Vela's image, which holds the IFM cut to 16 channels.
        let block = usize::from(conv.registers.param("NPU_SET_OFM_BLK_DEPTH_M1")) + 1;
        let job = Job::with_order(&layer, conv.kernel().part_kernel_first, block).unwrap_or_else(|e| panic!("{context}: {e}"));
        let cut: Vec<u8> = network(&layer, VELA_CHANNELS).input.iter().map(|&v| v as u8).collect();
        let mut image = Memory::load(&model, &cut).unwrap();
        let weights = append(&mut image, &job.weight_stream);
        let scales = append(&mut image, &job.scale_bias);
        let ifm_at = append(&mut image, &layer.input.iter().map(|&v| v as u8).collect::<Vec<_>>());
        let ofm_at = append(&mut image, &vec![0; h * w * channels]);
        let offset = |region: &str, at: u64| at - image.base[usize::from(conv.registers.param(region))];
        let mut stream = vela.clone();
        let mut set = |name: &str, param: u16, payload: Option<u64>| {
            let at = commands.iter().find(|d| d.command.name == name).unwrap_or_else(|| panic!("{context}: {name} in Vela's stream")).offset / 4;
            stream[at] = (stream[at] & 0xffff) | u32::from(param) << 16;
            if let Some(payload) = payload {
                stream[at + 1] = payload as u32;
            }
        };
        let cmd1 = |value: u64| ((value >> 32) as u16, Some(value));
        let mut edits = vec![
            ("NPU_SET_OFM_DEPTH_M1", (channels as u16 - 1, None)),
            ("NPU_SET_OFM_BASE0", cmd1(offset("NPU_SET_OFM_REGION", ofm_at))),
            ("NPU_SET_OFM_STRIDE_X", cmd1(channels as u64)),
            ("NPU_SET_OFM_STRIDE_Y", cmd1((w * channels) as u64)),
            ("NPU_SET_WEIGHT_BASE", cmd1(offset("NPU_SET_WEIGHT_REGION", weights))),
            ("NPU_SET_WEIGHT_LENGTH", cmd1(job.weight_stream.len() as u64)),
            ("NPU_SET_SCALE_BASE", cmd1(offset("NPU_SET_SCALE_REGION", scales))),
            ("NPU_SET_SCALE_LENGTH", cmd1(job.scale_bias.len() as u64)),
        ];
        if depthwise {
            edits.extend([
                ("NPU_SET_IFM_DEPTH_M1", (channels as u16 - 1, None)),
                ("NPU_SET_IFM_BASE0", cmd1(offset("NPU_SET_IFM_REGION", ifm_at))),
                ("NPU_SET_IFM_STRIDE_X", cmd1(channels as u64)),
                ("NPU_SET_IFM_STRIDE_Y", cmd1((w * channels) as u64)),
            ]);
        }
        for (name, (param, payload)) in edits {
            set(name, param, payload);
        }
        let ops = operations(&decode(&stream).unwrap());
        assert_eq!((ops[0].output().depth as usize, ops[0].input("IFM").depth as usize), (channels, c), "{context}: the edited depths");
        let mut expected = image.clone();
        execute(&ops, &mut expected).unwrap_or_else(|e| panic!("{context}: executor: {e}"));
        let ofm_bytes = ofm_at as usize..ofm_at as usize + h * w * channels;
        let by_executor: Vec<i8> = expected.bytes[ofm_bytes].iter().map(|&b| b as i8).collect();
        assert_eq!(by_executor, reference(&layer), "{context}: the executor's OFM differs from TFLite's arithmetic");
        let limit = Run { cycles: 400_000 + 60 * image.bytes.len() as u64 * 4, ..run.clone() };
        let timing = if rng.gen_bool(0.2) { Timing::fastest() } else { Timing::random(&mut rng) };
        let (outcome, _) = npu::ethos::npu::lockstep(&limit, &image, &stream, timing).unwrap_or_else(|m| panic!("{context}\n{m}"));
        let outcome = outcome.unwrap_or_else(|| panic!("{context}: the NPU did not stop within {} cycles", limit.cycles));
        assert_eq!(outcome.status & (BUS_STATUS | CMD_PARSE_ERROR | IRQ_RAISED), IRQ_RAISED, "{context}: STATUS {:#x}", outcome.status);
        let got = &outcome.memory[..image.bytes.len()];
        if let Some(at) = (0..got.len()).find(|&a| got[a] != expected.bytes[a]) {
            panic!("{context}: byte {at:#x}: NPU {}, executor {}", got[at], expected.bytes[at]);
        }
        println!("{context}: {} cycles", outcome.cycles);
    }
}
