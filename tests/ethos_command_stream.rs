//! Ethos-U65 command streams: the project's decoder (`npu::ethos::command_stream`, command
//! table `npu_hdl::ethos::command_set`) against Vela's own `--verbose-register-command-stream`
//! listing, on random conv and depthwise layers compiled by Vela 5.2 with both its cores
//! (digest `shared/spec/ethos-u65.md` §3; `shared/notes/ethos-command-stream.md`). Then the
//! same streams damaged at random: every damaged stream is refused or decodes to words that
//! re-encode to itself. `SEED` repeats a run, `CYCLES` sets the number of layers.
use npu::cosim::lockstep::{Coverage, Run};
use npu::ethos::command_stream::{decode, listing_disagreement, words, Decoded, DriverPayload, StreamError};
use npu::ethos::conv::random_layer;
use npu::ethos::tflite::{Compiled, ConvLayer, TfLite, VelaCore};
use rand::Rng;

fn compile(layers: &[ConvLayer], core: VelaCore) -> Vec<Compiled> {
    let oracle = TfLite::in_project(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_or_else(|e| panic!("{e}"));
    oracle.compile(layers, core).unwrap_or_else(|e| panic!("{e}"))
}

/// The words a decoded stream stands for.
fn encode(commands: &[Decoded]) -> Vec<u32> {
    commands.iter().flat_map(|c| std::iter::once(c.command.word(c.param)).chain(c.payload)).collect()
}

/// One of `run.cycles` random layers as Vela compiled it with one of its cores, decoded.
struct CompiledLayer {
    core: VelaCore,
    layer: ConvLayer,
    compiled: Compiled,
    payload: DriverPayload,
    commands: Vec<Decoded>,
    /// The seed, layer index, core and shape, for messages.
    context: String,
}

/// `run.cycles` random layers compiled by Vela with both cores; every driver payload parses
/// and every stream decodes. The first layer is drawn until it is a depthwise one and the
/// second until it is not: a layer is depthwise 35 times in 100, so 12 layers had none with
/// a chance of 0.65^12, 1 seed in 180, and both tests require NPU_OP_DEPTHWISE.
fn compile_random_layers(run: &Run) -> Vec<CompiledLayer> {
    use npu::ethos::tflite::output_shape;
    let mut rng = run.rng();
    let layers: Vec<ConvLayer> = (0..run.cycles)
        .map(|i| loop {
            let layer = random_layer(&mut rng);
            if i > 1 || layer.depthwise == (i == 0) {
                break layer;
            }
        })
        .collect();
    let mut all = Vec::new();
    for core in VelaCore::ALL {
        for (i, (layer, compiled)) in layers.iter().zip(compile(&layers, core)).enumerate() {
            let ((h, w, c), (oh, ow, oc)) = (layer.input_shape, output_shape(layer));
            let context = format!(
                "SEED={} layer {i} ({} core): {}{h}x{w}x{c} -> {oh}x{ow}x{oc}, kernel {:?} stride {:?} {:?}",
                run.seed,
                core.name(),
                if layer.depthwise { "depthwise " } else { "" },
                layer.kernel,
                layer.stride,
                layer.padding
            );
            let payload = DriverPayload::parse(&compiled.cmd_data).unwrap_or_else(|e| panic!("{context}: {e}"));
            let commands = decode(&payload.stream).unwrap_or_else(|e| panic!("{context}: {e}"));
            all.push(CompiledLayer { core, layer: layer.clone(), compiled, payload, commands, context });
        }
    }
    all
}

#[test]
fn decoder_agrees_with_velas_listing_on_random_layers() {
    let run = Run::from_env("decoder_agrees_with_velas_listing_on_random_layers", 12);
    let mut rng = run.rng();
    let mut coverage = Coverage::default();
    let mut streams = Vec::new();
    for CompiledLayer { core, layer, compiled, payload, commands, context } in compile_random_layers(&run) {
        if let Some(why) = listing_disagreement(&commands, &compiled.listing) {
            panic!("{context}: {why}");
        }
        // Vela's performance table (read for the bench): the C++ core's convolution row counts
        // its MACs over every kernel tap of every output element, padding taps included (it
        // may add rows: a separate activation pass, an empty row); the legacy core rounds the
        // count up to its block sizes.
        let ((oh, ow, oc), (kh, kw)) = (npu::ethos::tflite::output_shape(&layer), layer.kernel);
        let taps = if layer.depthwise { 1 } else { layer.input_shape.2 };
        let estimate = compiled.estimate.iter().max_by_key(|e| e.macs).unwrap_or_else(|| panic!("{context}: no performance rows"));
        let macs = oh * ow * oc * kh * kw * taps;
        match core {
            VelaCore::Regor => assert_eq!(estimate.macs as usize, macs, "{context}: {:?}", compiled.estimate),
            VelaCore::Legacy => assert!(estimate.macs as usize >= macs, "{context}: {macs} MACs, {:?}", compiled.estimate),
        }
        assert!(estimate.cycles >= estimate.npu_cycles && estimate.npu_cycles > 0, "{context}: {estimate:?}");
        for c in &commands {
            coverage.hit(c.command.name);
        }
        assert_eq!(encode(&commands), payload.stream, "{context}: re-encoded");
        assert_eq!(commands.last().map(|c| c.command.name), Some("NPU_OP_STOP"), "{context}");
        coverage.hit(&format!("{} core", core.name()));
        streams.push(payload.stream);
    }
    println!("{coverage}");
    coverage.require(&["regor core", "legacy core", "NPU_OP_CONV", "NPU_OP_DEPTHWISE", "NPU_OP_DMA_START", "NPU_OP_DMA_WAIT", "NPU_SET_WEIGHT_BASE", "NPU_SET_SCALE_BASE", "NPU_SET_IFM_BASE0", "NPU_SET_OFM_BASE0", "NPU_SET_KERNEL_STRIDE"]);

    // Damaged streams: cut, a word flipped, a word replaced; each is refused with a reason
    // or decodes to commands whose words are the stream itself (nothing skipped or invented).
    let mut damage = Coverage::default();
    for round in 0..4000 {
        let mut stream = streams[round % streams.len()].clone();
        match rng.gen_range(0..3) {
            0 => stream.truncate(rng.gen_range(0..stream.len())),
            1 => {
                let k = rng.gen_range(0..stream.len());
                stream[k] ^= 1 << rng.gen_range(0..32);
            }
            _ => {
                let k = rng.gen_range(0..stream.len());
                stream[k] = rng.gen();
            }
        }
        match decode(&stream) {
            Ok(commands) => {
                assert_eq!(encode(&commands), stream, "SEED={} round {round}", run.seed);
                damage.hit("accepted");
            }
            Err(StreamError::Reserved { offset, word }) => {
                assert_eq!(stream[offset / 4], word);
                damage.hit("reserved");
            }
            Err(StreamError::MissingPayload { offset, .. }) => {
                assert_eq!(offset / 4, stream.len() - 1);
                damage.hit("missing payload");
            }
            Err(e) => panic!("SEED={} round {round}: unexpected {e}", run.seed),
        }
    }
    println!("{damage}");
    damage.require(&["accepted", "reserved", "missing payload"]);
}

/// A driver payload cut anywhere, or with bytes that are not whole words, is refused.
#[test]
fn cut_driver_payloads_are_refused() {
    let mut rng = Run::fixed("cut_driver_payloads_are_refused", 1).rng();
    let compiled = compile(&[random_layer(&mut rng)], VelaCore::Regor).remove(0);
    let full = DriverPayload::parse(&compiled.cmd_data).unwrap();
    for cut in 0..compiled.cmd_data.len() {
        let result = DriverPayload::parse(&compiled.cmd_data[..cut]);
        assert!(result.is_err(), "cut at {cut} accepted");
        if cut % 4 != 0 {
            assert_eq!(result, Err(StreamError::NotWords { bytes: cut }));
        }
    }
    assert_eq!(words(&compiled.cmd_data).unwrap().len(), full.stream.len() + 8, "the header: COP1, config tag, CONFIG, ID, 3 NOPs (16-byte alignment), stream tag");
}

/// The operations a stream starts describe the layer given to Vela: the first kernel reads the
/// layer's IFM with its kernel, strides and padding; its stripes cover the OFM; the last
/// kernel writes the layer's OFM (Regor sometimes adds an average-pool pass that views the OFM
/// with another shape).
#[test]
fn operations_describe_the_layer_vela_compiled() {
    use npu::ethos::conv::padding_offsets;
    use npu::ethos::operation::operations;
    use npu::ethos::tflite::{output_shape, Padding};
    let run = Run::from_env("operations_describe_the_layer_vela_compiled", 12);
    let mut coverage = Coverage::default();
    for CompiledLayer { layer, compiled, commands, context, .. } in compile_random_layers(&run) {
        let ((_, w, c), (oh, ow, oc)) = (layer.input_shape, output_shape(&layer));
        let ops = operations(&commands);
        let kernels: Vec<_> = ops.iter().filter(|o| o.name != "NPU_OP_DMA_START").collect();
        let (Some(first), Some(last)) = (kernels.first(), kernels.last()) else { panic!("{context}: no kernel operation") };
        let expected = if layer.depthwise { "NPU_OP_DEPTHWISE" } else { "NPU_OP_CONV" };
        assert_eq!(first.name, expected, "{context}");
        let (ifm, ofm, kernel) = (first.input("IFM"), last.output(), first.kernel());
        assert_eq!((ifm.zero_point, ifm.signed, ifm.bits), (i32::from(layer.input_zero_point), true, 8), "{context}: IFM");
        assert_eq!((ofm.zero_point, ofm.signed, ofm.bits), (i32::from(layer.output_zero_point), true, 8), "{context}: OFM");
        // The weight and scale streams lie inside the read-only region, or come there by DMA.
        let (region, base, length) = first.stream("WEIGHT");
        if region == 0 {
            assert!(base + length <= compiled.weight_data.len() as u64, "{context}: weights outside the read-only region");
        } else {
            assert!(ops.iter().any(|o| o.name == "NPU_OP_DMA_START"), "{context}: weights in region {region} without a DMA");
            coverage.hit("weights DMA'd");
        }
        coverage.hit(first.name);
        coverage.hit(&format!("{} operations", kernels.len().min(3)));
        // Vela rewrites some layers before it lowers them (a 1x1 stride-2 convolution as a
        // narrower, deeper one; depth stripes; an extra pooling pass), so the layer's shape
        // is checked where the first operation reads the layer's IFM columns and depth.
        let stripe_depth = if layer.depthwise { first.output().depth } else { c as u32 };
        let needed = ((ow - 1) * layer.stride.1 + layer.kernel.1).saturating_sub(padding_offsets(&layer).1).min(w);
        if ifm.depth != stripe_depth || !(needed..=w).contains(&(ifm.width as usize)) {
            coverage.hit("shape rewritten by Vela");
            continue;
        }
        coverage.hit("shape kept");
        // A stride along an axis with one output is free: Regor writes 1 there, the legacy
        // core the layer's.
        let stride_ok = |got: u16, s: usize, out: usize| usize::from(got) == s || (out == 1 && got == 1);
        assert!(stride_ok(kernel.stride.0, layer.stride.0, oh) && stride_ok(kernel.stride.1, layer.stride.1, ow), "{context}: stride {:?}", kernel.stride);
        assert_eq!(kernel.size, (layer.kernel.0 as u16, layer.kernel.1 as u16), "{context}: kernel");
        let (top, left) = padding_offsets(&layer);
        let pads = first.padding();
        assert_eq!((pads[0], pads[1]), (top as u16, left as u16), "{context}: padding");
        if layer.padding == Padding::Valid {
            assert_eq!(pads, [0; 4], "{context}: VALID padding");
        }
        if !ifm.nhcwb16 {
            assert_eq!((ifm.stride.0, ifm.stride.1), (c as i64, (w * c) as i64), "{context}: NHWC IFM strides");
        }
        // The convolution's stripes (the legacy core splits the OFM's depth) partition the
        // OFM; a later pass may view it with another shape.
        let stripes: Vec<_> = kernels.iter().filter(|o| o.name == first.name).map(|o| o.output()).collect();
        for s in &stripes {
            assert!(s.height as usize <= oh && s.width as usize <= ow && s.depth as usize <= oc, "{context}: stripe {s:?}");
        }
        assert_eq!(stripes.iter().map(|s| s.height * s.width * s.depth).sum::<u32>(), (oh * ow * oc) as u32, "{context}: stripes");
        if last.name != first.name {
            assert_eq!(ofm.height * ofm.width * ofm.depth, (oh * ow * oc) as u32, "{context}: OFM elements of the last pass");
        }
        coverage.hit(&format!("{} stripes", stripes.len().min(2)));
    }
    println!("{coverage}");
    coverage.require(&["NPU_OP_CONV", "NPU_OP_DEPTHWISE", "weights DMA'd", "1 operations", "1 stripes", "shape kept"]);
}
