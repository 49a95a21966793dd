"""TensorFlow Lite's reference int8 kernels as the oracle of a quantized convolution, for
npu::ethos::tflite, which runs this as `python -c <this file>` in a venv holding PyPI
`ai-edge-litert` (the TFLite interpreter, without TensorFlow) and `ethos-u-vela` (whose
`ethosu.vela.tflite` modules are the generated flatbuffer builders of the .tflite schema).

For each requested layer a one-operator model (CONV_2D or DEPTHWISE_CONV_2D) is built in
memory and run by `Interpreter(experimental_op_resolver_type=OpResolverType.BUILTIN_REF)`:
TFLite's BuiltinRefOpResolver, which registers the reference kernels and no default
delegate (XNNPACK). The script checks, for every model, that the interpreter's execution plan
is that single operator, so a delegate that took the node over would be an error.

The request comes on stdin, the answer goes to stdout, integers little-endian, scales as
the bits of IEEE binary32 (TFLite stores scales as float32):
  request:  u32 count, then count layers, each
              13 x u32  h, w, c, kh, kw, out_channels, stride_h, stride_w,
                        padding (TFLite Padding: 0 SAME, 1 VALID),
                        activation (TFLite ActivationFunctionType: 0 NONE, 1 RELU,
                        2 RELU_N1_TO_1, 3 RELU6), depthwise (0 or 1),
                        dilation_h, dilation_w
              2 x i32   input zero point, output zero point
              2 x f32   input scale, output scale
              h*w*c x i8            input, NHWC (batch 1)
              n x i8                weights: conv OHWI (out_channels*kh*kw*c),
                                    depthwise 1HWC (kh*kw*c, out_channels == c)
              out_channels x f32    per-output-channel weight scales
              out_channels x i32    bias
  answer:   per layer: 3 x u32 output h, w, c, then h*w*c x i8 output, NHWC
A layer TFLite rejects ends the process with exit status 1 and a message on stderr.

With the arguments `compile regor|legacy`, each layer's model is compiled by Vela for
ethos-u65-256 (the vela.ini Vela ships, system config Ethos_U65_Client_Server, memory mode
Dedicated_Sram_384KB, raw output; `legacy` adds --debug-force-legacy-core) instead of run, and
the answer is, per layer, four byte strings each preceded by its u32 length: `cmd_data` (the
driver payload), `weight_data` (the read-only region), the command lines of Vela's
--verbose-register-command-stream listing (UTF-8), and Vela's performance estimate as JSON
(`performance`).
"""
import json
import os
import struct
import sys
import tempfile

import flatbuffers
import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from ethosu.vela.tflite import (
    ActivationFunctionType,
    AddOptions,
    Buffer,
    BuiltinOperator,
    BuiltinOptions,
    Conv2DOptions,
    DepthwiseConv2DOptions,
    FullyConnectedOptions,
    MaximumMinimumOptions,
    Model,
    MulOptions,
    Operator,
    OperatorCode,
    Pool2DOptions,
    QuantizationParameters,
    ReshapeOptions,
    ResizeBilinearOptions,
    ResizeNearestNeighborOptions,
    SubGraph,
    SubOptions,
    Tensor,
    TensorType,
    TransposeConvOptions,
)

# Operator versions that take int8 with per-channel quantized weights.
CONV_VERSION = 3
DEPTHWISE_VERSION = 3


class Reader:
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def unpack(self, fmt):
        values = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return values

    def array(self, dtype, n):
        dtype = np.dtype(dtype).newbyteorder("<")
        values = np.frombuffer(self.data, dtype=dtype, count=n, offset=self.pos)
        self.pos += n * dtype.itemsize
        return values


def read_layer(reader):
    h, w, c, kh, kw, oc, sh, sw, padding, activation, depthwise, dh, dw = reader.unpack("13I")
    in_zp, out_zp = reader.unpack("2i")
    in_scale, out_scale = reader.unpack("2f")
    layer = dict(
        h=h, w=w, c=c, kh=kh, kw=kw, oc=oc, sh=sh, sw=sw, padding=padding,
        activation=activation, depthwise=bool(depthwise), dh=dh, dw=dw, in_zp=in_zp, out_zp=out_zp,
        in_scale=in_scale, out_scale=out_scale,
    )
    layer["input"] = reader.array(np.int8, h * w * c).reshape(1, h, w, c)
    n_weights = kh * kw * c if depthwise else oc * kh * kw * c
    layer["weights"] = reader.array(np.int8, n_weights)
    layer["weight_scales"] = reader.array(np.float32, oc)
    layer["bias"] = reader.array(np.int32, oc)
    return layer


