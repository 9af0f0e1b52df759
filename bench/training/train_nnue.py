"""Trains the engine's NNUE on Fairy-Stockfish self-play positions and writes it as package data.

Data: the tab-separated files of ``make_tuning_data.py`` (fen, result for White, game, ply,
in_check, best_is_capture, score_cp for White). Positions in check, positions whose best move
is a capture (not quiet: the search's quiescence scores those) and mate scores are left out, and
each FEN is kept once.

Network (see ``bot/engine/nnue.py``): 768 inputs per perspective -> ``--hidden`` units shared by
both perspectives, clipped ReLU at 1, the side to move's half then the other's -> one output, a
logit. Target: ``--score-weight`` x sigmoid(Fairy-Stockfish's score / ``--scale-cp``) plus the
rest x the game's result, both for the side to move; loss: the mean squared error of
sigmoid(output). Adam with decoupled weight decay, mini-batches, a fixed ``--seed``. Games are
split 95/5 (by the game column) into training and validation positions, the loss of both is
printed per epoch, and the net written is the epoch's with the lowest validation loss (few
positions are quickly learnt by heart: the training loss falls on while the validation's rises).

Before the first epoch it prints two baselines on the validation positions: Fairy-Stockfish's
own scores, and the engine's hand evaluation (at ``--scale-cp`` and at the scale that fits it
best), the figure a net must beat to be worth its cost a node.

Output: the quantized net (``bench/training/nnue_file.py``: W1 and b1 x 255, W2 x 64, clipped to the
limits that keep the engine's int16 accumulator in range) and beside it a JSON recipe: the
command, the data files (size and positions), the seed and the loss per epoch. The net's logit
becomes centipawns at ``--output-scale-cp``: the hand evaluation's centipawns are smaller than
Fairy-Stockfish's, and the search's margins were tuned on the hand evaluation.

    pip install -e '.[train]'
    python -m bench.training.train_nnue /work/nnue-data/fsf-seed101.tsv --out bot/engine/data/nnue.bin
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from scipy import sparse

from bench.training import nnue_file
from bot.engine import evaluation
from bot.engine.position import Position
from variant import KnightmateBoard

MATE_CP = 10000
QA = 255
QB = 64
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "bot" / "engine" / "data" / "nnue.bin"

Floats = npt.NDArray[np.float64]


@dataclass
class Data:
    """Positions as sparse input rows for each perspective, and their targets' two parts."""
    us: sparse.csr_matrix
    them: sparse.csr_matrix
    score_cp: Floats  # for the side to move
    result: Floats  # for the side to move: 1, 0.5, 0
    games: npt.NDArray[np.int64]  # a number per game, for the split
    fens: npt.NDArray[np.object_]  # the positions, for the hand evaluation's baseline

    def rows(self, index: npt.NDArray[np.int64] | slice) -> Data:
        return Data(self.us[index], self.them[index], self.score_cp[index], self.result[index], self.games[index],
                    self.fens[index])


def load(paths: Sequence[Path]) -> Data:
    """The quiet, distinct positions of *paths*."""
    seen: set[str] = set()
    us_rows: list[list[int]] = []
    them_rows: list[list[int]] = []
    scores: list[float] = []
    results: list[float] = []
    games: list[int] = []
    fens: list[str] = []
    for path in paths:
        with path.open() as lines:
            for line in lines:
                fen, result, game, _ply, in_check, best_is_capture, score = line.rstrip("\n").split("\t")
                if in_check == "1" or best_is_capture == "1" or abs(int(score)) >= MATE_CP:
                    continue
                board_fen = fen.rsplit(" ", 2)[0]  # the clocks do not change the inputs
                if board_fen in seen:
                    continue
                seen.add(board_fen)
                us, them, white_to_move = nnue_file.features(fen)
                us_rows.append(us)
                them_rows.append(them)
                sign = 1 if white_to_move else -1
                scores.append(sign * int(score))
                results.append(float(result) if white_to_move else 1.0 - float(result))
                games.append(zlib.crc32(f"{path.name}:{game}".encode()))
                fens.append(fen)
    return Data(_rows(us_rows), _rows(them_rows), np.array(scores, dtype=np.float64),
                np.array(results, dtype=np.float64), np.array(games, dtype=np.int64), np.array(fens, dtype=object))


def hand_scores(fens: npt.NDArray[np.object_]) -> Floats:
    """The engine's hand evaluation of each position, for the side to move: the baseline a net must beat."""
    pawn_cache = evaluation.PawnCache()
    return np.array([evaluation.evaluate(Position.from_board(KnightmateBoard(fen)), pawn_cache) for fen in fens],
                    dtype=np.float64)


