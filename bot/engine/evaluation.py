"""Static evaluation of Knightmate positions; its numbers come from :mod:`bot.engine.weights`.

The score is split the usual way: material plus piece-square terms, which the search's
:class:`~bot.engine.position.Position` keeps up to date move by move, and positional terms that look at the whole board
(:func:`evaluate`): the bishop pair, mobility, the safety of each royal knight, threats on
pieces, and the pawn structure with how freely passed pawns can run. Middlegame and endgame
halves are blended by the game phase.

Scores are centipawns. ``Terms`` (the incremental part) are from White's view; :func:`evaluate`
returns the score from the side to move's view, which is what negamax wants.

This module must never change a position. :func:`evaluate` reads the search's
:class:`~bot.engine.position.Position`, the concrete class, so that in the compiled build every
field read is a native one (a board is scored through ``Position.from_board``).
"""

from __future__ import annotations

from typing import Final

import chess
from librt.vecs import vec
from mypy_extensions import i64

import variant
from bot.engine.constants import (
    BB_FILES,
    BB_KING_ATTACKS,
    BB_KNIGHT_ATTACKS,
    BB_PAWN_ATTACKS,
    BB_SQUARES,
    BLACK,
    WHITE,
    Bitboard,
    diagonal_attacks,
    popcount,
    straight_attacks,
    top_square,
)
from bot.engine.position import BISHOP, COMMONER, ROOK, Position
from bot.engine.weights import (
    BISHOP_CHECK_PENALTY,
    BISHOP_MOBILITY,
    BISHOP_PAIR,
    COMMONER_CHECK_PENALTY,
    COMMONER_MOBILITY,
    DOUBLED_PAWN,
    EG,
    ESCAPE_SQUARE_BONUS,
    ESCAPE_SQUARE_BONUS_EG,
    HANGING,
    ISOLATED_PAWN,
    MG,
    PASSED_COMMONER_DISTANCE,
    PASSED_FREE_PATH,
    PASSED_PAWN_EG,
    PASSED_PAWN_MG,
    PASSED_ROYAL_DISTANCE,
    PHASE_TOTAL,
    PHASE_WEIGHTS,
    QUEEN_CHECK_PENALTY,
    QUEEN_MOBILITY,
    QUEEN_NEAR_PENALTY,
    ROOK_CHECK_PENALTY,
    ROOK_HALF_OPEN_FILE,
    ROOK_MOBILITY,
    ROOK_OPEN_FILE,
    ROYAL_ATTACK_UNITS,
    ROYAL_DANGER,
    SAFE_CHECK_BONUS,
    TEMPO,
    THREAT_BY_MINOR,
    THREAT_BY_PAWN,
    THREAT_BY_ROOK,
    piece_square_index,
)

# The piece types come from the compiled position, not from variant: a name imported from a
# module mypyc does not compile is looked up by name at every use (10% of the evaluation's time).