def aligned_bytes(builder, data, alignment=16):
    """A byte vector whose start is aligned, as TFLite wants for constant buffers."""
    data = bytes(data)
    builder.StartVector(1, len(data), alignment)
    builder.head = builder.head - len(data)
    builder.Bytes[builder.head : builder.head + len(data)] = data
    return builder.EndVector()


def int_vector(builder, start_vector, values):
    start_vector(builder, len(values))
    for v in reversed(values):
        builder.PrependInt32(v)
    return builder.EndVector()


def quantization(builder, scales, zero_points, dimension=0):
    scale = builder.CreateNumpyVector(np.asarray(scales, dtype=np.float32))
    zero_point = builder.CreateNumpyVector(np.asarray(zero_points, dtype=np.int64))
    QuantizationParameters.Start(builder)
    QuantizationParameters.AddScale(builder, scale)
    QuantizationParameters.AddZeroPoint(builder, zero_point)
    QuantizationParameters.AddQuantizedDimension(builder, dimension)
    return QuantizationParameters.End(builder)


def tensor(builder, name, shape, tensor_type, buffer, quant):
    name = builder.CreateString(name)
    shape = int_vector(builder, Tensor.StartShapeVector, shape)
    Tensor.Start(builder)
    Tensor.AddShape(builder, shape)
    Tensor.AddType(builder, tensor_type)
    Tensor.AddBuffer(builder, buffer)
    Tensor.AddName(builder, name)
    if quant is not None:
        Tensor.AddQuantization(builder, quant)
    return Tensor.End(builder)


def build_model(layer):
    """The .tflite flatbuffer of one CONV_2D or DEPTHWISE_CONV_2D with the layer's
    parameters: tensors 0 input, 1 weights, 2 bias, 3 output; buffer 0 is the schema's empty
    sentinel, 1 the weights, 2 the bias."""
    b = flatbuffers.Builder(4096)
    oc, kh, kw, c = layer["oc"], layer["kh"], layer["kw"], layer["c"]
    depthwise = layer["depthwise"]
    weight_scales = layer["weight_scales"]
    bias_scales = [
        float(np.float32(np.float32(layer["in_scale"]) * s)) for s in weight_scales
    ]

    buffers = []
    for data in (None, layer["weights"].tobytes(), layer["bias"].astype("<i4").tobytes()):
        vector = aligned_bytes(b, data) if data is not None else None
        Buffer.Start(b)
        if vector is not None:
            Buffer.AddData(b, vector)
        buffers.append(Buffer.End(b))

    out_h, out_w = output_size(layer)
    tensors = [
        tensor(b, "input", [1, layer["h"], layer["w"], c], TensorType.TensorType.INT8, 0,
               quantization(b, [layer["in_scale"]], [layer["in_zp"]])),
        tensor(b, "weights", [1, kh, kw, c] if depthwise else [oc, kh, kw, c],
               TensorType.TensorType.INT8, 1,
               quantization(b, weight_scales, [0] * oc, 3 if depthwise else 0)),
        tensor(b, "bias", [oc], TensorType.TensorType.INT32, 2,
               quantization(b, bias_scales, [0] * oc)),
        tensor(b, "output", [1, out_h, out_w, oc], TensorType.TensorType.INT8, 0,
               quantization(b, [layer["out_scale"]], [layer["out_zp"]])),
    ]

    if depthwise:
        options = DepthwiseConv2DOptions
        options.Start(b)
        options.AddDepthMultiplier(b, 1)
        options_type = BuiltinOptions.BuiltinOptions.DepthwiseConv2DOptions
        code, version = BuiltinOperator.BuiltinOperator.DEPTHWISE_CONV_2D, DEPTHWISE_VERSION
    else:
        options = Conv2DOptions
        options.Start(b)
        options_type = BuiltinOptions.BuiltinOptions.Conv2DOptions
        code, version = BuiltinOperator.BuiltinOperator.CONV_2D, CONV_VERSION
    options.AddPadding(b, layer["padding"])
    options.AddStrideH(b, layer["sh"])
    options.AddStrideW(b, layer["sw"])
    options.AddFusedActivationFunction(b, layer["activation"])
    options.AddDilationHFactor(b, layer["dh"])
    options.AddDilationWFactor(b, layer["dw"])
    builtin_options = options.End(b)

    operator = operator_table(b, 0, [0, 1, 2], [3], options_type, builtin_options)
    return finish_model(b, tensors, [operator], [(code, version)], buffers, [0], [3])


