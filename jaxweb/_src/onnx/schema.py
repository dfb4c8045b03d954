"""ONNX's messages (onnx/onnx.proto3, IR version 10) as protobuf schemas: field number ->
(name, kind, repeated). Only what a runtime reads is listed; other fields are skipped."""
from __future__ import annotations

STRING_ENTRY = {1: ("key", "str", False), 2: ("value", "str", False)}
OPSET_ID = {1: ("domain", "str", False), 2: ("version", "int", False)}
SEGMENT = {1: ("begin", "int", False), 2: ("end", "int", False)}

TENSOR = {
    1: ("dims", "int", True), 2: ("data_type", "int", False), 3: ("segment", SEGMENT, False),
    4: ("float_data", "float", True), 5: ("int32_data", "int", True), 6: ("string_data", "bytes", True),
    7: ("int64_data", "int", True), 8: ("name", "str", False), 9: ("raw_data", "bytes", False),
    10: ("double_data", "double", True), 11: ("uint64_data", "uint", True),
    13: ("external_data", STRING_ENTRY, True), 14: ("data_location", "enum", False),
}
SPARSE_TENSOR = {1: ("values", TENSOR, False), 2: ("indices", TENSOR, False), 3: ("dims", "int", True)}

DIMENSION = {1: ("dim_value", "int", False), 2: ("dim_param", "str", False)}
SHAPE = {1: ("dim", DIMENSION, True)}
TYPE: dict = {}
TENSOR_TYPE = {1: ("elem_type", "int", False), 2: ("shape", SHAPE, False)}
ELEM_TYPE = {1: ("elem_type", TYPE, False)}
TYPE.update({1: ("tensor_type", TENSOR_TYPE, False), 4: ("sequence_type", ELEM_TYPE, False),
             9: ("optional_type", ELEM_TYPE, False), 8: ("sparse_tensor_type", TENSOR_TYPE, False)})
VALUE_INFO = {1: ("name", "str", False), 2: ("type", TYPE, False)}

GRAPH: dict = {}
ATTRIBUTE = {
    1: ("name", "str", False), 21: ("ref_attr_name", "str", False), 20: ("type", "enum", False),
    2: ("f", "float", False), 3: ("i", "int", False), 4: ("s", "bytes", False), 5: ("t", TENSOR, False),
    6: ("g", GRAPH, False), 22: ("sparse_tensor", SPARSE_TENSOR, False), 14: ("tp", TYPE, False),
    7: ("floats", "float", True), 8: ("ints", "int", True), 9: ("strings", "bytes", True),
    10: ("tensors", TENSOR, True), 11: ("graphs", GRAPH, True), 15: ("type_protos", TYPE, True),
}
NODE = {1: ("input", "str", True), 2: ("output", "str", True), 3: ("name", "str", False),
        4: ("op_type", "str", False), 7: ("domain", "str", False), 5: ("attribute", ATTRIBUTE, True)}
GRAPH.update({1: ("node", NODE, True), 2: ("name", "str", False), 5: ("initializer", TENSOR, True),
              15: ("sparse_initializer", SPARSE_TENSOR, True), 11: ("input", VALUE_INFO, True),
              12: ("output", VALUE_INFO, True), 13: ("value_info", VALUE_INFO, True)})
FUNCTION = {1: ("name", "str", False), 4: ("input", "str", True), 5: ("output", "str", True),
            6: ("attribute", "str", True), 11: ("attribute_proto", ATTRIBUTE, True),
            7: ("node", NODE, True), 9: ("opset_import", OPSET_ID, True), 10: ("domain", "str", False)}
MODEL = {1: ("ir_version", "int", False), 8: ("opset_import", OPSET_ID, True),
         2: ("producer_name", "str", False), 3: ("producer_version", "str", False),
         4: ("domain", "str", False), 5: ("model_version", "int", False), 6: ("doc_string", "str", False),
         7: ("graph", GRAPH, False), 14: ("metadata_props", STRING_ENTRY, True),
         25: ("functions", FUNCTION, True)}

# AttributeProto.AttributeType -> the field holding the value
ATTRIBUTE_FIELD = {1: "f", 2: "i", 3: "s", 4: "t", 5: "g", 11: "sparse_tensor", 13: "tp", 6: "floats",
                   7: "ints", 8: "strings", 9: "tensors", 10: "graphs", 14: "type_protos"}