# ---------------------------------------------------------------------------------------------
# The numbers live in bot/engine/data/weights.json and are read by bot.engine.weights (data only;
# bench/training/tune_evaluation.py writes that file). The first estimates took material from the rules
# (seed-knightmate.txt: Q 10, R 4.5, B 3.25, M 3, P 1, bishop pair +0.5) and the rest from chess
# practice, adapted where the royal knight changes the picture; every number except the phase
# weights and the "typical" mobility counts was then refit to game results (Texel's method,
# bench/README.md). Why each term exists:
#
# - Material and piece-square tables (PIECE_VALUES, MG, EG): kept incrementally by the Position.
#   The royal knight's middlegame table wants it at home yet off the rim (a knight in the corner
#   has two flight squares); leaving home costs much, after ladder games where it took pawns up
#   the board and was mated there by rooks and commoners. In the endgame it joins the game.
# - The bishop pair (BISHOP_PAIR; the rules document says +0.5).
# - Royal knight safety. A royal knight cannot hide behind pawns: queens and commoners reach it
#   through the knight-move holes a pawn shield leaves, so it is measured by its safe flight
#   squares (ESCAPE_SQUARE_BONUS, by count, the last entry for 7 or 8), the squares from which
#   each enemy piece type can check it next move (*_CHECK_PENALTY, middlegame; rooks and bishops
#   count too, after ladder losses to rook-and-commoner mates with the queens gone), those of
#   them the defender does not attack (SAFE_CHECK_BONUS: a check from a defended square usually
#   loses the checker), and the enemy queen's Chebyshev distance (QUEEN_NEAR_PENALTY). Those are
#   linear, and mating attacks are not: one attacker near the royal knight is rarely dangerous,
#   three usually are. So the attacks on its zone (the squares it jumps to) are counted in attack
#   units (ROYAL_ATTACK_UNITS per zone square a piece attacks, by piece type, from practice, not
#   fitted) and the attacker gains ROYAL_DANGER x units^2 (middlegame). The flight squares count
#   in the endgame too (ESCAPE_SQUARE_BONUS_EG): there the game is decided by mating nets of a
#   rook or queen with commoners around a royal knight, which needs its flight squares most.
# - Mobility: a commoner's steps (COMMONER_MOBILITY), and per slider (middlegame, endgame,
#   typical squares) centipawns per square attacked that is not an own piece, counted from the
#   typical number (chess practice, not fitted); rooks on open and half-open files.
# - Threats, (middlegame, endgame) per enemy piece: the search sees only the exchanges it plays
#   out, and quiescence stands pat where a piece of the side to move is attacked by a lesser one
#   (THREAT_BY_PAWN, _MINOR, _ROOK) or not defended at all (HANGING).
# - TEMPO: the side to move is better off by about this much, which also damps the odd-even
#   swing of iterative deepening.
# - Pawn structure: passed pawns by rank from their own side (they matter more here: a commoner
#   promotion and the royal knight's poor blockading make them harder to stop), a free path to
#   promotion (empty and unwatched), the royal knights' knight-move distance to the square in
#   front of a passed pawn times how far it has come (PASSED_ROYAL_DISTANCE: enemy, own), the
#   same for each side's nearest commoner by Chebyshev distance (PASSED_COMMONER_DISTANCE: enemy,
#   own; a commoner steps like a chess king, and here it, not the royal knight, is the piece that
#   escorts or stops a pawn as a king does in chess), doubled and isolated pawns.
# ---------------------------------------------------------------------------------------------

#: Quiescence trusts material and piece-square terms alone when they beat beta by this much: the
#: other terms rarely add up to more (royal knight safety is the largest, at most about -300,
#: then mobility; the attack units' square adds more than 100 only in rare positions, a few
#: pieces all on the zone). A search bound, not a fitted number.
LAZY_MARGIN: Final = 400

Terms = tuple[int, int, int]  # (middlegame, endgame, phase): the incrementally kept part


def base_terms(board: chess.Board) -> Terms:
    """Material and piece-square sums of a whole board, and its phase."""
    mg = eg = phase = 0
    for color in chess.COLORS:
        mine = board.occupied_co[color]
        for piece_type in chess.PIECE_TYPES:
            for square in chess.scan_forward(board.pieces_mask(piece_type, color) & mine):
                mg += MG[piece_square_index(color, piece_type, square)]
                eg += EG[piece_square_index(color, piece_type, square)]
                phase += PHASE_WEIGHTS[piece_type]
    return mg, eg, phase


def material_score(turn: chess.Color, terms: Terms) -> int:
    """Only the incremental part of :func:`evaluate` (material and piece-square terms), for the
    side to move: a cheap bound when the full evaluation cannot change a cutoff."""
    mg, eg, phase = terms
    return _blend(mg, eg, phase, turn)


PawnTerms = tuple[int, int, Bitboard, Bitboard, Bitboard]
"""What the pawns alone decide: (middlegame, endgame) pawn-structure terms from White's view, the
passed pawns of both sides, and the squares White's and Black's pawns attack."""

#: Pawn structures a :class:`PawnCache` remembers (a power of two; 56 bytes each).
PAWN_CACHE_SLOTS: Final = 1 << 14