def operator_table(b, opcode_index, inputs, outputs, options_type, builtin_options):
    """An Operator of the subgraph: its opcode, input and output tensor indices, options."""
    inputs = int_vector(b, Operator.StartInputsVector, inputs)
    outputs = int_vector(b, Operator.StartOutputsVector, outputs)
    Operator.Start(b)
    Operator.AddOpcodeIndex(b, opcode_index)
    Operator.AddInputs(b, inputs)
    Operator.AddOutputs(b, outputs)
    if builtin_options is not None:
        Operator.AddBuiltinOptionsType(b, options_type)
        Operator.AddBuiltinOptions(b, builtin_options)
    return Operator.End(b)


def offsets_vector(b, start_vector, items):
    start_vector(b, len(items))
    for item in reversed(items):
        b.PrependUOffsetTRelative(item)
    return b.EndVector()


def finish_model(b, tensors, operators, codes, buffers, graph_inputs, graph_outputs):
    """The .tflite flatbuffer of one subgraph: `codes` are (builtin code, version) pairs
    indexed by the operators' opcode index."""
    tensor_vector = offsets_vector(b, SubGraph.StartTensorsVector, tensors)
    operator_vector = offsets_vector(b, SubGraph.StartOperatorsVector, operators)
    graph_inputs = int_vector(b, SubGraph.StartInputsVector, graph_inputs)
    graph_outputs = int_vector(b, SubGraph.StartOutputsVector, graph_outputs)
    name = b.CreateString("main")
    SubGraph.Start(b)
    SubGraph.AddTensors(b, tensor_vector)
    SubGraph.AddInputs(b, graph_inputs)
    SubGraph.AddOutputs(b, graph_outputs)
    SubGraph.AddOperators(b, operator_vector)
    SubGraph.AddName(b, name)
    subgraph = SubGraph.End(b)

    operator_codes = []
    for code, version in codes:
        OperatorCode.Start(b)
        OperatorCode.AddDeprecatedBuiltinCode(b, min(code, 127))
        OperatorCode.AddBuiltinCode(b, code)
        OperatorCode.AddVersion(b, version)
        operator_codes.append(OperatorCode.End(b))

    codes = offsets_vector(b, Model.StartOperatorCodesVector, operator_codes)
    subgraphs = offsets_vector(b, Model.StartSubgraphsVector, [subgraph])
    buffer_vector = offsets_vector(b, Model.StartBuffersVector, buffers)
    description = b.CreateString("npu ethos tflite oracle")
    Model.Start(b)
    Model.AddVersion(b, 3)
    Model.AddOperatorCodes(b, codes)
    Model.AddSubgraphs(b, subgraphs)
    Model.AddDescription(b, description)
    Model.AddBuffers(b, buffer_vector)
    b.Finish(Model.End(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def output_size(layer):
    """TFLite's ComputeOutSize, VALID with the dilated kernel `(k - 1)·d + 1`."""
    if layer["padding"] == 0:  # SAME
        return (
            (layer["h"] + layer["sh"] - 1) // layer["sh"],
            (layer["w"] + layer["sw"] - 1) // layer["sw"],
        )
    return (
        (layer["h"] + layer["sh"] - ((layer["kh"] - 1) * layer["dh"] + 1)) // layer["sh"],
        (layer["w"] + layer["sw"] - ((layer["kw"] - 1) * layer["dw"] + 1)) // layer["sw"],
    )


def reference_interpreter(model, expected):
    """An interpreter of `model` with TFLite's reference kernels, its tensors allocated,
    checked to run exactly the operators `expected` (names), so no delegate took one over."""
    interpreter = Interpreter(
        model_content=model,
        experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
        num_threads=1,
    )
    interpreter.allocate_tensors()
    ops = [op["op_name"] for op in interpreter._get_ops_details()]
    if ops != expected:
        raise RuntimeError(f"the interpreter runs {ops}, not the reference {expected}")
    return interpreter


def run(layer):
    expected = "DEPTHWISE_CONV_2D" if layer["depthwise"] else "CONV_2D"
    interpreter = reference_interpreter(build_model(layer), [expected])
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], layer["input"])
    interpreter.invoke()
    output = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
    if output.dtype != np.int8 or output.ndim != 4 or output.shape[0] != 1:
        raise RuntimeError(f"unexpected output {output.dtype} {output.shape}")
    return output


