"""The packaged int8 MiniLM rewritten to run on integer kernels, its int8 weights kept as they are.

The export stores each weight as int8 followed by ``Cast`` and ``Mul`` (a scale per output
column, or per row of an embedding table), so onnxruntime computes in fp32: unfolded it rebuilds
all ~90 MB of fp32 weights in every run, folded it keeps them resident (``docs/TRAPS.md``). This
rewrite feeds the same int8 values and scales to integer kernels instead:

- matmuls that read the same input (an attention layer's query, key and value): the input is
  quantized once per run with one scale (``DynamicQuantizeLinear``) and each product is int8 by
  int8 (``MatMulInteger``), scaled back; onnxruntime fuses these into ``DynamicQuantizeMatMul``;
- a matmul that is its input's only reader (attention output, both feed-forward projections):
  ``MatMulNBits`` with 8 bits, which quantizes its input per block of 128 values. One scale per
  tensor loses the few large activations there: measured on household chunks, cosine to the
  fp32 model 0.9936 with every matmul on the first kind, 0.9986 with this split (0.9993 all on
  the second kind, ~20% slower), and a borderline document's score 0.395 / 0.414 / 0.421
  against fp32's 0.419 (blocks of 32; blocks of 128 run ~13% faster, cosine to the
  export 0.9989 against 0.9991 over 200 household chunks);
- a ``Gather`` from an embedding table: the int8 rows are gathered, then only they are scaled.

Then ``fuse_attention`` hands each attention block to onnxruntime's ``MultiHeadAttention``.
(Fusing the export's GELU into one ``Gelu`` node as well gained ~1%, within the noise: not done.)

Pure: model in, model out. A graph without these patterns comes back unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

NBITS_BLOCK = 128  # MatMulNBits quantizes its input per block of this many values
_MS_DOMAIN = "com.microsoft"


@dataclass(frozen=True)
class _Int8Weight:
    quantized: str  # int8 initializer
    scale: str  # fp32 initializer: [1, N] for a matmul weight, [rows, 1] for a table


@dataclass(frozen=True)
class Rewritten:
    model: Any  # onnx.ModelProto
    shared: int  # matmuls on MatMulInteger (their input quantized once for several)
    blockwise: int  # matmuls on MatMulNBits
    tables: int  # embedding tables gathered in int8


def _int8_weights(graph: Any, initializers: dict[str, Any]) -> dict[str, _Int8Weight]:
    """Each tensor that is an int8 initializer cast to float and scaled (Cast, then Mul by a
    scale initializer), by the name of the Mul's output."""
    from onnx import TensorProto

    producers, _ = _links(graph)
    weights: dict[str, _Int8Weight] = {}
    for node in graph.node:
        cast = producers.get(node.input[0]) if node.op_type == "Mul" else None
        if (cast is not None and cast.op_type == "Cast" and cast.input[0] in initializers
                and initializers[cast.input[0]].data_type == TensorProto.INT8
                and node.input[1] in initializers):
            weights[node.output[0]] = _Int8Weight(cast.input[0], node.input[1])
    return weights


