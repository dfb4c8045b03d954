"""ONNX's backend interface for jaxweb (native only: it uses the `onnx` package).

`JaxwebBackend.prepare(model, device)` serializes the ModelProto and hands the bytes to
`jaxweb.onnx.load` (jaxweb's own reader); `run` calls the jitted model on the jaxweb device
named by `device` ('CPU' is wasm; 'WEBGPU' and the jaxweb platform names also work) and
returns numpy arrays of the dtypes the graph declares (jaxweb computes int64 as int32 with
x64 off, as JAX does; values are cast back here).

`run_case(case, platform)` runs one `onnx.backend.test` TestCase and says how it went:
'pass', 'fail: ...' (a wrong answer), 'unsupported: ...' (raised at load) or 'error: ...'.
"""
from __future__ import annotations

import numpy as np
import onnx
import onnx.backend.base
from onnx import helper

import jaxweb
import jaxweb.onnx

PLATFORMS = {"CPU": "wasm", "WEBGPU": "webgpu"}


def _platform(device: str) -> str:
    return PLATFORMS.get(device.upper(), device.lower())


class JaxwebRep(onnx.backend.base.BackendRep):
    def __init__(self, model: onnx.ModelProto, platform: str):
        self.platform = platform
        self.model = jaxweb.onnx.load(model.SerializeToString())
        self.out_dtypes = [helper.tensor_dtype_to_np_dtype(o.type.tensor_type.elem_type)
                           if o.type.tensor_type.elem_type else None for o in model.graph.output]

    def run(self, inputs, **kwargs):
        if not isinstance(inputs, dict):
            inputs = dict(zip((i.name for i in self.model.inputs), inputs))
        with jaxweb.default_device(jaxweb.devices(self.platform)[0]):
            out = self.model.jitted(self.model.params, inputs)
            outs = out if isinstance(out, tuple) else (out,)
            host = [np.asarray(o) for o in outs]
        return tuple(h.astype(dt) if dt is not None and h.dtype != dt else h
                     for h, dt in zip(host, self.out_dtypes))


class JaxwebBackend(onnx.backend.base.Backend):
    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        return JaxwebRep(model, _platform(device))

    @classmethod
    def supports_device(cls, device: str) -> bool:
        try:
            return bool(jaxweb.devices(_platform(device)))
        except RuntimeError:
            return False

    @classmethod
    def run_node(cls, node, inputs, device="CPU", outputs_info=None, **kwargs):
        raise onnx.backend.base.BackendIsNotSupposedToImplementIt("models only")


def case_op(case) -> str:
    """The operator a node test case checks (the name stem for decomposed '_expanded' ones)."""
    ops = sorted({n.op_type for n in case.model.graph.node})
    if len(ops) == 1:
        return ops[0]
    stem = case.name.replace("_", "").lower()
    main = sorted((n for n in ops if n.lower() in stem), key=len)
    return main[-1] if main else "+".join(ops)


def run_case(case, platform: str = "wasm") -> str:
    from onnx.backend.test.runner import Runner  # noqa: PLC0415
    try:
        rep = JaxwebRep(case.model, platform)
    except jaxweb.onnx.Unsupported as e:
        return f"unsupported: {str(e).splitlines()[0][:200]}"
    except Exception as e:  # noqa: BLE001
        return f"error: load: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
    try:
        for inputs, expected in case.data_sets:
            got = rep.run([_np(x) for x in inputs])
            Runner.assert_similar_outputs([_np(x) for x in expected], got, rtol=case.rtol, atol=case.atol)
    except AssertionError as e:
        return f"fail: {' '.join(str(e).split())[:200]}"
    except jaxweb.onnx.Unsupported as e:
        return f"unsupported: {str(e).splitlines()[0][:200]}"
    except Exception as e:  # noqa: BLE001
        return f"error: {type(e).__name__}: {' '.join(str(e).split())[:200]}"
    return "pass"


def _np(x):
    if isinstance(x, onnx.TensorProto):
        return onnx.numpy_helper.to_array(x)
    return x


_CASES: list = []


def node_cases() -> list:
    """ONNX's node test cases (generated in memory by the onnx wheel; cached)."""
    if not _CASES:
        import warnings  # noqa: PLC0415
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from onnx.backend.test.case.node import collect_testcases  # noqa: PLC0415
            _CASES.extend(collect_testcases(None))
    return _CASES


LIGHT = ("bvlc_alexnet", "squeezenet", "shufflenet", "zfnet512", "densenet121", "inception_v1",
         "inception_v2", "resnet50", "vgg19")


def light_case(name: str) -> tuple:
    """(ModelProto, inputs, expected output) of one of the wheel's light models: the input is
    the runner's deterministic dummy data, the output the one the wheel ships."""
    import os  # noqa: PLC0415
    from onnx.backend.test.runner import Runner  # noqa: PLC0415
    path = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light", f"light_{name}")
    model = onnx.load(path + ".onnx")
    inits = {i.name for i in model.graph.initializer}
    inputs = [Runner.generate_dummy_data(x) for x in model.graph.input if x.name not in inits]
    expected = onnx.numpy_helper.to_array(onnx.load_tensor(path + "_output_0.pb"))
    return model, inputs, expected


def run_light(platform: str, names=LIGHT):
    """(name, status, seconds) for each light model, compared with ONNX's tolerances."""
    import time  # noqa: PLC0415
    from onnx.backend.test.runner import Runner  # noqa: PLC0415
    for name in names:
        t = time.time()
        model, inputs, expected = light_case(name)
        try:
            got = JaxwebRep(model, platform).run(inputs)
            Runner.assert_similar_outputs([expected], got[:1], rtol=1e-3, atol=1e-7)
            status = "pass"
        except AssertionError as e:
            status = f"fail: {' '.join(str(e).split())[:200]}"
        except Exception as e:  # noqa: BLE001
            status = f"error: {type(e).__name__}: {' '.join(str(e).split())[:200]}"
        yield name, status, time.time() - t