def compile_with_vela(layer, core):
    """Vela's raw output and command listing of the layer's model (see the module doc)."""
    compiled = vela_compile(build_model(layer), core)
    return [compiled["cmd_data"], compiled["weight_data"], compiled["listing"].encode(),
            json.dumps(compiled["estimate"]).encode()]


def captured(function):
    """Runs `function()` with the process's standard output and error (file descriptors 1
    and 2, which Vela's C++ core writes to directly) sent to a file; returns its result and
    the text written."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile() as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            result = function()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
        log.seek(0)
        return result, log.read().decode(errors="replace")


def performance(text):
    """Vela's per-operation performance estimate (`--verbose-performance`): one dict per row
    of each "Performance for NPU ..." table, with the operator (first column), `cycles` (Op
    Cycles: the estimate of the whole operation, memory included), `npu_cycles` (NPU: the
    compute part) and `macs` (MAC Count). The two cores print different columns; the ones read
    here are in both, found by their header under the row of dashes that marks the columns."""
    rows, lines = [], text.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith("Performance for NPU") or i + 2 >= len(lines):
            continue
        header, dashes = lines[i + 1], lines[i + 2]
        spans, start = [], 0
        for field in dashes.split(" "):
            if field:
                spans.append((start, start + len(field)))
            start += len(field) + 1
        names = [header[a:b].strip() for a, b in spans]
        column = {name: names.index(name) for name in ("Op Cycles", "NPU", "MAC Count")}
        for row in lines[i + 3:]:
            if not row.strip():
                break
            # A name wider than its column (RESIZE_NEAREST_NEIGHBOR in the legacy core's 20)
            # shifts the rest of the row; no cell holds a space, so the words are the cells.
            cells = row.split()
            if len(cells) != len(spans):
                cells = [row[a:b].strip() for a, b in spans]
            rows.append(dict(
                operator=cells[0], cycles=int(cells[column["Op Cycles"]]),
                npu_cycles=int(cells[column["NPU"]]), macs=int(cells[column["MAC Count"]]),
            ))
    return rows


def vela_compile(model, core, output_format="raw"):
    """`model` (.tflite bytes) compiled by Vela in this process for ethos-u65-256 with `core`
    ("regor" or "legacy"): the vela.ini Vela ships, system config Ethos_U65_Client_Server,
    memory mode Dedicated_Sram_384KB, raw output. Returns the fields of Vela's raw `.npz`
    (`rawdata_writer.py`): cmd_data (the driver payload), weight_data (the read-only
    region), the regions and sizes of scratch and scratch_fast, each model input's and
    output's region, offset, shape and element size; plus `listing` (the command lines of
    --verbose-register-command-stream), `estimate` (`performance`) and `cpu_operators` (Vela's "CPU operators = N", or
    None if it printed none). Vela refusing the model raises RuntimeError with its text.
    With output_format "tflite", the bytes of Vela's .tflite output instead."""
    import ethosu.vela
    from ethosu.vela.vela import main as vela_main

    # `ethosu` is a namespace package: the config files sit beside `ethosu/vela`.
    package = os.path.dirname(os.path.dirname(ethosu.vela.__file__))
    config = os.path.join(package, "config_files", "Arm", "vela.ini")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.tflite")
        with open(path, "wb") as f:
            f.write(model)
        args = [
            path, "--accelerator-config", "ethos-u65-256", "--config", config,
            "--system-config", "Ethos_U65_Client_Server", "--memory-mode", "Dedicated_Sram_384KB",
            "--output-format", output_format, "--verbose-register-command-stream",
            "--verbose-performance", "--output-dir", folder,
        ]
        if core == "legacy":
            args.append("--debug-force-legacy-core")

        def run_vela():
            try:
                return vela_main(args)
            except SystemExit as e:
                return e.code
            except Exception as e:  # Vela's own errors (VelaError, InputFileError, asserts)
                return f"{type(e).__name__}: {e}"

        status, text = captured(run_vela)
        if status != 0:
            raise RuntimeError(f"vela failed ({status}): {text.strip()[-2000:]}")
        if output_format == "tflite":
            with open(os.path.join(folder, "model_vela.tflite"), "rb") as f:
                return f.read()
        # Regor writes model_vela.npz, the legacy core one file per subgraph (model_vela_sg0.npz).
        names = ["model_vela.npz", "model_vela_sg0.npz"]
        found = [os.path.join(folder, n) for n in names if os.path.exists(os.path.join(folder, n))]
        if len(found) != 1:
            raise RuntimeError(f"vela wrote no raw output: {text.strip()[-2000:]}")
        raw = np.load(found[0], allow_pickle=True)

        def blob(key):
            # Regor stores the bytes as one bytes scalar, the legacy core as a uint8 array.
            return raw[key].item() if raw[key].ndim == 0 else raw[key].tobytes()

        def tensors(kind):
            return [
                dict(region=int(r), offset=int(o), shape=[int(d) for d in s], elem_size=int(e))
                for r, o, s, e in zip(raw[f"{kind}_region"], raw[f"{kind}_offset"],
                                      raw[f"{kind}_shape"], raw[f"{kind}_elem_size"])
            ]

        cpu = [line for line in text.splitlines() if line.strip().startswith("CPU operators")]
        return dict(
            cmd_data=blob("cmd_data"),
            weight_data=blob("weight_data"),
            weight_region=int(raw["weight_region"]),
            scratch_region=int(raw["scratch_region"]),
            scratch_size=int(raw["scratch_size"]),
            scratch_fast_region=int(raw["scratch_fast_region"]),
            scratch_fast_size=int(raw["scratch_fast_size"]),
            inputs=tensors("input"),
            outputs=tensors("output"),
            listing="\n".join(line for line in text.splitlines() if line.startswith("0x")),
            estimate=performance(text),
            cpu_operators=int(cpu[0].split("=")[1].split()[0]) if cpu else None,
            log=text,
        )