class PawnCache:
    """The :data:`PawnTerms` of pawn structures met, one a slot chosen by a hash of both sides'
    pawns (the newest stays): native arrays, where a dict cost a tuple key and boxed terms a
    lookup. Pawn structures repeat across a search's tree and from one search to the next."""

    def __init__(self) -> None:
        # No structure has pawns on every square, so -1 marks an empty slot.
        self.white_pawns = vec[i64]([-1] * PAWN_CACHE_SLOTS)
        self.black_pawns = vec[i64]([-1] * PAWN_CACHE_SLOTS)
        self.mg = vec[i64]([0] * PAWN_CACHE_SLOTS)
        self.eg = vec[i64]([0] * PAWN_CACHE_SLOTS)
        self.passed = vec[i64]([0] * PAWN_CACHE_SLOTS)
        self.white_attacks = vec[i64]([0] * PAWN_CACHE_SLOTS)
        self.black_attacks = vec[i64]([0] * PAWN_CACHE_SLOTS)

    def slot(self, white_pawns: Bitboard, black_pawns: Bitboard) -> i64:
        """The slot holding the terms of these pawns, filled by :func:`_pawn_terms` if it held
        another structure."""
        mixed = white_pawns ^ black_pawns << 1  # pawns stand on bits 8 to 55: no sign is reached
        mixed ^= mixed >> 28
        mixed ^= mixed >> 14
        slot = mixed & (PAWN_CACHE_SLOTS - 1)
        if self.white_pawns[slot] != white_pawns or self.black_pawns[slot] != black_pawns:
            mg, eg, passed, white_attacks, black_attacks = _pawn_terms(white_pawns, black_pawns)
            self.white_pawns[slot] = white_pawns
            self.black_pawns[slot] = black_pawns
            self.mg[slot] = mg
            self.eg[slot] = eg
            self.passed[slot] = passed
            self.white_attacks[slot] = white_attacks
            self.black_attacks[slot] = black_attacks
        return slot


def evaluate(position: Position, pawn_cache: PawnCache) -> int:
    """The score of *position* for the side to move.

    *pawn_cache* keeps the terms of pawn structures met: they repeat across the tree, so it
    saves most of that work. A position that keeps an NNUE accumulator is scored by the
    network instead (the lone-piece draw rule still comes first: no net learns it exactly).
    """
    if position.phase <= LONE_PIECE_PHASE and lone_piece(position.occupied, position.kings, position.pawns,
                                                         position.queens):
        return 0
    accumulator = position.accumulator
    if accumulator is not None:
        return accumulator.evaluate(position.turn)
    white, black = position.white, position.black
    all_pawns = position.pawns
    slot = pawn_cache.slot(all_pawns & white, all_pawns & black)
    white_pawn_attacks = pawn_cache.white_attacks[slot]
    black_pawn_attacks = pawn_cache.black_attacks[slot]
    passed = pawn_cache.passed[slot]
    white_mg, white_eg, white_attacks, white_minors, white_rooks, white_checks = _side_terms(
        position, white, black, white_pawn_attacks)
    black_mg, black_eg, black_attacks, black_minors, black_rooks, black_checks = _side_terms(
        position, black, white, black_pawn_attacks)
    white_threat_mg, white_threat_eg = _threat_terms(
        position, white, black, white_pawn_attacks, white_minors, white_rooks, white_checks, white_attacks,
        black_attacks, passed & white)
    black_threat_mg, black_threat_eg = _threat_terms(
        position, black, white, black_pawn_attacks, black_minors, black_rooks, black_checks, black_attacks,
        white_attacks, passed & black)
    mg = position.mg + pawn_cache.mg[slot] + white_mg - black_mg + white_threat_mg - black_threat_mg
    eg = position.eg + pawn_cache.eg[slot] + white_eg - black_eg + white_threat_eg - black_threat_eg
    return TEMPO + _blend(mg, eg, position.phase, position.turn)


#: The largest phase a lone rook, bishop or commoner leaves (a rook's weight).
LONE_PIECE_PHASE: Final = max(PHASE_WEIGHTS[chess.ROOK], PHASE_WEIGHTS[chess.BISHOP], PHASE_WEIGHTS[chess.KNIGHT])


def lone_piece(occupied: Bitboard, royals: Bitboard, pawns: Bitboard, queens: Bitboard) -> bool:
    """Whether the board holds the two royal knights and one rook, bishop or commoner, nothing
    else: that piece cannot force mate (the rules' strategy notes), so the position is scored as
    the draw it is with best play, not as a piece up. A mate can still happen (a commoner or rook
    against a royal knight in a corner): the search finds it if it is there."""
    others = occupied & ~royals
    return popcount(royals) == 2 and popcount(others) == 1 and not others & (pawns | queens)


