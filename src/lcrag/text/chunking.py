"""Split a document into chunks for retrieval.

Two strategies, as in the thesis (§5.1.4):

* :func:`recursive_split`, fixed-length chunking. It behaves like LangChain's
  ``RecursiveCharacterTextSplitter`` with its defaults (separators ``"\\n\\n"``, ``"\\n"``, ``" "``, ``""``;
  each separator kept at the start of the piece that follows it; whitespace stripped from every chunk).
  With ``chunk_size=512, chunk_overlap=50`` it reproduces, character for character, the chunks that the
  thesis quotes for BAMBOO MeetingQA (case 3 chunks 5 and 14, case 4 chunk 5).
* :func:`semantic_split`, semantic chunking. It behaves like ``langchain_experimental``'s
  ``SemanticChunker(embeddings, number_of_chunks=n)``: split into sentences, embed each sentence with its
  neighbours, and cut where consecutive embeddings are furthest apart.

Both are written from a description of the algorithms, not copied.

Chunk lists are 0-based Python lists; the thesis numbers chunks from 1 (its "chunk n°5" is ``chunks[4]``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

DEFAULT_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", " ", "")
"""LangChain's default separators: paragraph, line, word, character."""

SENTENCE_PATTERN = r"(?<=[.?!])\s+"
"""SemanticChunker's sentence boundary: whitespace that follows ``.``, ``?`` or ``!``."""


# --------------------------------------------------------------------------- fixed-length chunking


def recursive_split(
    text: str,
    chunk_size: int = 512,
    chunk_overlap: int = 50,
    separators: Sequence[str] = DEFAULT_SEPARATORS,
    length: Callable[[str], int] = len,
) -> list[str]:
    """Split ``text`` into chunks of at most ``chunk_size`` (measured by ``length``), overlapping a little.

    The algorithm (LangChain's recursive character splitter, ``keep_separator=True``):

    1. Pick the first separator that occurs in the text (``""`` means "between characters").
    2. Cut the text before every occurrence of it, so each piece after the first starts with the
       separator.
    3. Pieces shorter than ``chunk_size`` are collected and greedily merged into chunks
       (:func:`_merge`); a piece that is too long is split again with the remaining, finer separators.

    Neighbouring chunks share up to about ``chunk_overlap`` of trailing pieces. Chunks are stripped of
    surrounding whitespace and empty chunks are dropped.

    >>> recursive_split("aaa bbb ccc", chunk_size=8, chunk_overlap=4)
    ['aaa bbb', 'bbb ccc']
    """
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, not {chunk_size}")
    if not 0 <= chunk_overlap <= chunk_size:
        raise ValueError(
            f"chunk_overlap must be between 0 and chunk_size ({chunk_size}), not {chunk_overlap}"
        )
    if not separators:
        raise ValueError("separators must not be empty")
    return _split(text, list(separators), chunk_size, chunk_overlap, length)


def _pick_separator(text: str, separators: list[str]) -> tuple[str, list[str]]:
    """The first separator present in ``text``, and the finer ones left for recursion.

    ``""`` always matches and leaves nothing finer. If none matches, the last separator is used with
    nothing finer, so the text comes back as one piece.
    """
    for i, sep in enumerate(separators):
        if sep == "":
            return sep, []
        if sep in text:
            return sep, separators[i + 1 :]
    return separators[-1], []


def _cut_before(text: str, sep: str) -> list[str]:
    """Cut ``text`` before each ``sep`` (kept at the start of the next piece); drop empty pieces."""
    if sep == "":
        return list(text)
    first, *rest = text.split(sep)
    return [p for p in [first, *(sep + r for r in rest)] if p]


def _split(
    text: str, separators: list[str], size: int, overlap: int, length: Callable[[str], int]
) -> list[str]:
    sep, finer = _pick_separator(text, separators)
    chunks: list[str] = []
    small: list[str] = []
    for piece in _cut_before(text, sep):
        if length(piece) < size:
            small.append(piece)
            continue
        if small:
            chunks.extend(_merge(small, size, overlap, length))
            small = []
        if finer:
            chunks.extend(_split(piece, finer, size, overlap, length))
        else:
            chunks.append(piece)  # nothing finer to cut with: kept as is, over-long
    if small:
        chunks.extend(_merge(small, size, overlap, length))
    return chunks