# Networks (npu::ethos::network): the builtin operators the generator uses, their option
# tables and the versions that take int8 with per-channel weights.
OPERATORS = {
    "CONV_2D": (BuiltinOperator.BuiltinOperator.CONV_2D, 3),
    "DEPTHWISE_CONV_2D": (BuiltinOperator.BuiltinOperator.DEPTHWISE_CONV_2D, 3),
    "MAX_POOL_2D": (BuiltinOperator.BuiltinOperator.MAX_POOL_2D, 2),
    "AVERAGE_POOL_2D": (BuiltinOperator.BuiltinOperator.AVERAGE_POOL_2D, 2),
    "ADD": (BuiltinOperator.BuiltinOperator.ADD, 2),
    "SUB": (BuiltinOperator.BuiltinOperator.SUB, 2),
    "MUL": (BuiltinOperator.BuiltinOperator.MUL, 2),
    "MAXIMUM": (BuiltinOperator.BuiltinOperator.MAXIMUM, 2),
    "MINIMUM": (BuiltinOperator.BuiltinOperator.MINIMUM, 2),
    "FULLY_CONNECTED": (BuiltinOperator.BuiltinOperator.FULLY_CONNECTED, 5),
    "RESHAPE": (BuiltinOperator.BuiltinOperator.RESHAPE, 1),
    "RESIZE_NEAREST_NEIGHBOR": (BuiltinOperator.BuiltinOperator.RESIZE_NEAREST_NEIGHBOR, 3),
    "RESIZE_BILINEAR": (BuiltinOperator.BuiltinOperator.RESIZE_BILINEAR, 3),
    "TRANSPOSE_CONV": (BuiltinOperator.BuiltinOperator.TRANSPOSE_CONV, 3),
}


