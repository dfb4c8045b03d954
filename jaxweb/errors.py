"""`jaxweb.errors`: the exception types JAX users catch, under JAX's names."""
from jaxweb._src.core import (ConcretizationTypeError, TracerArrayConversionError,
                              TracerBoolConversionError, TracerIntegerConversionError,
                              UnexpectedTracerError)
from jaxweb._src.errors import (InconclusiveDimensionOperation, JAXIndexError, JaxprTypeError, JaxRuntimeError,
                                JAXTypeError, KeyReuseError)
from jaxweb._src.numpy.indexing import NonConcreteBooleanIndexError

__all__ = ["ConcretizationTypeError", "InconclusiveDimensionOperation", "JAXIndexError", "JAXTypeError",
           "JaxprTypeError", "JaxRuntimeError", "KeyReuseError", "NonConcreteBooleanIndexError",
           "TracerArrayConversionError", "TracerBoolConversionError", "TracerIntegerConversionError",
           "UnexpectedTracerError"]
