// The little of chessgroundx 10.7.4 (bot/web/static/vendor/chessgroundx.js) that the page uses,
// written by hand from the package's src/*.ts: its own declarations are not vendored, and the
// bundle is minified. TypeScript finds it beside the bundle for board.js's import (.ci/typecheck);
// the browser never loads it. Add to it when the page uses more of the board, with the names and
// shapes of the package's own types.

export type Color = "white" | "black";
/** A square: "a1".."h8". */
export type Key = string;
export type Dests = Map<Key, Key[]>;

export interface Piece {
  /** "k-piece", "m-piece", "q-piece", ...: its first letter is the piece's letter. */
  role: string;
  color: Color;
  promoted?: boolean;
}

export interface BoardState {
  pieces: Map<Key, Piece>;
}

export interface MoveMetadata {
  premove: boolean;
  ctrlKey?: boolean;
  holdTime?: number;
  captured?: Piece;
}

export interface DrawShape {
  orig: Key;
  dest?: Key;
  brush?: string;
}

export interface Config {
  fen?: string;
  orientation?: Color;
  turnColor?: Color;
  /** The colour in check (its royal pieces), true for the side to move, or the squares. */
  check?: Color | boolean | Key[];
  lastMove?: Key[];
  coordinates?: boolean;
  autoCastle?: boolean;
  animation?: { enabled?: boolean; duration?: number };
  highlight?: { lastMove?: boolean; check?: boolean };
  movable?: {
    free?: boolean;
    color?: Color | "both";
    dests?: Dests;
    showDests?: boolean;
    events?: { after?: (orig: Key, dest: Key, metadata: MoveMetadata) => void };
  };
  premovable?: {
    enabled?: boolean;
    castle?: boolean;
    premoveFunc?: (boardState: BoardState, key: Key, canCastle: boolean) => Key[];
  };
  draggable?: { enabled?: boolean; showGhost?: boolean };
  drawable?: { enabled?: boolean; eraseOnClick?: boolean };
}

export interface State {
  turnColor: Color;
  orientation: Color;
  dom: { bounds: { clear(): void } };
  premovable: { current?: Key[] };
  drawable: { autoShapes: DrawShape[] };
  selectable: { selected?: Key };
}

export interface Api {
  state: State;
  set(config: Config): void;
  setAutoShapes(shapes: DrawShape[]): void;
  playPremove(): boolean;
  cancelPremove(): void;
  cancelMove(): void;
}

export function Chessground(element: HTMLElement, config?: Config): Api;
