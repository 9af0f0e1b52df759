"""Playing strength below the engine's best: the named levels 1-8, and how an ``UCI_Elo`` plays.

The table :data:`LEVELS` is the one place for the levels: the page, the CLI and the bench read it.
A level is an ``UCI_Elo`` on Fairy-Stockfish's scale (the ladder's), so the same
``UCI_LimitStrength``/``UCI_Elo`` options weaken this engine and Fairy-Stockfish alike.

How a weaker player is imitated (:func:`strength_for_elo`, :func:`choose_line`): a weak player sees
less far, not worse at what it sees. So a level

* searches to a small depth and node count (it misses deeper tactics, and moves quickly);
* searches several lines (MultiPV) and picks among them with random noise, from a pawn and a
  half at the weakest level to none at the top (it plays different, slightly worse moves, as
  people do: the weakest gives a pawn away now and then, never a piece);
* sometimes fails to see what a line wins (it misses a capture or a mate now and then);
* but never picks a line that gives away more than :attr:`Strength.noise_cp` against what it has
  now (the static evaluation) or against the best line: everything the search sees, even at depth
  1, is safe from the noise, so it never hangs its queen in one. Every level searches at least
  :data:`MIN_DEPTH` plies (its move, then the replies that capture, to quiescence).

Elo in between the anchors of :data:`_ANCHORS` is interpolated, so any ``UCI_Elo`` in
[:data:`MIN_ELO`, :data:`MAX_ELO`] plays. Each level's ``UCI_Elo`` is what its match against
Fairy-Stockfish measured, within the match's error (bench/RESULTS.md, "Levels calibration"), and each
level beats the one below it in self-play. So the scale starts where a player that
never gives a piece away in one can be measured: Fairy-Stockfish's weakest levels give material
away, and no level here does. The node limits of levels 1-7 end their searches long before a
10+0.1 clock would on this engine's compiled build, so they play the same on a slow machine and
a fast one; level 8 is the full engine with its longest searches capped.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

from bot.engine.result import SearchResult


class Level(NamedTuple):
    """A named level: what the page and the CLI offer."""

    number: int
    elo: int
    label: str


#: The levels 1-8, weakest first: level -> ``UCI_Elo`` and a label for people. Each level is one
#: anchor of :data:`_ANCHORS`, so a level plays exactly as its matches measured it.
LEVELS: Final[tuple[Level, ...]] = (
    Level(1, 1000, "beginner"),
    Level(2, 1250, "novice"),
    Level(3, 1550, "casual player"),
    Level(4, 1750, "club player"),
    Level(5, 1950, "strong club player"),
    Level(6, 2100, "expert"),
    Level(7, 2400, "master"),
    Level(8, 2600, "near full strength"),
)

#: ``UCI_Elo``'s bounds (the option's min and max) and its default.
MIN_ELO: Final = LEVELS[0].elo
MAX_ELO: Final = LEVELS[-1].elo
DEFAULT_ELO: Final = LEVELS[3].elo
#: Plies every level searches at least: its move, then the reply's captures to quiescence, so a
#: move that loses material at once is always seen (a quiet reply's threat, a fork, is not).
MIN_DEPTH: Final = 1


@dataclass(frozen=True)
class Strength:
    """How one ``UCI_Elo`` searches and chooses (see the module docstring)."""

    elo: int
    #: Search limits: plies and nodes (and the clock, whichever ends first).
    depth: int
    nodes: int
    #: Lines searched to choose from.
    lines: int
    #: The noise added to each line's score, uniform in [0, noise_cp); also the most a chosen
    #: line may give away against the best line or the present evaluation.
    noise_cp: int
    #: The chance of not seeing what a line wins beyond the present evaluation.
    blind_chance: float


class _Anchor(NamedTuple):
    elo: int
    depth: float
    nodes: float
    lines: int
    noise_cp: float
    blind_chance: float


#: Strength at each level's Elo; between two anchors each number is interpolated (depth and nodes
#: geometrically, as search effort grows with them). The node and depth limits of levels 1-7 end
#: their searches before the clock does at 10+0.1 (level 7: 596 of 614 moves in self-play on this
#: project's machine, 6611d67), so those levels play the same whatever the clock and the machine's
#: load: their calibration holds on any machine. Level 8 is the full engine, one line and no noise,
#: with a node limit that cuts short only its longest thoughts: at 10+0.1, where the compiled engine
#: searches 51k nodes a move on average (more early in a game), its clock ends nine searches in ten.
_ANCHORS: Final[tuple[_Anchor, ...]] = (
    _Anchor(LEVELS[0].elo, 1, 300, 5, 150, 0.9),
    _Anchor(LEVELS[1].elo, 1, 600, 5, 80, 0.7),
    _Anchor(LEVELS[2].elo, 2, 2_000, 5, 60, 0.45),
    _Anchor(LEVELS[3].elo, 3, 5_000, 4, 45, 0.25),
    _Anchor(LEVELS[4].elo, 4, 12_000, 4, 30, 0.1),
    _Anchor(LEVELS[5].elo, 6, 30_000, 2, 10, 0.0),
    _Anchor(LEVELS[6].elo, 10, 40_000, 1, 0, 0.0),
    _Anchor(LEVELS[7].elo, 100, 100_000, 1, 0, 0.0),
)


def strength_for_elo(elo: int) -> Strength:
    """How an engine of *elo* searches and chooses; raises :class:`ValueError` outside
    [:data:`MIN_ELO`, :data:`MAX_ELO`]."""
    if not MIN_ELO <= elo <= MAX_ELO:
        raise ValueError(f"UCI_Elo must be between {MIN_ELO} and {MAX_ELO}, got {elo}")
    upper_index = next(index for index, anchor in enumerate(_ANCHORS) if anchor.elo >= elo)
    upper = _ANCHORS[upper_index]
    lower = _ANCHORS[max(0, upper_index - 1)]
    share = 0.0 if upper.elo == lower.elo else (elo - lower.elo) / (upper.elo - lower.elo)

    def linear(low: float, high: float) -> float:
        return low + (high - low) * share

    def geometric(low: float, high: float) -> float:
        return float(low * (high / low) ** share)

    return Strength(elo=elo, depth=max(MIN_DEPTH, round(geometric(lower.depth, upper.depth))),
                    nodes=round(geometric(lower.nodes, upper.nodes)),
                    lines=lower.lines if share < 0.5 else upper.lines,
                    noise_cp=round(linear(lower.noise_cp, upper.noise_cp)),
                    blind_chance=linear(lower.blind_chance, upper.blind_chance))


#: The UCI options of the built-in engine that a bot's ``engine.options`` may set, as Stockfish spells them.
LIMIT_STRENGTH_OPTION: Final = "UCI_LimitStrength"
ELO_OPTION: Final = "UCI_Elo"


def elo_from_options(options: Mapping[str, bool | int | str]) -> int | None:
    """The ``UCI_Elo`` that UCI *options* (as ``engine.options`` gives them) ask of the built-in
    engine, or None for full strength: ``UCI_Elo`` counts only with ``UCI_LimitStrength`` true, as
    in Stockfish. Raises :class:`ValueError` for another option, or a value of the wrong kind or
    out of range."""
    by_name = {name.lower(): value for name, value in options.items()}
    known = (LIMIT_STRENGTH_OPTION.lower(), ELO_OPTION.lower())
    unknown = sorted(name for name in options if name.lower() not in known)
    if unknown:
        raise ValueError(f"the built-in engine has no option {unknown[0]} (only {LIMIT_STRENGTH_OPTION} and "
                         f"{ELO_OPTION}); set engine.command for another engine's options")
    limit = by_name.get(LIMIT_STRENGTH_OPTION.lower(), False)
    elo = by_name.get(ELO_OPTION.lower(), DEFAULT_ELO)
    if not isinstance(limit, bool):
        raise ValueError(f"{LIMIT_STRENGTH_OPTION} must be true or false, got {limit!r}")
    if isinstance(elo, bool) or not isinstance(elo, int) or not MIN_ELO <= elo <= MAX_ELO:
        raise ValueError(f"{ELO_OPTION} must be a whole number from {MIN_ELO} to {MAX_ELO}, got {elo!r}")
    return elo if limit else None


def level(number: int) -> Level:
    """Level *number* of :data:`LEVELS`; raises :class:`ValueError` for another number."""
    for entry in LEVELS:
        if entry.number == number:
            return entry
    raise ValueError(f"level must be between {LEVELS[0].number} and {LEVELS[-1].number}, got {number}")


#: What a mate is worth in :func:`line_value`, less :data:`_MATE_MOVE_CP` a move: beyond any
#: material, and each move nearer far beyond the noise (a mate is never put off, nor hastened).
_MATE_CP: Final = 100_000
_MATE_MOVE_CP: Final = 1_000


def line_value(line: SearchResult) -> int:
    """A line's score in centipawns from the mover's side, mates beyond any material."""
    if line.mate is not None:
        distance = _MATE_MOVE_CP * abs(line.mate)
        return _MATE_CP - distance if line.mate > 0 else -_MATE_CP + distance
    return line.score_cp or 0


def choose_line(lines: Sequence[SearchResult], present_cp: int, strength: Strength, rng: random.Random) -> int:
    """The index of the line a player of *strength* plays among *lines* (best first), whose
    position is worth *present_cp* now (static evaluation, the mover's side).

    A line is a candidate when it gives away at most ``noise_cp`` against the best line or against
    the present evaluation, whichever is lower: a line that loses material the search sees is never
    one. Each candidate is valued at its score plus noise, less what it wins beyond the present
    evaluation when the player is blind to that (``blind_chance``, drawn per line).
    """
    best = line_value(lines[0])
    floor = min(best, present_cp) - strength.noise_cp
    chosen, chosen_value = 0, float("-inf")
    for index, line in enumerate(lines):
        score = line_value(line)
        if score < floor and index > 0:
            continue
        gain = max(0, score - present_cp)
        seen = score - gain if rng.random() < strength.blind_chance else score
        value = seen + rng.random() * strength.noise_cp
        if value > chosen_value:
            chosen, chosen_value = index, value
    return chosen
