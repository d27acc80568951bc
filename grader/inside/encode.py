"""The probe child's result encoder, built from references captured in the zygote.

:func:`make_encoder` returns ``encode(value, cap) -> bytes``: JSON text of
plain data (None, bools, ints, floats, strings, lists, tuples, dicts with
string or int keys), with NumPy arrays and scalars and torch tensors turned
into lists and numbers.  Every function it calls was looked up when it was
built, in the zygote, so a student who replaces ``json.dumps``,
``torch.Tensor.tolist`` or a builtin changes nothing here.
"""

from __future__ import annotations

import builtins
import sys


class ResultNotSerializable(TypeError):
    """The probe returned something that is not plain JSON-like data."""


class ResultTooLarge(ValueError):
    """The encoded result exceeds the size cap."""


def make_encoder():
    """Build ``encode(value, cap) -> bytes`` from references captured now."""
    import json.encoder as json_encoder

    _type, _len, _enumerate = builtins.type, builtins.len, builtins.enumerate
    _isinstance, _str = builtins.isinstance, builtins.str
    _dict_items = dict.items
    _inf, _minus_inf = float("inf"), float("-inf")
    _float_repr, _int_repr = float.__repr__, int.__repr__
    _encode_str = json_encoder.encode_basestring_ascii  # the C function from _json
    _join = "".join
    np = sys.modules.get("numpy")
    torch = sys.modules.get("torch")
    np_ndarray = np.ndarray if np else None
    np_generic = np.generic if np else None
    np_tolist = np.ndarray.tolist if np else None
    np_item = np.generic.item if np else None
    torch_tensor = torch.Tensor if torch else None
    torch_parameter = torch.nn.Parameter if torch else None
    torch_tolist = torch.Tensor.tolist if torch else None
    torch_detach = torch.Tensor.detach if torch else None
    max_depth = 100

    def kind_name(obj) -> str:
        try:
            return _str(_type(obj).__qualname__)
        except BaseException:  # noqa: BLE001 - a hostile metaclass
            return "?"

    def encode(value, cap: int) -> bytes:
        out: list[str] = []
        size = [0]

        def emit(text: str) -> None:
            size[0] += _len(text)
            if size[0] > cap:
                raise ResultTooLarge(f"result exceeds {cap} bytes once encoded")
            out.append(text)

        def walk(obj, depth: int) -> None:
            if depth > max_depth:
                raise ResultNotSerializable(f"result nested deeper than {max_depth}")
            kind = _type(obj)
            if obj is None:
                emit("null")
            elif obj is True:
                emit("true")
            elif obj is False:
                emit("false")
            elif kind is int:
                emit(_int_repr(obj))
            elif kind is float:
                if obj != obj:
                    emit("NaN")
                elif obj == _inf or obj == _minus_inf:
                    emit("Infinity" if obj > 0 else "-Infinity")
                else:
                    emit(_float_repr(obj))
            elif kind is str:
                emit(_encode_str(obj))
            elif kind is list or kind is tuple:
                emit("[")
                for i, item in _enumerate(obj):
                    if i:
                        emit(",")
                    walk(item, depth + 1)
                emit("]")
            elif kind is dict:
                emit("{")
                for i, (key, item) in _enumerate(_dict_items(obj)):
                    if _type(key) is int:
                        key = _int_repr(key)
                    elif _type(key) is not str:
                        raise ResultNotSerializable(f"dict key of type {kind_name(key)} in result")
                    emit("," if i else "")
                    emit(_encode_str(key))
                    emit(":")
                    walk(item, depth + 1)
                emit("}")
            elif np_ndarray is not None and kind is np_ndarray:
                walk(np_tolist(obj), depth)
            elif np_generic is not None and _isinstance(obj, np_generic):
                walk(np_item(obj), depth)
            elif torch_tensor is not None and (kind is torch_tensor or kind is torch_parameter):
                walk(torch_tolist(torch_detach(obj)), depth)
            else:
                raise ResultNotSerializable(
                    f"probe returned a value of type {kind_name(obj)}, which is not JSON data")

        walk(value, 0)
        return _join(out).encode("ascii")

    return encode