def network_options(b, op):
    """The builtin options (type, table) of a network operator."""
    kind = op["kind"]
    O = BuiltinOptions.BuiltinOptions
    if kind in ("CONV_2D", "DEPTHWISE_CONV_2D"):
        depthwise = kind == "DEPTHWISE_CONV_2D"
        options = DepthwiseConv2DOptions if depthwise else Conv2DOptions
        options.Start(b)
        if depthwise:
            options.AddDepthMultiplier(b, 1)
        options.AddPadding(b, op["padding"])
        options.AddStrideH(b, op["stride"][0])
        options.AddStrideW(b, op["stride"][1])
        options.AddFusedActivationFunction(b, op["activation"])
        options.AddDilationHFactor(b, op["dilation"][0])
        options.AddDilationWFactor(b, op["dilation"][1])
        return (O.DepthwiseConv2DOptions if depthwise else O.Conv2DOptions), options.End(b)
    if kind in ("MAX_POOL_2D", "AVERAGE_POOL_2D"):
        Pool2DOptions.Start(b)
        Pool2DOptions.AddPadding(b, op["padding"])
        Pool2DOptions.AddStrideH(b, op["stride"][0])
        Pool2DOptions.AddStrideW(b, op["stride"][1])
        Pool2DOptions.AddFilterHeight(b, op["kernel"][0])
        Pool2DOptions.AddFilterWidth(b, op["kernel"][1])
        Pool2DOptions.AddFusedActivationFunction(b, op["activation"])
        return O.Pool2DOptions, Pool2DOptions.End(b)
    if kind in ("ADD", "SUB", "MUL"):
        options, kind_type = {"ADD": (AddOptions, O.AddOptions), "SUB": (SubOptions, O.SubOptions),
                              "MUL": (MulOptions, O.MulOptions)}[kind]
        options.Start(b)
        options.AddFusedActivationFunction(b, op["activation"])
        return kind_type, options.End(b)
    if kind in ("MAXIMUM", "MINIMUM"):
        MaximumMinimumOptions.Start(b)
        return O.MaximumMinimumOptions, MaximumMinimumOptions.End(b)
    if kind == "FULLY_CONNECTED":
        FullyConnectedOptions.Start(b)
        FullyConnectedOptions.AddFusedActivationFunction(b, op["activation"])
        FullyConnectedOptions.AddKeepNumDims(b, True)
        return O.FullyConnectedOptions, FullyConnectedOptions.End(b)
    if kind == "RESHAPE":
        new_shape = b.CreateNumpyVector(np.asarray([1] + op["output"]["shape"], dtype=np.int32))
        ReshapeOptions.Start(b)
        ReshapeOptions.AddNewShape(b, new_shape)
        return O.ReshapeOptions, ReshapeOptions.End(b)
    if kind == "TRANSPOSE_CONV":
        TransposeConvOptions.Start(b)
        TransposeConvOptions.AddPadding(b, op["padding"])
        TransposeConvOptions.AddStrideH(b, op["stride"][0])
        TransposeConvOptions.AddStrideW(b, op["stride"][1])
        TransposeConvOptions.AddFusedActivationFunction(b, op["activation"])
        return O.TransposeConvOptions, TransposeConvOptions.End(b)
    if kind in ("RESIZE_NEAREST_NEIGHBOR", "RESIZE_BILINEAR"):
        options, kind_type = {
            "RESIZE_NEAREST_NEIGHBOR": (ResizeNearestNeighborOptions, O.ResizeNearestNeighborOptions),
            "RESIZE_BILINEAR": (ResizeBilinearOptions, O.ResizeBilinearOptions),
        }[kind]
        options.Start(b)
        options.AddAlignCorners(b, op["align_corners"])
        options.AddHalfPixelCenters(b, op["half_pixel_centers"])
        return kind_type, options.End(b)
    raise ValueError(f"operator {kind} is not one the network oracle builds")


