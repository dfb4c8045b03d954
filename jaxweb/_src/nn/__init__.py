"""Implementation of `jaxweb.nn`: activations, softmax family, attention, initializers."""
