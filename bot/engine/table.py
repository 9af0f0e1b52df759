"""The transposition table the threads of one search share (``Threads`` above 1): fixed-size entries
in one block of shared memory, read and written by every process of the search without a lock.

Lazy SMP needs nothing else in common: the processes search the same root, and what one has
searched reaches the others through this table. A lock on every probe would cost more than it
saves, so an entry is two signed 64-bit words, the key XOR the data and the data (the classic
lock-free check): a reader takes an entry only when its two words XOR to the key it looks for. An
entry another process is half-way through writing (a torn write: one word new, one old) then reads
as a miss, never as another position's move or score. Every probe still checks the move it gets
for pseudo-legality, as it does with the single-thread table.

The block starts with a header: the stop flag the main search raises when it ends, and a node
counter for each process (helpers publish theirs at every look at their stop flag, for UCI's
``info nodes``). This module is the one place where an entry is packed and unpacked; it creates no
shared memory itself (:mod:`bot.engine.smp` does and hands its buffer over).
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import i64

from bot.engine.position import Move

#: Processes of one search at most (the header has a node counter for each).
MAX_THREADS: Final = 64
#: Header words: the stop flag, then one node counter a process.
HEADER_WORDS: Final = 1 + MAX_THREADS
_STOP_WORD: Final = 0
WORD_BYTES: Final = 8
#: An entry's two words.
ENTRY_BYTES: Final = 2 * WORD_BYTES
#: The data word, low bits first: the move (16 bits), the score offset to be non-negative (16),
#: the depth (8), the bound's flag (2), and a bit set in every entry written, so that an empty
#: slot (both words zero) is a miss even for a key of zero.
_SCORE_OFFSET: Final = 1 << 15
_MAX_DEPTH: Final = 255
_SCORE_SHIFT: Final = 16
_DEPTH_SHIFT: Final = 32
_FLAG_SHIFT: Final = 40
_WRITTEN: Final = 1 << 42
#: Words :meth:`SharedTable.clear` zeroes at a time (8 MB).
_CLEAR_WORDS: Final = 1 << 20


def block_bytes(hash_mb: int) -> int:
    """The size of the shared block for a table of *hash_mb* megabytes (the header on top)."""
    return HEADER_WORDS * WORD_BYTES + max(1, hash_mb * 1024 * 1024 // ENTRY_BYTES) * ENTRY_BYTES


class SharedTable:
    """A view of the shared block: entries by position key, the stop flag and the node counters.

    Entries replace each other in a slot always, except that an entry of the same position is kept
    over a shallower bound: the newest position is the likeliest to be probed again, and a bound
    of the same position searched deeper is worth more than a shallow one.
    """

    def __init__(self, buffer: memoryview) -> None:
        self.words = buffer.cast("q")
        self.slots: i64 = (len(self.words) - HEADER_WORDS) // 2

    def get(self, key: i64) -> tuple[int, int, int, Move] | None:
        """The entry of *key* as (depth, flag, score, move), or None (no entry, another
        position's, or one torn by a concurrent write)."""
        index: i64 = HEADER_WORDS + 2 * (key % self.slots)
        words = self.words
        data: i64 = words[index + 1]
        check: i64 = words[index]
        if check ^ data != key or not data & _WRITTEN:
            return None
        return ((data >> _DEPTH_SHIFT) & 0xFF, (data >> _FLAG_SHIFT) & 3,
                ((data >> _SCORE_SHIFT) & 0xFFFF) - _SCORE_OFFSET, data & 0xFFFF)

    def put(self, key: i64, depth: int, flag: int, score: int, move: Move) -> None:
        """Stores an entry for *key* (the score already relative to the node, as the table keeps it)."""
        index: i64 = HEADER_WORDS + 2 * (key % self.slots)
        words = self.words
        old: i64 = words[index + 1]
        old_check: i64 = words[index]
        kept_depth: i64 = min(depth, _MAX_DEPTH)
        if old_check ^ old == key and old & _WRITTEN and (old >> _DEPTH_SHIFT) & 0xFF > kept_depth:
            return
        data: i64 = (_WRITTEN | flag << _FLAG_SHIFT | kept_depth << _DEPTH_SHIFT
                     | (score + _SCORE_OFFSET) << _SCORE_SHIFT | move)
        words[index] = key ^ data
        words[index + 1] = data

    def clear(self) -> None:
        """Forgets every entry (a new game); only while no process searches. A slice of zeros at a
        time: one the size of the table would cost as much memory again (4 GB at the largest Hash)."""
        zeros = memoryview(bytes(_CLEAR_WORDS * WORD_BYTES)).cast("q")
        words = self.words
        end = len(words)
        for start in range(HEADER_WORDS, end, _CLEAR_WORDS):
            size = min(_CLEAR_WORDS, end - start)
            words[start:start + size] = zeros[:size]

    @property
    def stopped(self) -> bool:
        return self.words[_STOP_WORD] != 0

    @stopped.setter
    def stopped(self, value: bool) -> None:
        self.words[_STOP_WORD] = 1 if value else 0

    def publish_nodes(self, worker: int, nodes: int) -> None:
        """Says how many nodes process *worker* (0 the main search) has searched so far."""
        self.words[1 + worker] = nodes

    def nodes(self, worker: int) -> int:
        return int(self.words[1 + worker])

    def release(self) -> None:
        """Lets go of the buffer, so its shared memory can be closed."""
        self.words.release()
