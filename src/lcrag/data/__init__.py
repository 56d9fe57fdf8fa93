"""Data layer: the manifest of dataset files, the fetch/verify step, and one typed loader per dataset.

Usage::

    from lcrag import data
    print(data.fetch(mirror="../shared/data").summary())   # or: make data / lcrag data fetch
    df = data.load_bamboo("paperqa", "4k")                 # the LoadReport is in df.attrs["report"]

Note: the function ``fetch`` is re-exported here, so ``lcrag.data.fetch`` is the function, not the
module; import module members with ``from lcrag.data.fetch import ...``.

Loaders return tidy pandas DataFrames (one row per record) and take an optional explicit path;
otherwise they find the fetched file through :func:`path`, which says how to fetch it when absent.
"""

from __future__ import annotations

from lcrag.data.bamboo import load_bamboo
from lcrag.data.essays import load_essays
from lcrag.data.fetch import FetchReport, FileResult, fetch, path, verify
from lcrag.data.longbench import load_longbench, load_longrag_eval, split_passages
from lcrag.data.manifest import (
    ChecksumError,
    DataError,
    DataNotFoundError,
    Manifest,
    ManifestEntry,
    ManifestError,
    load_manifest,
)
from lcrag.data.records import DataWarning, LoadReport
from lcrag.data.summhay import Haystack, load_eval_benchmark, load_haystack, load_haystacks

__all__ = [
    "ChecksumError",
    "DataError",
    "DataNotFoundError",
    "DataWarning",
    "FetchReport",
    "FileResult",
    "Haystack",
    "LoadReport",
    "Manifest",
    "ManifestEntry",
    "ManifestError",
    "fetch",
    "load_bamboo",
    "load_essays",
    "load_eval_benchmark",
    "load_haystack",
    "load_haystacks",
    "load_longbench",
    "load_longrag_eval",
    "load_manifest",
    "path",
    "split_passages",
    "verify",
]
