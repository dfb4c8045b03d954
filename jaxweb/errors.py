"""`jaxweb.errors`: the exception types JAX users catch, under JAX's names."""
from jaxweb._src.core import (ConcretizationTypeError, TracerArrayConversionError,
                              TracerBoolConversionError, TracerIntegerConversionError,
                              UnexpectedTracerError)
from jaxweb._src.errors import JaxRuntimeError
from jaxweb._src.numpy.indexing import NonConcreteBooleanIndexError

__all__ = ["ConcretizationTypeError", "JaxRuntimeError", "NonConcreteBooleanIndexError",
           "TracerArrayConversionError", "TracerBoolConversionError", "TracerIntegerConversionError",
           "UnexpectedTracerError"]