def build_network(net):
    """The .tflite flatbuffer of a network (format: npu::ethos::network). Tensor 0 is the
    input, operator i writes activation tensor i + 1, the last one is the output; constants
    (weights, bias, constant operands) follow with buffers of their own."""
    b = flatbuffers.Builder(1 << 16)
    buffers = []

    def buffer(data):
        vector = aligned_bytes(b, data) if data is not None else None
        Buffer.Start(b)
        if vector is not None:
            Buffer.AddData(b, vector)
        buffers.append(Buffer.End(b))
        return len(buffers) - 1

    buffer(None)
    int8 = TensorType.TensorType.INT8
    activations = [net["input"]] + [op["output"] for op in net["ops"]]
    tensors = [
        tensor(b, f"t{i}", [1] + t["shape"], int8, 0,
               quantization(b, [t["scale"]], [t["zero_point"]]))
        for i, t in enumerate(activations)
    ]

    def constant(name, shape, tensor_type, data, quant):
        tensors.append(tensor(b, name, shape, tensor_type, buffer(data), quant))
        return len(tensors) - 1

    codes, operators = [], []
    for i, op in enumerate(net["ops"]):
        code = OPERATORS[op["kind"]]
        if code not in codes:
            codes.append(code)
        inputs = []
        for k, operand in enumerate(op["inputs"]):
            if "Tensor" in operand:
                inputs.append(operand["Tensor"])
            else:
                c = operand["Constant"]
                inputs.append(constant(f"c{i}_{k}", c["shape"], int8, np.asarray(c["data"], np.int8).tobytes(),
                                       quantization(b, [c["scale"]], [c["zero_point"]])))
        if op["kind"] == "RESHAPE":
            inputs.append(constant(f"s{i}", [4], TensorType.TensorType.INT32,
                                   np.asarray([1] + op["output"]["shape"], "<i4").tobytes(), None))
        if op["kind"].startswith("RESIZE_"):
            inputs.append(constant(f"s{i}", [2], TensorType.TensorType.INT32,
                                   np.asarray(op["output"]["shape"][:2], "<i4").tobytes(), None))
        if "weights" in op:
            kind, oc = op["kind"], op["output"]["shape"][-1]
            in_scale = activations[op["inputs"][0]["Tensor"]]["scale"]
            ws = op["weight_scales"]
            if kind == "DEPTHWISE_CONV_2D":
                shape, dimension = [1] + op["kernel"] + [oc], 3
            elif kind in ("CONV_2D", "TRANSPOSE_CONV"):
                shape, dimension = [oc] + op["kernel"] + [len(op["weights"]) // (oc * op["kernel"][0] * op["kernel"][1])], 0
            else:
                shape, dimension = [oc, len(op["weights"]) // oc], 0
            inputs.append(constant(f"w{i}", shape, int8, np.asarray(op["weights"], np.int8).tobytes(),
                                   quantization(b, ws, [0] * len(ws), dimension)))
            bias_scales = [float(np.float32(np.float32(in_scale) * np.float32(s))) for s in ws]
            inputs.append(constant(f"b{i}", [oc], TensorType.TensorType.INT32,
                                   np.asarray(op["bias"], "<i4").tobytes(),
                                   quantization(b, bias_scales, [0] * len(ws))))
        if op["kind"] == "TRANSPOSE_CONV":
            # TFLite's order: output shape, weights (OHWI), input, bias.
            shape = constant(f"s{i}", [4], TensorType.TensorType.INT32,
                             np.asarray([1] + op["output"]["shape"], "<i4").tobytes(), None)
            inputs = [shape, inputs[1], inputs[0], inputs[2]]
        options_type, options = network_options(b, op)
        operators.append(operator_table(b, codes.index(code), inputs, [i + 1], options_type, options))
    return finish_model(b, tensors, operators, codes, buffers, [0], [len(net["ops"])])


def run_network(net):
    """TFLite's output of a network with the reference kernels, flattened (NHWC)."""
    interpreter = reference_interpreter(build_network(net), [op["kind"] for op in net["ops"]])
    shape = [1] + net["input"]["shape"]
    data = np.asarray(net["input"]["data"], np.int8).reshape(shape)
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], data)
    interpreter.invoke()
    output = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
    if output.dtype != np.int8:
        raise RuntimeError(f"unexpected output type {output.dtype}")
    return [int(v) for v in output.flatten()]


def compiled_json(compiled):
    """A vela_compile result as JSON: byte strings as lists of numbers."""
    return {k: list(v) if isinstance(v, bytes) else v for k, v in compiled.items() if k != "log"}


def ethos_u_operator(model):
    """The parts of a .tflite file (bytes) that already holds Vela's `ethos-u` custom
    operator, in the form of vela_compile's answer (listing empty: Vela did not run), or None
    if it holds none. The operator's inputs are [command stream, read-only, scratch,
    scratch_fast, model inputs...], its outputs the model outputs; the scratch tensors' sizes
    are their shapes, and the model inputs' and outputs' offsets in the scratch region come
    from the file's OfflineMemoryAllocation metadata (Vela's tflite_writer: int32 version,
    subgraph, tensor count, then one offset per tensor). Regions as Vela numbers them:
    0 read-only, 1 scratch, 2 scratch_fast."""
    m = Model.Model.GetRootAs(model, 0)
    graph = m.Subgraphs(0)
    ops = [graph.Operators(k) for k in range(graph.OperatorsLength())]
    custom = [op for op in ops if m.OperatorCodes(op.OpcodeIndex()).CustomCode() == b"ethos-u"]
    if not custom:
        return None
    if len(custom) != 1 or m.SubgraphsLength() != 1:
        raise RuntimeError("the file holds more than one ethos-u operator or subgraph; one is supported")
    op = custom[0]

    def data(t):
        buffer = m.Buffers(graph.Tensors(t).Buffer())
        return buffer.DataAsNumpy().tobytes() if buffer.DataLength() else b""

    offsets = None
    for k in range(m.MetadataLength()):
        if m.Metadata(k).Name() == b"OfflineMemoryAllocation":
            offsets = np.frombuffer(data_of_buffer(m, m.Metadata(k).Buffer()), dtype="<i4")[3:]
    if offsets is None:
        raise RuntimeError("the ethos-u operator's file has no OfflineMemoryAllocation metadata")

    def place(t):
        tensor = graph.Tensors(t)
        shape = [int(d) for d in tensor.ShapeAsNumpy()]
        return dict(region=1, offset=int(offsets[t]), shape=shape, elem_size=1)

    inputs = [op.Inputs(k) for k in range(op.InputsLength())]
    outputs = [op.Outputs(k) for k in range(op.OutputsLength())]
    size = lambda t: int(np.prod(graph.Tensors(t).ShapeAsNumpy()))
    return dict(
        cmd_data=data(inputs[0]), weight_data=data(inputs[1]), weight_region=0,
        scratch_region=1, scratch_size=size(inputs[2]), scratch_fast_region=2,
        scratch_fast_size=size(inputs[3]), inputs=[place(t) for t in inputs[4:]],
        outputs=[place(t) for t in outputs], listing="", cpu_operators=len(ops) - 1,
    )


