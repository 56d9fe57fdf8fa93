"""The embedded server's settings (lcrag.models.server_settings): the choices that depend on the CPU."""

from __future__ import annotations

from lcrag.models import server_settings
from lcrag.models.registry import LOCAL_MODELS

QWEN = LOCAL_MODELS["qwen2.5-coder-1.5b-instruct"]
SMOL = LOCAL_MODELS["smollm2-135m-instruct"]
AVX512 = {"avx2", "avx512f", "avx512_vnni"}


def test_the_qwen_prefill_is_bf16_only_where_the_cpu_multiplies_bf16():
    # On a CPU without bf16 products torch emulates them (a quarter of the f32 rate): f32 there.
    assert server_settings.prefill_weights(QWEN, AVX512) == "f32"
    assert server_settings.prefill_weights(QWEN, AVX512 | {"avx512_bf16"}) == "bf16"  # AMD Zen 4, Intel Cooper Lake
    assert server_settings.prefill_weights(QWEN, AVX512 | {"amx_bf16", "amx_tile"}) == "bf16"  # Intel AMX


def test_the_small_models_keep_their_exact_f32_prefill_on_every_cpu():
    for flags in (AVX512, AVX512 | {"amx_bf16"}):
        assert server_settings.prefill_weights(SMOL, flags) == "f32"