def _blend(mg: i64, eg: i64, phase: i64, turn: chess.Color) -> int:
    """The middlegame and endgame scores (White's view) mixed by phase, for the side to move.
    The sign is turned before dividing, so a position and its colour mirror score the same.
    (Native integers: mypyc multiplies a negative ``int`` through Python objects.)"""
    phase = min(phase, PHASE_TOTAL)
    blended = mg * phase + eg * (PHASE_TOTAL - phase)
    return (blended if turn == WHITE else -blended) // PHASE_TOTAL


def _side_terms(position: Position, own: Bitboard, enemy: Bitboard,
                pawn_attacks: Bitboard) -> tuple[int, int, Bitboard, Bitboard, Bitboard, Bitboard]:
    """One side's terms that need only its own pieces' attacks, as (middlegame, endgame): bishop
    pair, piece mobility, rooks on open files, the checks its pieces can give the enemy royal
    knight next move and their attacks on its zone; and for :func:`_threat_terms`, every square
    this side attacks (defends, if it holds an own piece), those its commoners and bishops
    attack, those its rooks attack, and those from which it can check next move.

    One loop visits the commoners, bishops, rooks and queens: each piece's attacks are computed
    once and serve its mobility, its checks and the maps. Bits are scanned inline: this runs at
    most nodes of the tree, and generator calls would cost a third of its time.
    """
    occupied = position.occupied
    types = position.types
    all_pawns = position.pawns
    not_own = ~own
    mg = eg = 0
    royals = position.kings
    royal = royals & own
    attacks = pawn_attacks | (BB_KNIGHT_ATTACKS[top_square(royal)] if royal else 0)
    minor_attacks: Bitboard = 0
    rook_attacks: Bitboard = 0
    checks: Bitboard = 0
    if popcount(position.bishops & own) >= 2:
        mg += BISHOP_PAIR
        eg += BISHOP_PAIR

    # Where checks come from (the lines and steps onto the enemy royal knight) and the zone its
    # attack units count, if this side has a queen, rook or commoner to make them dangerous
    # (bishops alone do not).
    enemy_royal = royals & enemy
    threatened = bool(enemy_royal and (position.queens | position.rooks | position.knights) & own)
    files_and_ranks: Bitboard = 0
    diagonals: Bitboard = 0
    steps: Bitboard = 0
    zone: Bitboard = 0
    units: i64 = 0
    target = 0
    if threatened:
        target = top_square(enemy_royal)
        files_and_ranks = straight_attacks(target, occupied) & not_own
        diagonals = diagonal_attacks(target, occupied) & not_own
        steps = BB_KING_ATTACKS[target] & not_own
        zone = BB_KNIGHT_ATTACKS[target]

    pieces = (position.knights | position.bishops | position.rooks | position.queens) & own
    while pieces:
        square = top_square(pieces)
        pieces ^= BB_SQUARES[square]
        piece_type = types[square]
        # What differs by piece type: its attacks, its weights, where it checks from, its attack map.
        if piece_type == COMMONER:
            seen = BB_KING_ATTACKS[square]
            mobility, check_penalty, check_from = COMMONER_MOBILITY, COMMONER_CHECK_PENALTY, steps
            minor_attacks |= seen
        elif piece_type == BISHOP:
            seen = diagonal_attacks(square, occupied)
            mobility, check_penalty, check_from = BISHOP_MOBILITY, BISHOP_CHECK_PENALTY, diagonals
            minor_attacks |= seen
        elif piece_type == ROOK:
            seen = straight_attacks(square, occupied)
            mobility, check_penalty, check_from = ROOK_MOBILITY, ROOK_CHECK_PENALTY, files_and_ranks
            rook_attacks |= seen
            file = BB_FILES[square & 7]
            if not file & all_pawns & own:
                bonus = ROOK_OPEN_FILE if not file & all_pawns else ROOK_HALF_OPEN_FILE
                mg += bonus[0]
                eg += bonus[1]
        else:
            seen = diagonal_attacks(square, occupied) | straight_attacks(square, occupied)
            mobility, check_penalty, check_from = QUEEN_MOBILITY, QUEEN_CHECK_PENALTY, files_and_ranks | diagonals
            attacks |= seen
            if threatened:
                mg += QUEEN_NEAR_PENALTY[_DISTANCE[square << 6 | target]]
        reach = seen & not_own
        count = popcount(reach)
        mg += mobility.middlegame * (count - mobility.typical)
        eg += mobility.endgame * (count - mobility.typical)
        if threatened:
            mg += check_penalty * popcount(reach & check_from)
            checks |= reach & check_from
            units += _ATTACK_UNITS[piece_type] * popcount(seen & zone)
    if units:
        mg += ROYAL_DANGER * units * units
    return mg, eg, attacks | minor_attacks | rook_attacks, minor_attacks, rook_attacks, checks


