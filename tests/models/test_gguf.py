"""lcrag.models.gguf agrees with llama.cpp's own reader (the ``gguf`` package) on every field and tensor."""

from __future__ import annotations

import numpy as np
import pytest
from gguf import GGUFReader

from lcrag.models import registry
from lcrag.models.gguf import GGUFError, GGUFFile
from lcrag.models.model_files import gguf_path


def test_every_field_and_tensor_matches_llama_cpps_reader():
    path = gguf_path(registry.LOCAL_MODELS["smollm2-135m-instruct"])
    ours, theirs = GGUFFile.open(path), GGUFReader(path, "r")
    fields = {k: f.contents() for k, f in theirs.fields.items() if not k.startswith("GGUF.")}
    assert set(ours.metadata) == set(fields)
    for key, value in fields.items():
        got = ours.metadata[key]
        got = got.tolist() if isinstance(got, np.ndarray) else got
        assert got == value or np.allclose(got, value), key
    assert len(ours.metadata["tokenizer.ggml.tokens"]) == 49152  # string arrays are read, not dropped
    assert ours.tensors == {t.name: (int(t.tensor_type), tuple(int(d) for d in reversed(t.shape)), int(t.data_offset))
                            for t in theirs.tensors}


def test_a_file_that_is_not_gguf_is_named(tmp_path):
    bad = tmp_path / "x.gguf"
    bad.write_bytes(b"GGML" + bytes(20))
    with pytest.raises(GGUFError, match="is not a GGUF file"):
        GGUFFile.open(bad)