def _rows(active: list[list[int]]) -> sparse.csr_matrix:
    indptr = np.cumsum([0] + [len(row) for row in active])
    indices = np.fromiter((i for row in active for i in row), dtype=np.int32, count=int(indptr[-1]))
    return sparse.csr_matrix((np.ones(len(indices), dtype=np.float64), indices, indptr),
                             shape=(len(active), nnue_file.INPUTS))


def sigmoid(x: Floats) -> Floats:
    result: Floats = 1.0 / (1.0 + np.exp(-x))
    return result


class Model:
    """The float network and its Adam state."""

    def __init__(self, hidden: int, rng: np.random.Generator) -> None:
        self.params: dict[str, Floats] = {
            "w1": rng.normal(0.0, 0.1, (nnue_file.INPUTS, hidden)),
            "b1": np.full(hidden, 0.1),
            "w2": rng.normal(0.0, 1.0 / np.sqrt(2 * hidden), 2 * hidden),
            "b2": np.zeros(1),
        }
        self.moments = {name: (np.zeros_like(p), np.zeros_like(p)) for name, p in self.params.items()}
        self.steps = 0
        # Trained values past these would be clipped by the quantization: keep them inside.
        self.bounds = {"w1": nnue_file.WEIGHT_LIMIT / QA, "b1": nnue_file.WEIGHT_LIMIT / QA, "w2": 32767 / QB}

    def logits(self, us: sparse.csr_matrix, them: sparse.csr_matrix) -> tuple[Floats, tuple[Floats, ...]]:
        p = self.params
        hidden = p["b1"].shape[0]
        acc_us = us @ p["w1"] + p["b1"]
        acc_them = them @ p["w1"] + p["b1"]
        h_us = np.clip(acc_us, 0.0, 1.0)
        h_them = np.clip(acc_them, 0.0, 1.0)
        y = h_us @ p["w2"][:hidden] + h_them @ p["w2"][hidden:] + p["b2"][0]
        return y, (acc_us, acc_them, h_us, h_them)

    def step(self, batch: Data, target: Floats, learning_rate: float, weight_decay: float) -> float:
        """One Adam step on *batch*; returns its loss before the step."""
        p = self.params
        hidden = p["b1"].shape[0]
        y, (acc_us, acc_them, h_us, h_them) = self.logits(batch.us, batch.them)
        prediction = sigmoid(y)
        error = prediction - target
        dy = 2.0 * error * prediction * (1.0 - prediction) / len(target)
        w2 = p["w2"]
        d_us = np.outer(dy, w2[:hidden]) * ((acc_us > 0.0) & (acc_us < 1.0))
        d_them = np.outer(dy, w2[hidden:]) * ((acc_them > 0.0) & (acc_them < 1.0))
        grads = {
            "w1": np.asarray(batch.us.T @ d_us + batch.them.T @ d_them),
            "b1": d_us.sum(axis=0) + d_them.sum(axis=0),
            "w2": np.concatenate([h_us.T @ dy, h_them.T @ dy]),
            "b2": np.array([dy.sum()]),
        }
        self.steps += 1
        beta1, beta2 = 0.9, 0.999
        for name, grad in grads.items():
            m, v = self.moments[name]
            m *= beta1
            m += (1 - beta1) * grad
            v *= beta2
            v += (1 - beta2) * grad * grad
            m_hat = m / (1 - beta1 ** self.steps)
            v_hat = v / (1 - beta2 ** self.steps)
            p[name] -= learning_rate * (m_hat / (np.sqrt(v_hat) + 1e-8) + weight_decay * p[name])
            if name in self.bounds:
                np.clip(p[name], -self.bounds[name], self.bounds[name], out=p[name])
        return float(np.mean(error * error))

    def loss(self, data: Data, target: Floats) -> float:
        y, _ = self.logits(data.us, data.them)
        return float(np.mean((sigmoid(y) - target) ** 2))