def _threat_terms(position: Position, own: Bitboard, enemy: Bitboard, pawn_attacks: Bitboard,
                  minor_attacks: Bitboard, rook_attacks: Bitboard, checks: Bitboard, attacks: Bitboard,
                  enemy_attacks: Bitboard, passed: Bitboard) -> tuple[int, int]:
    """One side's terms that weigh its attacks against the enemy's, as (middlegame, endgame):
    the safe flight squares of its royal knight, its safe checks, its threats on enemy pieces,
    and how free its passed pawns are to run and how near the royal knights and commoners are
    to stop or escort them (*passed*: its passed pawns)."""
    mg = eg = 0
    royals = position.kings
    royal = royals & own
    if royal and (position.queens | position.rooks) & enemy:
        flight = min(popcount(BB_KNIGHT_ATTACKS[top_square(royal)] & ~own & ~enemy_attacks), 7)
        mg += ESCAPE_SQUARE_BONUS[flight]
        eg += ESCAPE_SQUARE_BONUS_EG[flight]
    if checks:
        mg += SAFE_CHECK_BONUS * popcount(checks & ~enemy_attacks)

    # Most of these sets are empty at most nodes: count only those that are not.
    pieces = enemy & ~position.pawns & ~royals
    hit = attacks & pieces
    if hit:
        by_pawns = pawn_attacks & hit
        if by_pawns:
            count = popcount(by_pawns)
            mg += THREAT_BY_PAWN[0] * count
            eg += THREAT_BY_PAWN[1] * count
        heavy = minor_attacks & (position.rooks | position.queens) & hit
        if heavy:
            count = popcount(heavy)
            mg += THREAT_BY_MINOR[0] * count
            eg += THREAT_BY_MINOR[1] * count
        queens = rook_attacks & position.queens & hit
        if queens:
            count = popcount(queens)
            mg += THREAT_BY_ROOK[0] * count
            eg += THREAT_BY_ROOK[1] * count
        hanging = hit & ~enemy_attacks
        if hanging:
            count = popcount(hanging)
            mg += HANGING[0] * count
            eg += HANGING[1] * count

    if passed:
        white = bool(own & position.white)
        enemy_royal = royals & enemy
        own_commoners = position.knights & own
        enemy_commoners = position.knights & enemy
        occupied = position.occupied
        while passed:
            square = top_square(passed)
            passed ^= BB_SQUARES[square]
            rank: i64 = (square >> 3) if white else 7 - (square >> 3)
            path = _FRONT_SPAN[white << 6 | square]
            if not path & (occupied | enemy_attacks):
                eg += PASSED_FREE_PATH[rank]
            if rank > 2:
                block = square + 8 if white else square - 8
                advance = rank - 2
                if enemy_royal:
                    eg += PASSED_ROYAL_DISTANCE[0] * advance * _KNIGHT_DISTANCE[top_square(enemy_royal) << 6 | block]
                if royal:
                    eg += PASSED_ROYAL_DISTANCE[1] * advance * _KNIGHT_DISTANCE[top_square(royal) << 6 | block]
                if enemy_commoners:
                    eg += PASSED_COMMONER_DISTANCE[0] * advance * _nearest_distance(enemy_commoners, block)
                if own_commoners:
                    eg += PASSED_COMMONER_DISTANCE[1] * advance * _nearest_distance(own_commoners, block)
    return mg, eg


def _nearest_distance(pieces: Bitboard, square: i64) -> i64:
    """The Chebyshev distance from *square* to the nearest of *pieces* (not empty)."""
    nearest: i64 = 7
    while pieces:
        piece = top_square(pieces)
        pieces ^= BB_SQUARES[piece]
        nearest = min(nearest, _DISTANCE[piece << 6 | square])
    return nearest


