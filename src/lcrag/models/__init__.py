"""The model layer: one interface for every model call (see :mod:`lcrag.models.client`)."""

from lcrag.models.client import (
    AuthError,
    CacheMiss,
    Completion,
    Model,
    ModelCallError,
    estimate_sentence,
    get_model,
)
from lcrag.models.registry import ModelInfo, UnknownModelError, parse_spec, slug

__all__ = [
    "AuthError", "CacheMiss", "Completion", "Model", "ModelCallError", "ModelInfo", "UnknownModelError",
    "estimate_sentence", "get_model", "parse_spec", "slug",
]
