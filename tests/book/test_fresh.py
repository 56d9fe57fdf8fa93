"""A ``--fresh`` run's merge of a store file (lcrag.book.fresh.merged): the store reader's lines, the new entries in
place of the old ones with the same key, every other old line kept."""

from __future__ import annotations

from lcrag.book.fresh import merged


def test_new_entries_replace_old_ones_in_place_and_new_keys_follow():
    old = b'{"key": "a", "response": 1}\n{"key": "b", "response": 2}\n'
    new = b'{"key": "b", "response": 20}\n{"key": "c", "response": 30}\n{"key": "b", "response": 21}\n'
    assert merged(old, new) == (b'{"key": "a", "response": 1}\n{"key": "b", "response": 20}\n'
                                b'{"key": "c", "response": 30}\n')  # the first of a key's new lines wins
    assert merged(old, b"") == old and merged(b"", new) == (b'{"key": "b", "response": 20}\n'
                                                            b'{"key": "c", "response": 30}\n')


def test_lines_that_are_not_entries_are_kept_and_blank_ones_dropped():
    """An old line that is not JSON, not UTF-8 or cut short (no final newline) stays, byte for byte, for ``lcrag
    store check`` to name; the new file's such lines are not entries and are left out."""
    old = b'{"key": "a", "response": 1}\n\n  \n\xff\xfe\n[1]\n{"key": "b", "resp'
    new = b'{"key": "a", "response": 10}\n\xff\n{"key": "c", "res'
    assert merged(old, new) == b'{"key": "a", "response": 10}\n\xff\xfe\n[1]\n{"key": "b", "resp\n'


def test_a_carriage_return_inside_a_line_does_not_cut_it():
    """Lines are cut on ``\\n`` only, as the store reads them (lcrag.jsonl.split): ``bytes.splitlines`` made two
    lines of each of these and wrote them back with a newline between."""
    broken = b'{"key": "a", "response": "x\ry"}\n'  # not JSON (a raw control character in a string): kept as it is
    assert merged(broken, b"") == broken
    entry = b'{"key": "a",\r"response": "x"}\n'  # JSON (a carriage return between tokens is whitespace): an entry
    assert merged(entry, b"") == entry
    assert merged(entry, b'{"key": "a", "response": "z"}\n') == b'{"key": "a", "response": "z"}\n'