def _merge(pieces: list[str], size: int, overlap: int, length: Callable[[str], int]) -> list[str]:
    """Greedily concatenate pieces into chunks of at most ``size``.

    When the next piece would overflow, the current window is emitted; then pieces are dropped from its
    front until what remains is no longer than ``overlap`` *and* leaves room for the next piece. What
    remains starts the next chunk, which is how consecutive chunks overlap.
    """
    chunks: list[str] = []
    window: list[str] = []
    total = 0
    for piece in pieces:
        n = length(piece)
        if total + n > size and window:
            _emit(window, chunks)
            while total > overlap or (total + n > size and total > 0):
                total -= length(window.pop(0))
        window.append(piece)
        total += n
    _emit(window, chunks)
    return chunks


def _emit(window: list[str], chunks: list[str]) -> None:
    chunk = "".join(window).strip()
    if chunk:
        chunks.append(chunk)


# --------------------------------------------------------------------------- semantic chunking


def split_sentences(text: str, pattern: str = SENTENCE_PATTERN) -> list[str]:
    """Sentences of ``text``: cut at whitespace that follows ``.``, ``?`` or ``!`` (the whitespace is dropped)."""
    return re.split(pattern, text)


def semantic_split(
    text: str,
    embed: Callable[[list[str]], np.ndarray],
    n_chunks: int | None = 30,
    *,
    buffer_size: int = 1,
    percentile: float = 95.0,
    sentence_pattern: str = SENTENCE_PATTERN,
) -> list[str]:
    """Split ``text`` into about ``n_chunks`` runs of sentences, cutting where the topic shifts most.

    Following ``SemanticChunker``:

    1. Split into sentences (:func:`split_sentences`).
    2. Embed each sentence together with ``buffer_size`` neighbours on each side (joined by spaces), so a
       single short sentence does not dominate.
    3. ``d[i] = 1 - cos(e[i], e[i+1])`` for consecutive sentences.
    4. Cut after sentence ``i`` when ``d[i]`` exceeds a threshold. With ``n_chunks`` the threshold is the
       ``p``-th percentile of ``d`` where ``p`` falls linearly from 100 (1 chunk) to 0 (one chunk per
       sentence); this yields approximately, not exactly, ``n_chunks`` chunks. With ``n_chunks=None`` the
       threshold is the ``percentile``-th percentile (SemanticChunker's default, 95).
    5. A chunk is its sentences joined by single spaces (the original whitespace is not kept).

    ``embed`` maps a list of strings to a 2-D array, one row per string (any scale: rows are
    normalised here). Text without a sentence boundary comes back as one chunk; blank text as none.
    """
    if not text.strip():
        return []
    if n_chunks is not None and n_chunks < 1:
        raise ValueError(f"n_chunks must be at least 1 or None, not {n_chunks}")
    sentences = split_sentences(text, sentence_pattern)
    if len(sentences) == 1:
        return sentences
    distances = sentence_distances(sentences, embed, buffer_size)
    if n_chunks is None:
        threshold = float(np.percentile(distances, percentile))
    else:
        threshold = _threshold_for_count(distances, n_chunks)
    cuts = [i for i, d in enumerate(distances) if d > threshold]
    chunks, start = [], 0
    for i in cuts:
        chunks.append(" ".join(sentences[start : i + 1]))
        start = i + 1
    if start < len(sentences):
        chunks.append(" ".join(sentences[start:]))
    return chunks


def with_neighbours(sentences: list[str], buffer_size: int = 1) -> list[str]:
    """Each sentence joined (by spaces) with up to ``buffer_size`` sentences before and after it."""
    n = len(sentences)
    return [" ".join(sentences[max(0, i - buffer_size) : min(n, i + buffer_size + 1)]) for i in range(n)]


