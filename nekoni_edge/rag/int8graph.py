"""The packaged int8 MiniLM rewritten to run on integer kernels, its int8 weights kept as they are.

The export stores each weight as int8 followed by ``Cast`` and ``Mul`` (a scale per output
column, or per row of an embedding table), so onnxruntime computes in fp32: unfolded it rebuilds
all ~90 MB of fp32 weights in every run, folded it keeps them resident (``docs/TRAPS.md``). This
rewrite feeds the same int8 values and scales to integer kernels instead:

- matmuls that read the same input (an attention layer's query, key and value): the input is
  quantized once per run with one scale (``DynamicQuantizeLinear``) and each product is int8 by
  int8 (``MatMulInteger``), scaled back; onnxruntime fuses these into ``DynamicQuantizeMatMul``;
- a matmul that is its input's only reader (attention output, both feed-forward projections):
  ``MatMulNBits`` with 8 bits, which quantizes its input per block of 32 values. One scale per
  tensor loses the few large activations there: measured on household chunks, cosine to the
  fp32 model 0.9936 with every matmul on the first kind, 0.9986 with this split (0.9993 all on
  the second kind, ~20% slower), and a borderline document's score 0.395 / 0.414 / 0.421
  against fp32's 0.419;
- a ``Gather`` from an embedding table: the int8 rows are gathered, then only they are scaled.

Pure: model in, model out. A graph without this pattern comes back unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

NBITS_BLOCK = 32  # MatMulNBits quantizes its input per block of this many values
_MS_DOMAIN = "com.microsoft"


@dataclass(frozen=True)
class _Int8Weight:
    quantized: str  # int8 initializer
    scale: str  # fp32 initializer: [1, N] for a matmul weight, [rows, 1] for a table
    nodes: tuple[Any, Any]  # the Cast and Mul that rebuild it in fp32


@dataclass(frozen=True)
class Rewritten:
    model: Any  # onnx.ModelProto
    shared: int  # matmuls on MatMulInteger (their input quantized once for several)
    blockwise: int  # matmuls on MatMulNBits
    tables: int  # embedding tables gathered in int8


def integer_graph(model: Any) -> Rewritten:
    """``model`` (an ``onnx.ModelProto``, changed in place) with its int8 weights on integer
    kernels."""
    import numpy as np  # noqa: PLC0415
    from onnx import TensorProto, helper, numpy_helper  # noqa: PLC0415

    graph = model.graph
    initializers = {i.name: i for i in graph.initializer}
    producers = {out: node for node in graph.node for out in node.output}
    weights: dict[str, _Int8Weight] = {}
    for node in graph.node:
        cast = producers.get(node.input[0]) if node.op_type == "Mul" else None
        if (cast is not None and cast.op_type == "Cast" and cast.input[0] in initializers
                and initializers[cast.input[0]].data_type == TensorProto.INT8
                and node.input[1] in initializers):
            weights[node.output[0]] = _Int8Weight(cast.input[0], node.input[1], (cast, node))

    readers: dict[str, int] = {}  # int8 matmuls reading each tensor
    for node in graph.node:
        if node.op_type == "MatMul" and node.input[1] in weights:
            readers[node.input[0]] = readers.get(node.input[0], 0) + 1

    nodes: list[Any] = []
    added: list[Any] = []
    quantized_inputs: set[str] = set()
    counts = {"shared": 0, "blockwise": 0, "tables": 0}
    for node in graph.node:
        weight = weights.get(node.input[1]) if node.op_type == "MatMul" else None
        table = weights.get(node.input[0]) if node.op_type == "Gather" else None
        if weight is not None:
            q = numpy_helper.to_array(initializers[weight.quantized])
            scale = numpy_helper.to_array(initializers[weight.scale])
            k, n = q.shape
            if scale.shape != (1, n):
                nodes.append(node)
                continue
            x, y = node.input[0], node.output[0]
            if readers[x] == 1 and k % NBITS_BLOCK == 0:
                # MatMulNBits wants B as [N, blocks, block] unsigned (zero point 128) and a
                # scale per block: each column's one scale, repeated.
                blocks = k // NBITS_BLOCK
                packed = (q.T.astype(np.int16) + 128).astype(np.uint8)
                added += [
                    numpy_helper.from_array(packed.reshape(n, blocks, NBITS_BLOCK),
                                            f"{weight.quantized}_nbits"),
                    numpy_helper.from_array(
                        np.repeat(scale.reshape(n, 1), blocks, axis=1).astype(np.float32),
                        f"{weight.scale}_nbits"),
                ]
                nodes.append(helper.make_node(
                    "MatMulNBits", [x, f"{weight.quantized}_nbits", f"{weight.scale}_nbits"],
                    [y], domain=_MS_DOMAIN, K=k, N=n, bits=8, block_size=NBITS_BLOCK,
                    accuracy_level=4))
                counts["blockwise"] += 1
                continue
            if x not in quantized_inputs:
                quantized_inputs.add(x)
                nodes.append(helper.make_node(
                    "DynamicQuantizeLinear", [x], [f"{x}_u8", f"{x}_u8scale", f"{x}_u8zero"]))
            nodes += [
                helper.make_node("MatMulInteger", [f"{x}_u8", weight.quantized, f"{x}_u8zero"],
                                 [f"{y}_i32"]),
                helper.make_node("Cast", [f"{y}_i32"], [f"{y}_f32"], to=TensorProto.FLOAT),
                helper.make_node("Mul", [f"{x}_u8scale", weight.scale], [f"{y}_scale"]),
                helper.make_node("Mul", [f"{y}_f32", f"{y}_scale"], [y]),
            ]
            counts["shared"] += 1
        elif table is not None:
            ids, y = node.input[1], node.output[0]
            nodes += [
                helper.make_node("Gather", [table.quantized, ids], [f"{y}_i8"], axis=0),
                helper.make_node("Cast", [f"{y}_i8"], [f"{y}_f32"], to=TensorProto.FLOAT),
                helper.make_node("Gather", [table.scale, ids], [f"{y}_scale"], axis=0),
                helper.make_node("Mul", [f"{y}_f32", f"{y}_scale"], [y]),
            ]
            counts["tables"] += 1
        else:
            nodes.append(node)

    # The Cast/Mul pairs nothing reads any more go, and then the initializers nothing reads.
    read = {name for node in nodes for name in node.input} | {o.name for o in graph.output}
    rebuilt_unread = {id(n) for w in weights.values() if w.nodes[1].output[0] not in read
                      for n in w.nodes}
    nodes = [node for node in nodes if id(node) not in rebuilt_unread]
    read = {name for node in nodes for name in node.input}
    kept = [i for i in graph.initializer if i.name in read] + added
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    if counts["blockwise"] and not any(o.domain == _MS_DOMAIN for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid(_MS_DOMAIN, 1))
    return Rewritten(model, **counts)
