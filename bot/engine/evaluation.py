"""Static evaluation of Knightmate positions, with every tuned number kept in this module.

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

from typing import TYPE_CHECKING, Final

import chess

from bot.engine.constants import (
    BB_FILES,
    BB_KING_ATTACKS,
    BB_KNIGHT_ATTACKS,
    BB_PAWN_ATTACKS,
    BB_SQUARES,
    WHITE,
    Bitboard,
    diagonal_attacks,
    popcount,
    straight_attacks,
    top_square,
)
from variant import COMMONER, ROYAL_KNIGHT

if TYPE_CHECKING:  # position.py imports this module's tables; the evaluation only reads positions
    from bot.engine.position import Position


# ---------------------------------------------------------------------------------------------
# The numbers. The first estimates took material from the rules (seed-knightmate.txt: Q 10, R 4.5,
# B 3.25, M 3, P 1, bishop pair +0.5) and the rest from chess practice, adapted where the royal
# knight changes the picture (noted at each term). Every number below except the phase weights,
# the "typical" mobility counts and LAZY_MARGIN was then refit to game results by
# bench/tune_evaluation.py (Texel's method; 75k quiet positions from 965 Fairy-Stockfish self-play
# games, 2026-12-01), which writes them here; the refit beat the estimates in an A/B match
# (bench/README.md). The threat, safe-check and passed-path terms came on 2026-12-02 with a
# refit of every number on 382k quiet positions from 5,123 games. The terms' comments say why
# each term exists, not where its value came from.
# ---------------------------------------------------------------------------------------------

#: Material in centipawns, indexed by python-chess piece type (COMMONER is chess.KNIGHT).
PIECE_VALUES: Final[tuple[int, ...]] = (0, 83, 284, 329, 490, 1013, 0)
#: The bishop pair bonus (the rules document says +0.5).
BISHOP_PAIR: Final = 40

#: Game phase weight of each piece type (chess convention: minor 1, rook 2, queen 4); the
#: commoner counts as a minor. 24 = all pieces on the board = pure middlegame.
PHASE_WEIGHTS: Final[tuple[int, ...]] = (0, 0, 1, 1, 2, 4, 0)
PHASE_TOTAL: Final = 24

# Royal knight safety. A royal knight cannot hide behind pawns: queens and commoners reach it
# through the knight-move "holes" a pawn shield leaves, so it is measured by how many squares it
# can flee to and how many checks the enemy queen and commoners can give next move. Weights are
# middlegame values and fade out with the enemy queen gone (a lone commoner cannot mate).
# Rooks and bishops count too: in ladder games against Fairy-Stockfish many losses were mates by
# rooks and commoners after the queens had gone, when this term saw no danger at all. With rook
# and bishop checks (and the stricter royal table below) the engine scored +25 =15 -20 against
# itself without them (bench/README.md).
#: By safe flight squares (empty or enemy, not attacked), the last entry for 7 or 8.
ESCAPE_SQUARE_BONUS: Final[tuple[int, ...]] = (-32, -27, -19, -19, -10, 10, 8, 10)
QUEEN_CHECK_PENALTY: Final = 10  # per square from which the enemy queen can check next move
ROOK_CHECK_PENALTY: Final = 49  # per square from which an enemy rook can check next move
BISHOP_CHECK_PENALTY: Final = 15  # per square from which an enemy bishop can check next move
COMMONER_CHECK_PENALTY: Final = 36  # per square from which an enemy commoner can check next move
QUEEN_NEAR_PENALTY: Final[tuple[int, ...]] = (0, 40, 31, 13, 8, 12, -2, 2)  # by Chebyshev distance of the enemy queen
#: Per square from which a check can be given next move that the defender does not attack: the
#: checks above count every square, yet a check from a defended square usually loses the checker.
SAFE_CHECK_BONUS: Final = 35

# Commoner activity: a commoner is a short-range piece that needs room; count its steps.
COMMONER_MOBILITY: Final = 5  # per square it can step to (empty or enemy)

# Slider mobility: (middlegame, endgame) centipawns per square attacked that is not an own piece,
# counted from a typical number of squares (the typical counts are chess practice, not fitted).
BISHOP_MOBILITY: Final = (1, 4, 6)  # (mg, eg, typical squares)
ROOK_MOBILITY: Final = (3, -1, 6)
QUEEN_MOBILITY: Final = (-1, 17, 12)
ROOK_OPEN_FILE: Final = (32, 10)  # (mg, eg): no pawns on the file
ROOK_HALF_OPEN_FILE: Final = (25, 9)  # only enemy pawns on the file

# Threats, (mg, eg) per enemy piece: the search sees only the exchanges it plays out, and
# quiescence stands pat in positions where a piece of the side to move is attacked by a lesser
# one or not defended at all.
THREAT_BY_PAWN: Final = (34, 21)  # a piece (not a pawn) attacked by a pawn
THREAT_BY_MINOR: Final = (29, 18)  # a rook or queen attacked by a commoner or bishop
THREAT_BY_ROOK: Final = (22, 16)  # a queen attacked by a rook
HANGING: Final = (13, 16)  # a piece (not a pawn) attacked and not defended
#: The side to move is better off by about this much, which also damps the
#: odd-even swing of iterative deepening.
TEMPO: Final = 20

# Pawn structure (passed pawns matter more here because a commoner promotion
# option and the royal knight's poor blockading make them harder to stop).
PASSED_PAWN_MG: Final[tuple[int, ...]] = (0, 4, 1, 7, 16, 36, 68, 0)  # by rank from the pawn's own side
PASSED_PAWN_EG: Final[tuple[int, ...]] = (0, 13, 27, 31, 46, 87, 131, 0)
#: A passed pawn whose path to promotion is empty and not attacked by the enemy, by rank (endgame).
PASSED_FREE_PATH: Final[tuple[int, ...]] = (0, 0, 0, 7, 12, 24, 43, 0)
#: (enemy, own) royal knight: endgame centipawns per knight move between it and the square in
#: front of a passed pawn, times how far the pawn has come (its rank from its own side less 2).
#: A knight is a poor blockader, and a knight-move distance is not a king's distance.
PASSED_ROYAL_DISTANCE: Final = (11, -9)
DOUBLED_PAWN: Final = -8
ISOLATED_PAWN: Final = -18

#: Quiescence trusts material and piece-square terms alone when they beat beta by this much: the
#: other terms rarely add up to more (royal knight safety is the largest, at most about -300,
#: then mobility).
LAZY_MARGIN: Final = 400

# Piece-square tables from White's view, a1 first (row 1 is rank 1), in centipawns. Black uses
# the mirrored square. Each table pair is (middlegame, endgame).
_PAWN_MG = (
    0, 0, 0, 0, 0, 0, 0, 0,
    1, -14, -4, -17, -17, -4, -14, 1,
    4, 2, 4, 5, 5, 4, 2, 4,
    11, -11, 5, 29, 29, 5, -11, 11,
    6, 5, 8, 31, 31, 8, 5, 6,
    9, 10, 20, 34, 34, 20, 10, 9,
    45, 51, 54, 58, 58, 54, 51, 45,
    0, 0, 0, 0, 0, 0, 0, 0,
)
_PAWN_EG = (
    0, 0, 0, 0, 0, 0, 0, 0,
    19, 13, 16, 3, 3, 16, 13, 19,
    11, 7, 12, 22, 22, 12, 7, 11,
    11, 5, 2, 9, 9, 2, 5, 11,
    26, 18, 17, 17, 17, 17, 18, 26,
    46, 36, 42, 41, 41, 42, 36, 46,
    81, 76, 74, 79, 79, 74, 76, 81,
    0, 0, 0, 0, 0, 0, 0, 0,
)


def _centrality(square: chess.Square) -> int:
    """0 on the rim up to 3 in the four centre squares."""
    file, rank = chess.square_file(square), chess.square_rank(square)
    return min(file, 7 - file, rank, 7 - rank)


def _table(per_centre_step: int, rank_bonus: tuple[int, ...] = (0,) * 8) -> tuple[int, ...]:
    return tuple(per_centre_step * _centrality(sq) + rank_bonus[chess.square_rank(sq)] for sq in chess.SQUARES)


# Commoner (moves like a king): centralised it attacks up to 8 squares and supports mating nets.
_COMMONER_MG = _table(9, (-32, -16, -4, 12, 34, 20, 10, 0))
_COMMONER_EG = _table(18, (-21, -14, -4, 0, 16, 10, 7, 0))
_BISHOP_MG = _table(9, (2, 7, 2, 4, -6, 3, 2, -1))
_BISHOP_EG = _table(4, (-8, -8, -2, 3, -3, 0, 0, -1))
# Rooks: the seventh rank as in chess, no centre term.
_ROOK_MG = _table(3, (13, -6, -6, -4, 4, 11, 28, 12))
_ROOK_EG = _table(2, (0, -11, -13, -3, 9, 12, 25, 14))
_QUEEN_MG = _table(3, (5, 12, 2, -9, -10, -3, 0, 3))
_QUEEN_EG = _table(7, (2, -4, -1, 2, 2, 0, 1, 3))
# Royal knight: in the middlegame it wants to stay home yet off the rim (a knight in the corner
# has two flight squares); in the endgame it joins the game like any knight. The middlegame
# penalty for leaving home was doubled after ladder games where it took pawns up the board
# (Kxd4, Kxc6) and was mated there by rooks and commoners.
_ROYAL_MG = _table(-8, (-4, -8, -20, -43, -67, -89, -100, -100))
_ROYAL_EG = _table(9, (-18, -5, 15, 6, 1, 1, -2, 2))

_MG_TABLES = (None, _PAWN_MG, _COMMONER_MG, _BISHOP_MG, _ROOK_MG, _QUEEN_MG, _ROYAL_MG)
_EG_TABLES = (None, _PAWN_EG, _COMMONER_EG, _BISHOP_EG, _ROOK_EG, _QUEEN_EG, _ROYAL_EG)


def _signed_tables(tables: tuple[tuple[int, ...] | None, ...]) -> list[list[list[int]]]:
    """[colour][piece type][square] -> material + table value, positive for White."""
    out: list[list[list[int]]] = [[[0] * 64 for _ in range(7)] for _ in range(2)]
    for piece_type in range(1, 7):
        table = tables[piece_type]
        assert table is not None
        for square in chess.SQUARES:
            out[chess.WHITE][piece_type][square] = PIECE_VALUES[piece_type] + table[square]
            out[chess.BLACK][piece_type][square] = -(PIECE_VALUES[piece_type] + table[chess.square_mirror(square)])
    return out


#: [colour][piece type][square] -> signed (White positive) material + piece-square value.
MG: Final[list[list[list[int]]]] = _signed_tables(_MG_TABLES)
EG: Final[list[list[list[int]]]] = _signed_tables(_EG_TABLES)

Terms = tuple[int, int, int]  # (middlegame, endgame, phase): the incrementally kept part


def base_terms(board: chess.Board) -> Terms:
    """Material and piece-square sums of a whole board, and its phase."""
    mg = eg = phase = 0
    for color in chess.COLORS:
        mine = board.occupied_co[color]
        for piece_type in chess.PIECE_TYPES:
            mg_table, eg_table = MG[color][piece_type], EG[color][piece_type]
            for square in chess.scan_forward(board.pieces_mask(piece_type, color) & mine):
                mg += mg_table[square]
                eg += eg_table[square]
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

PawnCache = dict[tuple[Bitboard, Bitboard], PawnTerms]
"""(white pawns, black pawns) -> their :data:`PawnTerms`."""


def evaluate(position: Position, pawn_cache: PawnCache) -> int:
    """The score of *position* for the side to move.

    *pawn_cache* maps pawn structures to their terms; pawn structures repeat across the tree, so
    the cache saves most of that work.
    """
    white, black = position.white, position.black
    all_pawns = position.pawns
    pawn_key = (all_pawns & white, all_pawns & black)
    pawns = pawn_cache.get(pawn_key)
    if pawns is None:
        pawns = pawn_cache[pawn_key] = _pawn_terms(pawn_key[0], pawn_key[1])
    white_mg, white_eg, white_attacks, white_minors, white_rooks, white_checks = _side_terms(
        position, white, black, pawns[3])
    black_mg, black_eg, black_attacks, black_minors, black_rooks, black_checks = _side_terms(
        position, black, white, pawns[4])
    white_threat_mg, white_threat_eg = _threat_terms(
        position, white, black, pawns[3], white_minors, white_rooks, white_checks, white_attacks, black_attacks,
        pawns[2] & white)
    black_threat_mg, black_threat_eg = _threat_terms(
        position, black, white, pawns[4], black_minors, black_rooks, black_checks, black_attacks, white_attacks,
        pawns[2] & black)
    mg = position.mg + pawns[0] + white_mg - black_mg + white_threat_mg - black_threat_mg
    eg = position.eg + pawns[1] + white_eg - black_eg + white_threat_eg - black_threat_eg
    return TEMPO + _blend(mg, eg, position.phase, position.turn)


def _blend(mg: int, eg: int, phase: int, turn: chess.Color) -> int:
    """The middlegame and endgame scores (White's view) mixed by phase, for the side to move.
    The sign is turned before dividing, so a position and its colour mirror score the same."""
    phase = min(phase, PHASE_TOTAL)
    blended = mg * phase + eg * (PHASE_TOTAL - phase)
    return (blended if turn == WHITE else -blended) // PHASE_TOTAL


def _side_terms(position: Position, own: Bitboard, enemy: Bitboard,
                pawn_attacks: Bitboard) -> tuple[int, int, Bitboard, Bitboard, Bitboard, Bitboard]:
    """One side's terms that need only its own pieces' attacks, as (middlegame, endgame): bishop
    pair, piece mobility, rooks on open files and the checks its pieces can give the enemy royal
    knight next move; and for :func:`_threat_terms`, every square this side attacks (defends,
    if it holds an own piece), those its commoners and bishops attack, those its rooks attack,
    and those from which it can check next move.

    Each piece's attacks are computed once and serve its mobility, its checks and the maps. Bits
    are scanned inline: this runs at most nodes of the tree, and generator calls would cost a
    third of its time.
    """
    occupied = position.occupied
    all_pawns, all_commoners, all_bishops = position.pawns, position.knights, position.bishops
    all_rooks, all_queens, royals = position.rooks, position.queens, position.kings
    not_own = ~own
    mg = eg = 0
    royal = royals & own
    attacks = pawn_attacks | (BB_KNIGHT_ATTACKS[top_square(royal)] if royal else 0)
    minor_attacks: Bitboard = 0
    rook_attacks: Bitboard = 0
    checks: Bitboard = 0

    # Where checks come from: the lines and steps onto the enemy royal knight, if this side has
    # a queen, rook or commoner to make them dangerous (bishops alone do not).
    enemy_royal = royals & enemy
    threatened = bool(enemy_royal and (all_queens | all_rooks | all_commoners) & own)
    files_and_ranks: Bitboard = 0
    diagonals: Bitboard = 0
    steps: Bitboard = 0
    target = 0
    if threatened:
        target = top_square(enemy_royal)
        files_and_ranks = straight_attacks(target, occupied) & not_own
        diagonals = diagonal_attacks(target, occupied) & not_own
        steps = BB_KING_ATTACKS[target] & not_own

    bishops = all_bishops & own
    if popcount(bishops) >= 2:
        mg += BISHOP_PAIR
        eg += BISHOP_PAIR
    while bishops:
        square = top_square(bishops)
        bishops ^= BB_SQUARES[square]
        seen = diagonal_attacks(square, occupied)
        minor_attacks |= seen
        reach = seen & not_own
        count = popcount(reach)
        mg += BISHOP_MOBILITY[0] * (count - BISHOP_MOBILITY[2])
        eg += BISHOP_MOBILITY[1] * (count - BISHOP_MOBILITY[2])
        if threatened:
            mg += BISHOP_CHECK_PENALTY * popcount(reach & diagonals)
            checks |= reach & diagonals
    rooks = all_rooks & own
    own_pawns = all_pawns & own
    while rooks:
        square = top_square(rooks)
        rooks ^= BB_SQUARES[square]
        seen = straight_attacks(square, occupied)
        rook_attacks |= seen
        reach = seen & not_own
        count = popcount(reach)
        mg += ROOK_MOBILITY[0] * (count - ROOK_MOBILITY[2])
        eg += ROOK_MOBILITY[1] * (count - ROOK_MOBILITY[2])
        file = BB_FILES[square & 7]
        if not file & own_pawns:
            bonus = ROOK_OPEN_FILE if not file & all_pawns else ROOK_HALF_OPEN_FILE
            mg += bonus[0]
            eg += bonus[1]
        if threatened:
            mg += ROOK_CHECK_PENALTY * popcount(reach & files_and_ranks)
            checks |= reach & files_and_ranks
    queens = all_queens & own
    while queens:
        square = top_square(queens)
        queens ^= BB_SQUARES[square]
        seen = diagonal_attacks(square, occupied) | straight_attacks(square, occupied)
        attacks |= seen
        reach = seen & not_own
        count = popcount(reach)
        mg += QUEEN_MOBILITY[0] * (count - QUEEN_MOBILITY[2])
        eg += QUEEN_MOBILITY[1] * (count - QUEEN_MOBILITY[2])
        if threatened:
            mg += QUEEN_CHECK_PENALTY * popcount(reach & (files_and_ranks | diagonals))
            mg += QUEEN_NEAR_PENALTY[_DISTANCE[square][target]]
            checks |= reach & (files_and_ranks | diagonals)
    commoners = all_commoners & own
    while commoners:
        square = top_square(commoners)
        commoners ^= BB_SQUARES[square]
        seen = BB_KING_ATTACKS[square]
        minor_attacks |= seen
        reach = seen & not_own
        mg += COMMONER_MOBILITY * popcount(reach)
        if threatened:
            mg += COMMONER_CHECK_PENALTY * popcount(reach & steps)
            checks |= reach & steps
    return mg, eg, attacks | minor_attacks | rook_attacks, minor_attacks, rook_attacks, checks


def _threat_terms(position: Position, own: Bitboard, enemy: Bitboard, pawn_attacks: Bitboard,
                  minor_attacks: Bitboard, rook_attacks: Bitboard, checks: Bitboard, attacks: Bitboard,
                  enemy_attacks: Bitboard, passed: Bitboard) -> tuple[int, int]:
    """One side's terms that weigh its attacks against the enemy's, as (middlegame, endgame):
    the safe flight squares of its royal knight, its safe checks, its threats on enemy pieces,
    and how free its passed pawns are to run (*passed*: its passed pawns)."""
    mg = eg = 0
    royals = position.kings
    royal = royals & own
    if royal and (position.queens | position.rooks) & enemy:
        flight = BB_KNIGHT_ATTACKS[top_square(royal)] & ~own & ~enemy_attacks
        mg += ESCAPE_SQUARE_BONUS[min(popcount(flight), 7)]
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
        occupied = position.occupied
        while passed:
            square = top_square(passed)
            passed ^= BB_SQUARES[square]
            rank = (square >> 3) if white else 7 - (square >> 3)
            path = _FRONT_SPAN[white][square]
            if not path & (occupied | enemy_attacks):
                eg += PASSED_FREE_PATH[rank]
            if rank > 2:
                block = square + 8 if white else square - 8
                if enemy_royal:
                    eg += PASSED_ROYAL_DISTANCE[0] * (rank - 2) * _KNIGHT_DISTANCE[top_square(enemy_royal)][block]
                if royal:
                    eg += PASSED_ROYAL_DISTANCE[1] * (rank - 2) * _KNIGHT_DISTANCE[top_square(royal)][block]
    return mg, eg


def _pawn_terms(white_pawns: Bitboard, black_pawns: Bitboard) -> PawnTerms:
    """Passed, doubled and isolated pawns (White positive), the passed pawns, and each side's pawn attacks."""
    mg = eg = 0
    passed: Bitboard = 0
    white_attacks: Bitboard = 0
    black_attacks: Bitboard = 0
    for color, own, enemy in ((chess.WHITE, white_pawns, black_pawns), (chess.BLACK, black_pawns, white_pawns)):
        sign = 1 if color == chess.WHITE else -1
        pawns = own
        while pawns:
            square = top_square(pawns)
            pawns ^= BB_SQUARES[square]
            if color == chess.WHITE:
                white_attacks |= BB_PAWN_ATTACKS[chess.WHITE][square]
            else:
                black_attacks |= BB_PAWN_ATTACKS[chess.BLACK][square]
            file = square & 7
            relative_rank = (square >> 3) if color == chess.WHITE else 7 - (square >> 3)
            if not enemy & _PASSED_SPAN[color][square]:
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


_DISTANCE: Final = [[chess.square_distance(a, b) for b in chess.SQUARES] for a in chess.SQUARES]

_ADJACENT_FILES: Final = [
    (BB_FILES[file - 1] if file > 0 else 0) | (BB_FILES[file + 1] if file < 7 else 0) for file in range(8)
]


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


_PASSED_SPAN: Final = [[_passed_span(color, square) for square in chess.SQUARES]
                       for color in (chess.BLACK, chess.WHITE)]

def _front_span(color: chess.Color, square: chess.Square) -> Bitboard:
    """The squares in front of a pawn on its own file, up to its promotion square."""
    file, rank = chess.square_file(square), chess.square_rank(square)
    ranks = range(rank + 1, 8) if color == chess.WHITE else range(0, rank)
    span: Bitboard = 0
    for r in ranks:
        span |= BB_SQUARES[chess.square(file, r)]
    return span


_FRONT_SPAN: Final = [[_front_span(color, square) for square in chess.SQUARES]
                      for color in (chess.BLACK, chess.WHITE)]


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


_KNIGHT_DISTANCE: Final = [_knight_distances(square) for square in chess.SQUARES]

assert COMMONER == chess.KNIGHT and ROYAL_KNIGHT == chess.KING  # the tables are indexed this way