def data_of_buffer(m, index):
    buffer = m.Buffers(index)
    return buffer.DataAsNumpy().tobytes() if buffer.DataLength() else b""


def run_file(model, data):
    """TFLite's output (flattened) of a .tflite file (bytes) on one int8 input (a list of
    numbers, the input tensor's elements in order), every operator on the reference kernels.
    A file of Vela's (an `ethos-u` operator) cannot run here: TFLite has no such kernel."""
    if ethos_u_operator(model) is not None:
        raise RuntimeError("the file holds Vela's ethos-u operator, which TFLite cannot run")
    interpreter = Interpreter(model_content=model, experimental_op_resolver_type=OpResolverType.BUILTIN_REF, num_threads=1)
    interpreter.allocate_tensors()
    inputs, outputs = interpreter.get_input_details(), interpreter.get_output_details()
    if len(inputs) != 1 or len(outputs) != 1:
        raise RuntimeError(f"the model has {len(inputs)} inputs and {len(outputs)} outputs; one of each is supported")
    for kind, detail in (("input", inputs[0]), ("output", outputs[0])):
        if detail["dtype"] != np.int8:
            raise RuntimeError(f"the model's {kind} is {np.dtype(detail['dtype']).name}, not int8")
    shape = inputs[0]["shape"]
    if len(data) != int(np.prod(shape)):
        raise RuntimeError(f"the input has {len(data)} values, the model's input {list(shape)} takes {int(np.prod(shape))}")
    interpreter.set_tensor(inputs[0]["index"], np.asarray(data, np.int8).reshape(shape))
    interpreter.invoke()
    return [int(v) for v in interpreter.get_tensor(outputs[0]["index"]).flatten()]


def network_main(mode, core):
    """`network run` / `network compile CORE` / `file compile CORE` / `file run -` (see the
    module doc)."""
    request = json.load(sys.stdin)
    answers = []
    for index, item in enumerate(request):
        try:
            if mode == "run":
                answers.append(run_network(item))
            elif mode == "compile":
                try:
                    answers.append({"Compiled": compiled_json(vela_compile(build_network(item), core))})
                except RuntimeError as e:
                    answers.append({"Refused": str(e)})
            elif mode == "tflite":
                answers.append(list(build_network(item)))
            elif mode == "vela-tflite":
                answers.append(list(vela_compile(build_network(item), core, "tflite")))
            elif mode == "file run":
                answers.append(run_file(bytes(item["model"]), item["input"]))
            else:
                model = bytes(item)
                answers.append(compiled_json(ethos_u_operator(model) or vela_compile(model, core)))
        except Exception as e:
            sys.exit(f"{mode.split()[0] if mode.startswith('file') else 'network'} {index}: {type(e).__name__}: {e}")
    json.dump(answers, sys.stdout)


def main():
    if sys.argv[1:2] in (["network"], ["file"]):
        mode = sys.argv[2] if sys.argv[1] == "network" else "file " + sys.argv[2]
        return network_main(mode, sys.argv[-1])
    reader = Reader(sys.stdin.buffer.read())
    (count,) = reader.unpack("I")
    core = sys.argv[2] if sys.argv[1:2] == ["compile"] else None
    answer = bytearray()
    for index in range(count):
        layer = read_layer(reader)
        try:
            if core is None:
                output = run(layer)
            else:
                for part in compile_with_vela(layer, core):
                    answer += struct.pack("<I", len(part)) + part
        except Exception as e:
            params = {k: v for k, v in layer.items() if not isinstance(v, np.ndarray)}
            sys.exit(f"layer {index} {params}: {type(e).__name__}: {e}")
        if core is None:
            answer += struct.pack("<3I", *output.shape[1:])
            answer += output.tobytes()
    if reader.pos != len(reader.data):
        sys.exit(f"{len(reader.data) - reader.pos} bytes left over after {count} layers")
    sys.stdout.buffer.write(answer)


main()