def sentence_distances(
    sentences: list[str], embed: Callable[[list[str]], np.ndarray], buffer_size: int = 1
) -> np.ndarray:
    """Cosine distance between each sentence window and the next one (length ``len(sentences) - 1``)."""
    vectors = np.asarray(embed(with_neighbours(sentences, buffer_size)), dtype=np.float64)
    if vectors.ndim != 2 or len(vectors) != len(sentences):
        raise ValueError(
            f"embed returned shape {vectors.shape} for {len(sentences)} texts; expected ({len(sentences)}, dim)"
        )
    norms = np.linalg.norm(vectors, axis=1)
    dots = np.sum(vectors[:-1] * vectors[1:], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        cosine = dots / (norms[:-1] * norms[1:])
    cosine[~np.isfinite(cosine)] = 0.0  # a zero vector is "unrelated" to everything
    return 1.0 - cosine


def _threshold_for_count(distances: np.ndarray, n_chunks: int) -> float:
    """The distance percentile that leaves about ``n_chunks - 1`` distances above it.

    Linear in ``n_chunks``: 1 chunk maps to the 100th percentile (no cut), ``len(distances)`` chunks to the
    0th. Clamped to that range.

    The arithmetic is done in SemanticChunker's order (slope first) on purpose: the percentile often
    lands exactly on one of the distances, and the last bit of rounding decides whether that distance
    is a cut (strictly above) or not. That is why SemanticChunker sometimes returns ``n_chunks + 1``
    chunks, and so does this function.
    """
    m = float(len(distances))
    x = max(min(float(n_chunks), m), 1.0)
    p = 100.0 if m == 1.0 else (100.0 / (1.0 - m)) * (x - m)
    return float(np.percentile(distances, min(max(p, 0.0), 100.0)))


# --------------------------------------------------------------------------- LongRAG's clause chunks

CLAUSE_STOPS: tuple[str, ...] = ("!", "。", "，", "！", "?", "？", ",", ".", ";")
"""The unit boundaries of LongRAG's released chunker (``gen_index.py``): they include the comma, so the "sentence"
units are clauses."""

_CLAUSE_SPLIT = re.compile("(" + "|".join(map(re.escape, CLAUSE_STOPS)) + ")")
_LONGRAG_WORD = re.compile(r"[\u4e00-\u9fa5]|[^\W\u4e00-\u9fa5]+")


def clause_units(text: str) -> list[str]:
    """LongRAG's units: each piece of ``text`` up to and including a stop character.

    As in the released code, a text without any stop character is one unit, and text after the last stop
    character is dropped (``"a, b"`` gives ``["a,"]``): the released indexer loses those trailing words, and
    reproducing its chunks means losing them too.
    """
    pieces = _CLAUSE_SPLIT.split(text)
    if len(pieces) == 1:
        return pieces
    return [pieces[i] + pieces[i + 1] for i in range(0, len(pieces) - 1, 2)]


def longrag_word_count(text: str) -> int:
    """Words as LongRAG counts them: the lower-cased text split on non-word characters (``[\\W]``), each Han
    character a word of its own, empty pieces ignored.

    Counted in one pass: each Han character, and each run of the other word characters, is one word (the
    released code's splits, counted instead of built: the LongRAG corpus has some 400 000 clause units)."""
    return len(_LONGRAG_WORD.findall(text.lower()))


def clause_chunks(text: str, chunk_size: int = 200, min_units: int = 2, overlap: int = 2) -> list[str]:
    """LongRAG's chunker (``gen_index.py --chunk_size 200 --min_sentence 2 --overlap 2``), re-implemented.

    Units (:func:`clause_units`) are added to a chunk until its *new* units hold at least
    ``chunk_size`` minus the words of the ``overlap`` units carried over from the previous chunk; every chunk
    after the first starts with the last ``overlap`` units of the previous one. A final chunk of fewer than
    ``min_units`` units (overlap included) is appended to the previous chunk. Chunks are the units joined with
    no separator, so ``"".join`` of the first chunk and the new units of the others gives the text back
    (less what :func:`clause_units` drops).
    """
    if chunk_size < 1 or overlap < 0 or min_units < 1:
        raise ValueError("chunk_size and min_units must be positive and overlap non-negative")
    units = clause_units(text)
    if len(units) == 1:
        return units
    # Every unit ends with a non-word stop character, so the words of joined units are the sum of their words.
    words = [longrag_word_count(u) for u in units]
    chunks: list[str] = []
    start, new_words, carried_words = 0, 0, 0  # first unit not yet in a chunk; its words so far; overlap's words
    for i in range(len(units)):
        new_words += words[i]
        last = i == len(units) - 1
        if new_words < chunk_size - carried_words and not last:
            continue
        if i + 1 > overlap:
            carried_words = sum(words[i + 1 - overlap : i + 1])
        first = start
        if chunks and start > overlap:
            first = start - overlap
        piece = "".join(units[first : i + 1])
        if chunks and last and i - first + 1 < min_units:
            chunks[-1] += piece
        else:
            chunks.append(piece)
        start, new_words = i + 1, 0
    return chunks