def targets(data: Data, score_weight: float, scale_cp: float) -> Floats:
    result: Floats = score_weight * sigmoid(data.score_cp / scale_cp) + (1.0 - score_weight) * data.result
    return result


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="+", type=Path, help="make_tuning_data.py output files")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"the net file (default {DEFAULT_OUT})")
    parser.add_argument("--hidden", type=int, default=128, help="accumulator width (default 128)")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--learning-rate", type=float, default=0.002)
    parser.add_argument("--learning-rate-decay", type=float, default=1.0,
                        help="the learning rate is multiplied by this after each epoch (default 1: constant)")
    parser.add_argument("--weight-decay", type=float, default=0.0, help="decoupled (AdamW) weight decay")
    parser.add_argument("--score-weight", type=float, default=0.5,
                        help="share of the target from Fairy-Stockfish's score; the rest is the game result")
    parser.add_argument("--scale-cp", type=int, default=400, help="the sigmoid's scale: p = sigmoid(cp / scale)")
    parser.add_argument("--output-scale-cp", type=int, default=None,
                        help="centipawns a unit of the net's logit in the engine (default --scale-cp): the "
                        "hand evaluation's units, so that the search's margins, tuned on it, mean the same")
    parser.add_argument("--seed", type=int, default=1)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    for path in args.data:
        if not path.is_file():
            print(f"error: no data file {path}", file=sys.stderr)
            return 2
    rng = np.random.default_rng(args.seed)
    started = time.monotonic()
    data = load(args.data)
    validation = (data.games % 20) == 0
    train = data.rows(np.flatnonzero(~validation))
    held_out = data.rows(np.flatnonzero(validation))
    print(f"{len(data.result)} quiet distinct positions ({len(train.result)} training, "
          f"{len(held_out.result)} validation), read in {time.monotonic() - started:.0f} s", flush=True)
    train_target = targets(train, args.score_weight, args.scale_cp)
    held_target = targets(held_out, args.score_weight, args.scale_cp)
    model = Model(args.hidden, rng)
    losses: list[dict[str, float]] = []
    print(f"epoch 0: validation {model.loss(held_out, held_target):.6f}; Fairy-Stockfish's scores alone: "
          f"{np.mean((sigmoid(held_out.score_cp / args.scale_cp) - held_target) ** 2):.6f}", flush=True)
    hand = hand_scores(held_out.fens)
    hand_losses = {scale: float(np.mean((sigmoid(hand / scale) - held_target) ** 2)) for scale in range(100, 1001, 25)}
    best_scale = min(hand_losses, key=hand_losses.__getitem__)
    print(f"the hand evaluation alone: {hand_losses[args.scale_cp]:.6f} at --scale-cp, {hand_losses[best_scale]:.6f} "
          f"at its best scale ({best_scale} cp)", flush=True)
    best = (float("inf"), 0, {name: value.copy() for name, value in model.params.items()})
    learning_rate = args.learning_rate
    for epoch in range(1, args.epochs + 1):
        # Shuffled once an epoch, so that each batch is a cheap slice of contiguous rows (picking a
        # batch's rows out of the whole sparse matrix cost more than the batch's step).
        order = rng.permutation(len(train.result))
        shuffled, shuffled_target = train.rows(order), train_target[order]
        total = 0.0
        for start in range(0, len(order), args.batch):
            batch = slice(start, start + args.batch)
            total += model.step(shuffled.rows(batch), shuffled_target[batch], learning_rate,
                                args.weight_decay) * len(shuffled_target[batch])
        train_loss = total / len(order)
        learning_rate *= args.learning_rate_decay
        held_loss = model.loss(held_out, held_target)
        losses.append({"epoch": epoch, "train": round(train_loss, 6), "validation": round(held_loss, 6)})
        print(f"epoch {epoch}: train {train_loss:.6f} validation {held_loss:.6f} "
              f"({time.monotonic() - started:.0f} s)", flush=True)
        if held_loss < best[0]:
            best = (held_loss, epoch, {name: value.copy() for name, value in model.params.items()})
    _, best_epoch, p = best
    output_scale_cp = args.scale_cp if args.output_scale_cp is None else args.output_scale_cp
    print(f"keeping epoch {best_epoch}")
    net = nnue_file.quantize(p["w1"], p["b1"], p["w2"], float(p["b2"][0]), QA, QB, output_scale_cp)
    args.out.write_bytes(nnue_file.to_bytes(net))
    recipe = {
        "command": "python -m bench.training.train_nnue " + " ".join(argv if argv is not None else sys.argv[1:]),
        "data": [{"file": path.name, "bytes": path.stat().st_size} for path in args.data],
        "positions": {"training": len(train.result), "validation": len(held_out.result)},
        "hidden": args.hidden, "epochs": args.epochs, "batch": args.batch, "learning_rate": args.learning_rate,
        "learning_rate_decay": args.learning_rate_decay,
        "weight_decay": args.weight_decay, "score_weight": args.score_weight, "scale_cp": args.scale_cp,
        "output_scale_cp": output_scale_cp,
        "seed": args.seed, "kept_epoch": best_epoch, "loss": losses,
    }
    recipe_path = args.out.with_suffix(".json")
    recipe_path.write_text(json.dumps(recipe, indent=1) + "\n")
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes) and {recipe_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