def integer_graph(model: Any) -> Rewritten:
    """``model`` (an ``onnx.ModelProto``, changed in place) with its int8 weights on integer
    kernels."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    initializers = {i.name: i for i in graph.initializer}
    weights = _int8_weights(graph, initializers)

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
    graph.initializer.extend(added)
    _replace(model, nodes)
    return Rewritten(model, **counts)


_THROUGH = ("Reshape", "Transpose")  # head split / merge between a projection and attention


def fuse_attention(model: Any) -> tuple[Any, int]:
    """``model`` with each attention block of the export (query/key/value split into heads,
    scaled, masked with ``Where``/``IsNaN``, softmax, merged back) run by onnxruntime's
    ``MultiHeadAttention`` instead: the same arithmetic in fp32 (outputs equal to 1e-4), without
    the ~170 transposes, reshapes and masking nodes (+13% texts/s here). Returns the number of
    blocks fused; with any block not matching, the model comes back unchanged and 0."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    initializers = {i.name: i for i in graph.initializer}
    producers, readers = _links(graph)
    mask = next((i.name for i in graph.input if i.name == "attention_mask"), None)
    if mask is None:  # the fused op masks padding by this input
        return model, 0

    def projection(tensor: str) -> tuple[str | None, float]:
        """Back through head reshapes, transposes and scalar scales to the [B, S, D] tensor a
        bias ``Add`` made; and the product of the scales passed."""
        factor = 1.0
        while (node := producers.get(tensor)) is not None:
            if node.op_type in _THROUGH:
                tensor = node.input[0]
                continue
            scale = initializers.get(node.input[1]) if node.op_type == "Mul" else None
            if scale is not None and int(np.prod(scale.dims)) == 1:
                factor *= float(numpy_helper.to_array(scale).reshape(-1)[0])
                tensor = node.input[0]
                continue
            return (tensor if node.op_type == "Add" else None), factor
        return None, factor

    def head_size(tensor: str) -> int | None:
        """The last entry of the shape the query is reshaped to (``Concat`` of sizes)."""
        for node in readers.get(tensor, []):
            shape = producers.get(node.input[1]) if node.op_type == "Reshape" else None
            if shape is not None and shape.op_type == "Concat" and \
                    shape.input[-1] in initializers:
                return int(numpy_helper.to_array(initializers[shape.input[-1]]).reshape(-1)[0])
        return None

    def hidden_size(tensor: str) -> int | None:
        bias = producers[tensor].input[1]
        return int(numpy_helper.to_array(initializers[bias]).shape[-1]) \
            if bias in initializers else None

    fused: dict[int, Any] = {}  # the head-merging Reshape -> its replacement
    for softmax in (n for n in graph.node if n.op_type == "Softmax"):
        scores = producers.get(softmax.input[0])
        if scores is not None and scores.op_type == "Add":  # the mask
            scores = producers.get(scores.input[0])
        probabilities = readers.get(softmax.output[0], [])
        mixes = probabilities + [after for where in probabilities if where.op_type == "Where"
                                 for after in readers.get(where.output[0], [])]
        mix = next((r for r in mixes if r.op_type == "MatMul"), None)
        if scores is None or scores.op_type != "MatMul" or mix is None:
            return model, 0
        (query, q_scale), (key, k_scale), (value, v_scale) = (
            projection(scores.input[0]), projection(scores.input[1]), projection(mix.input[1]))
        merge = readers.get(mix.output[0], [None])[0]
        merged = readers.get(merge.output[0], [None])[0] if merge is not None else None
        if (query is None or key is None or value is None or merge is None or merged is None
                or merge.op_type != "Transpose" or merged.op_type != "Reshape" or v_scale != 1):
            return model, 0
        head, hidden = head_size(query), hidden_size(query)
        if not head or not hidden or hidden % head:
            return model, 0
        fused[id(merged)] = helper.make_node(  # the export's own scale, 1/sqrt(32) here
            "MultiHeadAttention", [query, key, value, "", f"{mask}_i32"], [merged.output[0]],
            domain=_MS_DOMAIN, num_heads=hidden // head, scale=q_scale * k_scale)
    if not fused:
        return model, 0

    cast = helper.make_node("Cast", [mask], [f"{mask}_i32"], to=TensorProto.INT32)
    _replace(model, [cast, *(fused.get(id(node), node) for node in graph.node)])
    return model, len(fused)


def _links(graph: Any) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """Each tensor's producing node, and the nodes reading it."""
    producers = {out: node for node in graph.node for out in node.output}
    readers: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            readers.setdefault(name, []).append(node)
    return producers, readers


def _replace(model: Any, nodes: list[Any]) -> None:
    """``nodes`` as the graph's, less those nothing reads any more (the pieces a fused node
    replaced) and the initializers only they read; the contrib opset where a node needs it."""
    from onnx import helper

    graph = model.graph
    outputs = {o.name for o in graph.output}
    while True:
        read = {name for node in nodes for name in node.input} | outputs
        kept = [node for node in nodes if any(out in read for out in node.output)]
        if len(kept) == len(nodes):
            break
        nodes = kept
    read = {name for node in nodes for name in node.input}
    kept_initializers = [i for i in graph.initializer if i.name in read]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept_initializers)
    if (any(node.domain == _MS_DOMAIN for node in nodes)
            and not any(o.domain == _MS_DOMAIN for o in model.opset_import)):
        model.opset_import.append(helper.make_opsetid(_MS_DOMAIN, 1))

