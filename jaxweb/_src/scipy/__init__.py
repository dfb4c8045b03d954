"""Implementation of `jaxweb.scipy`: special functions and statistical distributions."""
