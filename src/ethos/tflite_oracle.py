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
              11 x u32  h, w, c, kh, kw, out_channels, stride_h, stride_w,
                        padding (TFLite Padding: 0 SAME, 1 VALID),
                        activation (TFLite ActivationFunctionType: 0 NONE, 1 RELU,
                        2 RELU_N1_TO_1, 3 RELU6), depthwise (0 or 1)
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
the answer is, per layer, three byte strings each preceded by its u32 length: `cmd_data` (the
driver payload), `weight_data` (the read-only region), and the command lines of Vela's
--verbose-register-command-stream listing (UTF-8).
"""
import os
import subprocess
import tempfile
import struct
import sys

import flatbuffers
import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from ethosu.vela.tflite import (
    ActivationFunctionType,
    Buffer,
    BuiltinOperator,
    BuiltinOptions,
    Conv2DOptions,
    DepthwiseConv2DOptions,
    Model,
    Operator,
    OperatorCode,
    QuantizationParameters,
    SubGraph,
    Tensor,
    TensorType,
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
    h, w, c, kh, kw, oc, sh, sw, padding, activation, depthwise = reader.unpack("11I")
    in_zp, out_zp = reader.unpack("2i")
    in_scale, out_scale = reader.unpack("2f")
    layer = dict(
        h=h, w=w, c=c, kh=kh, kw=kw, oc=oc, sh=sh, sw=sw, padding=padding,
        activation=activation, depthwise=bool(depthwise), in_zp=in_zp, out_zp=out_zp,
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
    options.AddDilationHFactor(b, 1)
    options.AddDilationWFactor(b, 1)
    builtin_options = options.End(b)

    inputs = int_vector(b, Operator.StartInputsVector, [0, 1, 2])
    outputs = int_vector(b, Operator.StartOutputsVector, [3])
    Operator.Start(b)
    Operator.AddOpcodeIndex(b, 0)
    Operator.AddInputs(b, inputs)
    Operator.AddOutputs(b, outputs)
    Operator.AddBuiltinOptionsType(b, options_type)
    Operator.AddBuiltinOptions(b, builtin_options)
    operator = Operator.End(b)

    SubGraph.StartTensorsVector(b, len(tensors))
    for t in reversed(tensors):
        b.PrependUOffsetTRelative(t)
    tensor_vector = b.EndVector()
    SubGraph.StartOperatorsVector(b, 1)
    b.PrependUOffsetTRelative(operator)
    operator_vector = b.EndVector()
    graph_inputs = int_vector(b, SubGraph.StartInputsVector, [0])
    graph_outputs = int_vector(b, SubGraph.StartOutputsVector, [3])
    name = b.CreateString("conv")
    SubGraph.Start(b)
    SubGraph.AddTensors(b, tensor_vector)
    SubGraph.AddInputs(b, graph_inputs)
    SubGraph.AddOutputs(b, graph_outputs)
    SubGraph.AddOperators(b, operator_vector)
    SubGraph.AddName(b, name)
    subgraph = SubGraph.End(b)

    OperatorCode.Start(b)
    OperatorCode.AddDeprecatedBuiltinCode(b, code)
    OperatorCode.AddBuiltinCode(b, code)
    OperatorCode.AddVersion(b, version)
    operator_code = OperatorCode.End(b)

    Model.StartOperatorCodesVector(b, 1)
    b.PrependUOffsetTRelative(operator_code)
    codes = b.EndVector()
    Model.StartSubgraphsVector(b, 1)
    b.PrependUOffsetTRelative(subgraph)
    subgraphs = b.EndVector()
    Model.StartBuffersVector(b, len(buffers))
    for buffer in reversed(buffers):
        b.PrependUOffsetTRelative(buffer)
    buffer_vector = b.EndVector()
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
    """TFLite's ComputeOutSize (dilation 1)."""
    if layer["padding"] == 0:  # SAME
        return (
            (layer["h"] + layer["sh"] - 1) // layer["sh"],
            (layer["w"] + layer["sw"] - 1) // layer["sw"],
        )
    return (
        (layer["h"] + layer["sh"] - layer["kh"]) // layer["sh"],
        (layer["w"] + layer["sw"] - layer["kw"]) // layer["sw"],
    )


def run(layer):
    interpreter = Interpreter(
        model_content=build_model(layer),
        experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
        num_threads=1,
    )
    interpreter.allocate_tensors()
    ops = [op["op_name"] for op in interpreter._get_ops_details()]
    expected = "DEPTHWISE_CONV_2D" if layer["depthwise"] else "CONV_2D"
    if ops != [expected]:
        raise RuntimeError(f"the interpreter runs {ops}, not the reference {expected}")
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], layer["input"])
    interpreter.invoke()
    output = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
    if output.dtype != np.int8 or output.ndim != 4 or output.shape[0] != 1:
        raise RuntimeError(f"unexpected output {output.dtype} {output.shape}")
    return output


def compile_with_vela(layer, core):
    """Vela's raw output and command listing of the layer's model (see the module doc)."""
    import ethosu.vela

    # `ethosu` is a namespace package: the config files sit beside `ethosu/vela`.
    package = os.path.dirname(os.path.dirname(ethosu.vela.__file__))
    config = os.path.join(package, "config_files", "Arm", "vela.ini")
    with tempfile.TemporaryDirectory() as folder:
        model = os.path.join(folder, "layer.tflite")
        with open(model, "wb") as f:
            f.write(build_model(layer))
        args = [
            sys.executable, "-I", "-m", "ethosu.vela", model,
            "--accelerator-config", "ethos-u65-256", "--config", config,
            "--system-config", "Ethos_U65_Client_Server", "--memory-mode", "Dedicated_Sram_384KB",
            "--output-format", "raw", "--verbose-register-command-stream", "--output-dir", folder,
        ]
        if core == "legacy":
            args.append("--debug-force-legacy-core")
        done = subprocess.run(args, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"vela exited {done.returncode}: {done.stderr.strip()}")
        # Regor writes layer_vela.npz, the legacy core one file per subgraph (layer_vela_sg0.npz).
        names = ["layer_vela.npz", "layer_vela_sg0.npz"]
        found = [os.path.join(folder, n) for n in names if os.path.exists(os.path.join(folder, n))]
        if len(found) != 1:
            raise RuntimeError(f"vela wrote no raw output: {done.stdout.strip()[-2000:]}")
        raw = np.load(found[0])
        listing = "\n".join(line for line in done.stdout.splitlines() if line.startswith("0x"))
        # Regor stores the bytes as one bytes scalar, the legacy core as a uint8 array.
        data = [raw[k].item() if raw[k].ndim == 0 else raw[k].tobytes() for k in ("cmd_data", "weight_data")]
        return data + [listing.encode()]


def main():
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