def _pawn_terms(white_pawns: Bitboard, black_pawns: Bitboard) -> PawnTerms:
    """Passed, doubled and isolated pawns (White positive), the passed pawns, and each side's pawn attacks."""
    mg = eg = 0
    passed: Bitboard = 0
    white_attacks: Bitboard = 0
    black_attacks: Bitboard = 0
    for color, own, enemy in ((WHITE, white_pawns, black_pawns), (BLACK, black_pawns, white_pawns)):
        sign: i64 = 1 if color == WHITE else -1
        pawns = own
        while pawns:
            square = top_square(pawns)
            pawns ^= BB_SQUARES[square]
            if color == WHITE:
                white_attacks |= BB_PAWN_ATTACKS[64 | square]
            else:
                black_attacks |= BB_PAWN_ATTACKS[square]
            file = square & 7
            relative_rank = (square >> 3) if color == WHITE else 7 - (square >> 3)
            if not enemy & _PASSED_SPAN[color << 6 | square]:
                passed |= BB_SQUARES[square]
                mg += sign * PASSED_PAWN_MG[relative_rank]
                eg += sign * PASSED_PAWN_EG[relative_rank]
            if not own & _ADJACENT_FILES[file]:
                mg += sign * ISOLATED_PAWN
                eg += sign * ISOLATED_PAWN
        for file_mask in BB_FILES:
            extra = popcount(own & file_mask) - 1
            if extra > 0:
                mg += sign * DOUBLED_PAWN * extra
                eg += sign * DOUBLED_PAWN * extra
    return mg, eg, passed, white_attacks, black_attacks


# Geometry tables in native vectors; two-square tables are indexed ``a << 6 | b``, per-colour ones
# ``colour << 6 | square``.
_DISTANCE: Final = vec[i64]([chess.square_distance(a, b) for a in chess.SQUARES for b in chess.SQUARES])

#: :data:`ROYAL_ATTACK_UNITS` in a native vector, by piece type.
_ATTACK_UNITS: Final = vec[i64](ROYAL_ATTACK_UNITS)

_ADJACENT_FILES: Final = vec[i64]([
    (BB_FILES[file - 1] if file > 0 else 0) | (BB_FILES[file + 1] if file < 7 else 0) for file in range(8)
])


def _passed_span(color: chess.Color, square: chess.Square) -> Bitboard:
    """Squares in front of the pawn on its own and the adjacent files: enemy pawns there stop it."""
    file, rank = chess.square_file(square), chess.square_rank(square)
    ranks = range(rank + 1, 8) if color == chess.WHITE else range(0, rank)
    span = 0
    for r in ranks:
        for f in (file - 1, file, file + 1):
            if 0 <= f < 8:
                span |= BB_SQUARES[chess.square(f, r)]
    return span


_PASSED_SPAN: Final = vec[i64]([_passed_span(color, square) for color in (chess.BLACK, chess.WHITE)
                                 for square in chess.SQUARES])

def _front_span(color: chess.Color, square: chess.Square) -> Bitboard:
    """The squares in front of a pawn on its own file, up to its promotion square."""
    file, rank = chess.square_file(square), chess.square_rank(square)
    ranks = range(rank + 1, 8) if color == chess.WHITE else range(0, rank)
    span: Bitboard = 0
    for r in ranks:
        span |= BB_SQUARES[chess.square(file, r)]
    return span


_FRONT_SPAN: Final = vec[i64]([_front_span(color, square) for color in (chess.BLACK, chess.WHITE)
                                for square in chess.SQUARES])


def _knight_distances(start: chess.Square) -> list[int]:
    """Knight moves from *start* to every square on an empty board (breadth first)."""
    distance = [-1] * 64
    distance[start] = 0
    frontier = [start]
    while frontier:
        following = []
        for square in frontier:
            for target in chess.scan_forward(chess.BB_KNIGHT_ATTACKS[square]):
                if distance[target] < 0:
                    distance[target] = distance[square] + 1
                    following.append(target)
        frontier = following
    return distance


_KNIGHT_DISTANCE: Final = vec[i64]([distance for square in chess.SQUARES for distance in _knight_distances(square)])

assert variant.COMMONER == COMMONER == chess.KNIGHT and variant.ROYAL_KNIGHT == chess.KING  # the tables' indexing
