"""`jax.numpy.fft`: discrete Fourier transforms on `lax.fft` (see jaxweb/_src/numpy/fft.py)."""
from jaxweb._src.numpy.fft import (fft, fft2, fftfreq, fftn, fftshift, hfft, ifft, ifft2, ifftn,
                                   ifftshift, ihfft, irfft, irfft2, irfftn, rfft, rfft2, rfftfreq, rfftn)

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn", "ifftshift",
           "ihfft", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]
