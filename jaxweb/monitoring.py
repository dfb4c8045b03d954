"""`jaxweb.monitoring`: JAX's event hooks. jaxweb records the events JAX's users and
libraries emit through it (record_event, record_event_duration_secs, record_scalar) to
the registered listeners; jaxweb itself emits none."""
from __future__ import annotations

from typing import Any, Callable

__all__ = ["clear_event_listeners", "record_event", "record_event_duration_secs", "record_scalar",
           "register_event_duration_secs_listener", "register_event_listener", "register_scalar_listener"]

_EVENT: list[Callable] = []
_DURATION: list[Callable] = []
_SCALAR: list[Callable] = []


def register_event_listener(callback: Callable[..., None]) -> None:
    """callback(event, **kwargs) runs on each record_event."""
    _EVENT.append(callback)


def register_event_duration_secs_listener(callback: Callable[..., None]) -> None:
    """callback(event, duration_secs, **kwargs) runs on each record_event_duration_secs."""
    _DURATION.append(callback)


def register_scalar_listener(callback: Callable[..., None]) -> None:
    """callback(event, value, **kwargs) runs on each record_scalar."""
    _SCALAR.append(callback)


def record_event(event: str, **kwargs: Any) -> None:
    for cb in list(_EVENT):
        cb(event, **kwargs)


def record_event_duration_secs(event: str, duration: float, **kwargs: Any) -> None:
    for cb in list(_DURATION):
        cb(event, duration, **kwargs)


def record_scalar(event: str, value: float, **kwargs: Any) -> None:
    for cb in list(_SCALAR):
        cb(event, value, **kwargs)


def clear_event_listeners() -> None:
    _EVENT.clear()
    _DURATION.clear()
    _SCALAR.clear()
