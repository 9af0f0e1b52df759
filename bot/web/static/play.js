// knightmate-bot play: a thin client of the sandbox's human seat.
// The page knows no rules: every position it gets from the server lists its legal moves (UCI, SAN and
// the position after each), and a move is one of those or nothing. It draws, sends and shows.
"use strict";

(() => {
  const SVG = "http://www.w3.org/2000/svg";
  const FILES = "abcdefgh";
  const PIECE_NAMES = { k: "royal knight", m: "commoner", q: "queen", r: "rook", b: "bishop", p: "pawn" };
  const PROMOTION_ORDER = ["m", "q", "r", "b"];
  const PIECE_INSET = 4; // a piece's margin in its square (of 100), so coordinates stay readable
  const PRESETS = [[1, 0], [2, 1], [3, 0], [3, 2], [5, 0], [5, 3], [10, 0], [10, 5], [15, 10]];
  const STATUS_TEXT = {
    mate: () => "Checkmate", resign: (loser) => `${loser} resigned`, stalemate: () => "Stalemate",
    timeout: (loser) => `${loser} left the game`, draw: () => "Draw", outoftime: (loser) => `${loser} ran out of time`,
    aborted: () => "Game aborted", noStart: () => "The game never started",
    illegalMove: (loser) => `${loser} made an illegal move`, variantEnd: () => "Game over",
  };
  const $ = (id) => document.getElementById(id);

  // What the tests and bench/web_latency.py read, each taken once the frame showing it is painted
  // (afterPaint): the click's own event time to then (ms of performance.now()); the server's stamp
  // of the bot's move request arriving to then (ms of the system clock, which the server's stamp is
  // on: Date.now(), as performance.timeOrigin drifts from it); navigation start to the first board
  // and to the first game drawn.
  const metrics = { clickToShown: [], clickToConfirmed: [], botMoveToShown: [], boardReadyMs: null, gameShownMs: null };
  window.kmMetrics = metrics;

  // Calls back once the next frame, the one that shows the page's changes so far, is painted: a
  // task posted from requestAnimationFrame runs after that frame's style, layout and paint. It is
  // posted ahead of other waiting tasks where the browser can (scheduler.postTask): a plain task
  // waits behind whatever came meanwhile (a stream line, a fetch answer), 10-30 ms after the paint.
  function afterPaint(callback) {
    requestAnimationFrame(() => {
      if (window.scheduler && scheduler.postTask) {
        scheduler.postTask(callback, { priority: "user-blocking" });
        return;
      }
      const channel = new MessageChannel();
      channel.port1.onmessage = () => callback();
      channel.port2.postMessage(null);
    });
  }

  const view = {
    account: null, gameId: null, state: null, receivedAt: 0, ply: 0, flipped: false, selected: null,
    drag: null, pending: null, stream: null, events: null, preset: [3, 2], drawDeclinedAt: null,
  };

  // ---- the server -------------------------------------------------------------------------------

  async function api(path, form) {
    const options = { credentials: "same-origin", headers: {} };
    if (form !== undefined) {
      options.method = "POST";
      options.headers["X-Knightmate-Play"] = "1";
      options.headers["Content-Type"] = "application/x-www-form-urlencoded";
      options.body = new URLSearchParams(form).toString();
    }
    const response = await fetch(path, options);
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(body.error || `${response.status} ${response.statusText}`);
    return body;
  }

  // Reads an ndjson stream until it ends or `signal` aborts it; reconnects after a break, but not
  // to something the server says does not exist.
  async function follow(path, onLine, signal) {
    while (!signal.aborted) {
      try {
        const response = await fetch(path, { credentials: "same-origin", signal });
        if (response.status === 404) {
          showNotice((await response.json().catch(() => ({}))).error || "Not found");
          return;
        }
        if (!response.ok) throw new Error(`${response.status}`);
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let newline;
          while ((newline = buffer.indexOf("\n")) >= 0) {
            const text = buffer.slice(0, newline).trim();
            buffer = buffer.slice(newline + 1);
            if (text) onLine(JSON.parse(text));
          }
        }
      } catch (error) {
        if (signal.aborted) return;
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  // ---- positions --------------------------------------------------------------------------------

  function parseFen(fen) {
    const pieces = {};
    fen.split(" ")[0].split("/").forEach((rank, row) => {
      let file = 0;
      for (const ch of rank) {
        if (/\d/.test(ch)) { file += Number(ch); continue; }
        pieces[FILES[file] + (8 - row)] = { color: ch === ch.toUpperCase() ? "white" : "black", type: ch.toLowerCase() };
        file += 1;
      }
    });
    return pieces;
  }

  function shownPosition() {
    const state = view.state;
    if (view.pending) return { fen: view.pending.fen, last: view.pending.uci, check: null };
    const ply = state.plies[view.ply - 1];
    if (!ply) return { fen: state.initialFen, last: null, check: state.plies.length === 0 ? state.check : null };
    return { fen: ply.fen, last: ply.uci, check: ply.check };
  }

  const live = () => view.state !== null && view.ply === view.state.plies.length;
  // A new position comes first without its legal moves (null), which follow a moment after.
  const myTurn = () => live() && !view.pending && view.state.status === "started" && view.state.you === view.state.turn
    && view.state.legalMoves !== null;
  const movesFrom = (square) => (myTurn() ? view.state.legalMoves.filter((m) => m.uci.startsWith(square)) : []);
  const orientation = () => (Boolean(view.state && view.state.you === "black") !== view.flipped ? "black" : "white");

  // ---- the board --------------------------------------------------------------------------------

  function squareXY(square) {
    const file = FILES.indexOf(square[0]);
    const rank = Number(square[1]) - 1;
    return orientation() === "white" ? [file * 100, (7 - rank) * 100] : [(7 - file) * 100, rank * 100];
  }

  function squareAt(event) {
    const box = $("board").getBoundingClientRect();
    const col = Math.floor(((event.clientX - box.left) / box.width) * 8);
    const row = Math.floor(((event.clientY - box.top) / box.height) * 8);
    if (col < 0 || col > 7 || row < 0 || row > 7) return null;
    return orientation() === "white" ? FILES[col] + (8 - row) : FILES[7 - col] + (row + 1);
  }

  function element(name, attributes, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
    if (parent) parent.appendChild(node);
    return node;
  }

  function drawBoard() {
    const board = $("board");
    board.textContent = "";
    drawnPieces.clear();
    const defs = element("defs", {}, board);
    const glow = element("radialGradient", { id: "check-glow" }, defs);
    element("stop", { offset: "0%", "stop-color": "#ff2a2a", "stop-opacity": "1" }, glow);
    element("stop", { offset: "45%", "stop-color": "#e81c1c", "stop-opacity": "0.8" }, glow);
    element("stop", { offset: "100%", "stop-color": "#a80000", "stop-opacity": "0" }, glow);
    for (let rank = 1; rank <= 8; rank++) {
      for (let file = 0; file < 8; file++) {
        const square = FILES[file] + rank;
        const [x, y] = squareXY(square);
        const light = (file + rank) % 2 === 0;
        element("rect", { x, y, width: 100, height: 100, class: `sq ${light ? "light" : "dark"}`, "data-square": square },
          board);
      }
    }
    const labels = element("g", { "aria-hidden": "true" }, board);
    for (let i = 0; i < 8; i++) {
      const fileSquare = orientation() === "white" ? FILES[i] + "1" : FILES[7 - i] + "8";
      const rankSquare = orientation() === "white" ? "a" + (8 - i) : "h" + (i + 1);
      const onLight = (sq) => (FILES.indexOf(sq[0]) + Number(sq[1])) % 2 === 0;
      const fileText = element("text", { x: i * 100 + 96, y: 796, "text-anchor": "end",
        class: `coord ${onLight(fileSquare) ? "on-light" : "on-dark"}` }, labels);
      fileText.textContent = fileSquare[0];
      const rankText = element("text", { x: 3, y: i * 100 + 16,
        class: `coord ${onLight(rankSquare) ? "on-light" : "on-dark"}` }, labels);
      rankText.textContent = rankSquare[1];
    }
    element("g", { id: "marks" }, board);
    element("g", { id: "pieces" }, board);
    element("g", { id: "targets" }, board);
    board.insertBefore(board.querySelector("#marks"), labels);
  }

  // The pieces drawn, by square. They stay from one update to the next and a move replaces only
  // the pieces of the squares it changes: drawing all of them anew made every update repaint the
  // whole board (bench/web_latency.py).
  const drawnPieces = new Map();

  function placePiece(use, square) {
    const [x, y] = squareXY(square);
    use.setAttribute("x", x + PIECE_INSET);
    use.setAttribute("y", y + PIECE_INSET);
    use.dataset.square = square;
    use.classList.remove("dragging");
  }

  function renderPieces(placed) {
    for (const [square, use] of drawnPieces) {
      const piece = placed[square];
      if (!piece || use.dataset.piece !== piece.color[0] + piece.type) {
        use.remove();
        drawnPieces.delete(square);
      } else if (use.classList.contains("dragging")) {
        placePiece(use, square); // a drop that did not move it puts it back
      }
    }
    for (const [square, piece] of Object.entries(placed)) {
      if (drawnPieces.has(square)) continue;
      const use = element("use", { href: `#piece-${piece.type}`, width: 100 - 2 * PIECE_INSET,
        height: 100 - 2 * PIECE_INSET, class: `piece ${piece.color}`, "data-piece": piece.color[0] + piece.type },
      $("pieces"));
      placePiece(use, square);
      const title = element("title", {}, use);
      title.textContent = `${piece.color} ${PIECE_NAMES[piece.type]}`;
      drawnPieces.set(square, use);
    }
  }

  function renderBoard() {
    const board = $("board");
    if (board.dataset.orientation !== orientation()) {
      drawBoard();
      board.dataset.orientation = orientation();
    }
    const marks = $("marks");
    const targets = $("targets");
    marks.textContent = "";
    targets.textContent = "";
    const position = view.state ? shownPosition() : { fen: view.account ? view.account.startingFen : "8/8/8/8/8/8/8/8", last: null, check: null };
    if (view.state) {
      board.dataset.fen = position.fen;
      board.dataset.ply = String(view.ply);
    }
    // On the squares' parent, not the board: a class or style change on the <svg> itself costs
    // Chromium a style and layout pass over every piece (3.3 ms a move; 0.1 ms this way).
    $("board-wrap").classList.toggle("interactive", myTurn());
    const mark = (square, kind) => {
      const [x, y] = squareXY(square);
      element("rect", { x, y, width: 100, height: 100, class: `mark ${kind}`, "data-square": square }, marks);
    };
    if (position.last) { mark(position.last.slice(0, 2), "last"); mark(position.last.slice(2, 4), "last"); }
    if (position.check) mark(position.check, "check");
    if (view.selected) mark(view.selected, "selected");
    const placed = parseFen(position.fen);
    renderPieces(placed);
    if (view.selected) {
      const seen = new Set();
      for (const move of movesFrom(view.selected)) {
        const to = move.uci.slice(2, 4);
        if (seen.has(to)) continue;
        seen.add(to);
        const [x, y] = squareXY(to);
        const capture = placed[to] !== undefined;
        element("circle", { cx: x + 50, cy: y + 50, r: capture ? 44 : 15, class: `target${capture ? " capture" : ""}`,
          "data-square": to }, targets);
      }
    }
  }

  // ---- moving -----------------------------------------------------------------------------------

  function pieceElement(square) {
    return drawnPieces.get(square);
  }

  function select(square) {
    view.selected = square;
    renderBoard();
  }

  function onPointerDown(event) {
    if (event.button !== 0 || !myTurn()) return;
    const square = squareAt(event);
    if (square === null) return;
    if (view.selected && view.selected !== square && movesFrom(view.selected).some((m) => m.uci.slice(2, 4) === square)) {
      tryMove(view.selected, square, event.timeStamp);
      return;
    }
    if (movesFrom(square).length === 0) {
      if (view.selected) select(null);
      return;
    }
    const again = view.selected === square;
    select(square);
    view.drag = { from: square, x: event.clientX, y: event.clientY, moved: false, again, id: event.pointerId };
    $("board").setPointerCapture(event.pointerId);
    event.preventDefault();
  }

  function onPointerMove(event) {
    const drag = view.drag;
    if (!drag || event.pointerId !== drag.id) return;
    if (!drag.moved && Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < 4) return;
    drag.moved = true;
    const piece = pieceElement(drag.from);
    if (!piece) return;
    const box = $("board").getBoundingClientRect();
    const x = ((event.clientX - box.left) / box.width) * 800 - 50 + PIECE_INSET;
    const y = ((event.clientY - box.top) / box.height) * 800 - 50 + PIECE_INSET;
    piece.setAttribute("x", x);
    piece.setAttribute("y", y);
    piece.classList.add("dragging");
    $("pieces").appendChild(piece); // drawn above the others
  }

  function onPointerUp(event) {
    const drag = view.drag;
    if (!drag || event.pointerId !== drag.id) return;
    view.drag = null;
    const square = squareAt(event);
    if (!drag.moved) {
      if (drag.again) select(null);
      return;
    }
    if (square && square !== drag.from && movesFrom(drag.from).some((m) => m.uci.slice(2, 4) === square)) {
      tryMove(drag.from, square, event.timeStamp);
    } else {
      select(square === drag.from ? drag.from : null); // an illegal drop puts the piece back
    }
  }

  function tryMove(from, to, clickedAt) {
    const candidates = movesFrom(from).filter((m) => m.uci.slice(2, 4) === to);
    if (candidates.length === 0) return;
    if (candidates.length === 1) {
      send(candidates[0], clickedAt);
    } else {
      showPromotion(candidates);
    }
  }

  function showPromotion(candidates) {
    const picker = $("promotion");
    picker.textContent = "";
    const color = view.state.turn;
    const byPiece = Object.fromEntries(candidates.map((m) => [m.uci[4], m]));
    for (const type of PROMOTION_ORDER.filter((t) => byPiece[t])) {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.promotion = type;
      button.title = `Promote to a ${PIECE_NAMES[type]} (${byPiece[type].san})`;
      const icon = element("svg", { viewBox: "0 0 100 100", "aria-hidden": "true" }, button);
      element("use", { href: `#piece-${type}`, class: `piece ${color}` }, icon);
      const label = document.createElement("span");
      label.className = "label";
      label.textContent = PIECE_NAMES[type];
      button.appendChild(label);
      button.addEventListener("click", (event) => {
        event.stopPropagation();
        picker.hidden = true;
        send(byPiece[type], event.timeStamp);
      });
      picker.appendChild(button);
    }
    picker.hidden = false;
  }

  function hidePromotion() {
    $("promotion").hidden = true;
    select(null);
  }

  async function send(move, clickedAt) {
    const gameId = view.gameId;
    view.selected = null;
    view.pending = { uci: move.uci, fen: move.fen, clickedAt, ply: view.state.plies.length + 1 };
    afterPaint(() => metrics.clickToShown.push(performance.now() - clickedAt));
    render();
    try {
      await api(`/api/board/game/${gameId}/move/${move.uci}`, {});
    } catch (error) {
      if (view.gameId === gameId) {
        view.pending = null;
        render();
        setStatus(`Move refused: ${error.message}`);
      }
    }
  }

  // ---- the game ---------------------------------------------------------------------------------

  function onState(state) {
    const first = state.type === "gameFull";
    if (first) showNotice("");
    const wasLive = view.state === null || live() || view.pending !== null;
    const previous = view.state ? view.state.plies.length : 0;
    // Our offer gone while the game goes on: the bot declined it (or moved, which declines it).
    if (!first && view.state && state.you !== null && view.state.drawOffer === state.you && state.drawOffer === null
        && state.status === "started") view.drawDeclinedAt = state.plies.length;
    view.state = state;
    view.receivedAt = performance.now();
    const pending = view.pending;
    if (pending && state.plies.length >= pending.ply) {
      view.pending = null;
      afterPaint(() => metrics.clickToConfirmed.push(performance.now() - pending.clickedAt));
    } else if (pending && state.status !== "started") {
      view.pending = null;
    }
    if (first || wasLive) view.ply = state.plies.length;
    if (!first && state.plies.length > previous && state.you && state.lastMoveAtMs !== null) {
      const lastMover = state.plies.length % 2 === 1 ? firstMover(state) : other(firstMover(state));
      if (lastMover !== state.you) {
        afterPaint(() => metrics.botMoveToShown.push(Date.now() - state.lastMoveAtMs));
      }
    }
    if (view.selected && !movesFrom(view.selected).length) view.selected = null;
    if (metrics.gameShownMs === null) afterPaint(() => { metrics.gameShownMs = performance.now(); });
    render();
    if (state.status !== "started" && $("pgn-panel").open) loadPgn();
  }

  const firstMover = (state) => (state.initialFen.split(" ")[1] === "b" ? "black" : "white");
  const other = (color) => (color === "white" ? "black" : "white");

  function render() {
    renderBoard();
    renderPlayers();
    const newPly = renderMoves();
    renderControls();
    renderChat();
    // Last, after every change to the page: scrolling lays the page out, and laying it out before
    // the other changes would make the frame lay it out twice.
    if (newPly) newPly.scrollIntoView({ block: "nearest" });
  }

  function playerName(color) {
    const player = view.state[color];
    if (view.state.you === color) return "You";
    return `${player.title ? player.title + " " : ""}${player.name}`;
  }

  function renderPlayers() {
    const bottom = orientation();
    for (const [id, color] of [["bottom-player", bottom], ["top-player", other(bottom)]]) {
      const row = $(id);
      row.dataset.color = color;
      row.querySelector(".name").textContent = `${color === "white" ? "\u25CB" : "\u25CF"} ${playerName(color)}`;
    }
    tickClocks();
  }

  function clockMs(color) {
    const state = view.state;
    const stored = color === "white" ? state.wtime : state.btime;
    if (state.clockRunning && state.turn === color && !view.pending) {
      return Math.max(0, stored - (performance.now() - view.receivedAt));
    }
    return Math.max(0, stored);
  }

  function formatClock(ms) {
    if (ms >= 10000) {
      const seconds = Math.ceil(ms / 1000);
      const hours = Math.floor(seconds / 3600);
      const minutes = Math.floor((seconds % 3600) / 60);
      const rest = String(seconds % 60).padStart(2, "0");
      return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
    }
    return (Math.floor(ms / 100) / 10).toFixed(1);
  }

  // Until both sides have moved once, the side to move has a limited time to start the game.
  function tickCountdown() {
    const countdown = $("countdown");
    const state = view.state;
    const startBy = state.startByMs;
    if (startBy === null || state.status !== "started" || view.pending) { countdown.hidden = true; return; }
    const seconds = Math.max(0, Math.ceil((startBy - performance.timeOrigin - performance.now()) / 1000));
    const who = state.you === state.turn ? "You have" : `${state[state.turn].name} has`;
    countdown.textContent = `${who} ${seconds} s to make the first move, or the game is aborted.`;
    countdown.hidden = false;
  }

  function tickClocks() {
    if (!view.state) return;
    tickCountdown();
    for (const id of ["top-player", "bottom-player"]) {
      const row = $(id);
      const color = row.dataset.color;
      const clock = row.querySelector(".clock");
      clock.hidden = false;
      if (!view.state.clock) { clock.textContent = "\u221E"; continue; }
      const ms = clockMs(color);
      clock.textContent = formatClock(ms);
      clock.dataset.ms = String(Math.round(ms));
      const running = view.state.clockRunning && view.state.turn === color && !view.pending;
      clock.classList.toggle("running", running);
      clock.classList.toggle("low", ms < 10000);
    }
  }

  // The move list as drawn: of which game and how many plies, so that an update only appends the
  // plies that are new (a game's plies are never taken back).
  const drawnMoves = { gameId: null, plies: 0 };

  function renderMoves() {
    const list = $("moves");
    const state = view.state;
    if (drawnMoves.gameId !== state.id || drawnMoves.plies === 0 || drawnMoves.plies > state.plies.length) {
      list.textContent = "";
      drawnMoves.gameId = state.id;
      drawnMoves.plies = 0;
    }
    const startsBlack = firstMover(state) === "black";
    const startNumber = Number(state.initialFen.split(" ")[5] || 1);
    let row = list.lastElementChild;
    state.plies.slice(drawnMoves.plies).forEach((ply, offset) => {
      const index = drawnMoves.plies + offset;
      const blackMove = (index + (startsBlack ? 1 : 0)) % 2 === 1;
      if (!row || !blackMove) {
        row = document.createElement("li");
        const number = document.createElement("span");
        number.className = "number";
        number.textContent = `${startNumber + Math.floor((index + (startsBlack ? 1 : 0)) / 2)}.`;
        row.appendChild(number);
        if (blackMove) row.appendChild(Object.assign(document.createElement("span"), { className: "ply", textContent: "\u2026" }));
        list.appendChild(row);
      }
      const cell = document.createElement("span");
      cell.className = "ply";
      cell.dataset.ply = String(index + 1);
      cell.textContent = ply.san;
      cell.addEventListener("click", () => goTo(index + 1));
      row.appendChild(cell);
    });
    drawnMoves.plies = state.plies.length;
    if (state.plies.length === 0 && !list.firstElementChild) {
      const empty = document.createElement("li");
      empty.appendChild(Object.assign(document.createElement("span"), { className: "number", textContent: "" }));
      empty.appendChild(Object.assign(document.createElement("span"), { className: "ply", textContent: "no moves yet" }));
      list.appendChild(empty);
    }
    const current = list.querySelector(".current");
    const wanted = view.ply > 0 ? list.querySelector(`[data-ply="${view.ply}"]`) : null;
    if (current === wanted) return null;
    if (current) current.classList.remove("current");
    if (!wanted) return null;
    wanted.classList.add("current");
    return live() ? wanted : null;
  }

  function renderControls() {
    const state = view.state;
    const playing = state.you !== null && state.status === "started";
    $("resign").disabled = !playing || state.plies.length < 2;
    $("abort").disabled = !state.abortable;
    $("draw").hidden = !view.account.drawOffers || state.you === null;
    $("draw").disabled = !playing || state.drawOffer !== null;
    renderDrawOffer(state, playing);
    $("rematch").disabled = state.you === null || state.status === "started";
    $("first").disabled = $("back").disabled = view.ply === 0;
    $("last").disabled = $("forward").disabled = live();
    $("download-pgn").href = `/api/board/game/${state.id}/pgn`;
    $("chat-text").disabled = state.you === null;
    const status = $("status");
    status.classList.toggle("over", state.status !== "started");
    if (state.status !== "started") {
      const loser = state.winner ? playerName(other(state.winner)) : "";
      const result = resultOf(state.winner, state.status);
      const reason = (STATUS_TEXT[state.status] || (() => state.status))(loser);
      const who = !state.winner ? "" : state.winner === state.you ? " \u00B7 You win" : ` \u00B7 ${playerName(state.winner)} wins`;
      status.textContent = `${result} \u00B7 ${reason}${who}`;
      status.dataset.result = result;
    } else {
      delete status.dataset.result;
      const turn = view.pending ? other(state.turn) : state.turn;
      // "Your move" once the page can take it: its legal moves follow the position by a moment.
      status.textContent = state.you === null ? `${playerName(turn)} to move`
        : turn !== state.you ? `${state[turn].name} is thinking\u2026` : myTurn() ? "Your move" : "Your move\u2026";
      if (!live()) status.textContent += ` (viewing move ${view.ply} of ${state.plies.length})`;
    }
    const title = state.status !== "started" ? status.textContent
      : state.you === state.turn && !view.pending ? "Your move" : `${state[state.turn].name} to move`;
    setTitleAfterFrame(`${title} \u00B7 Knightmate`);
    $("new-game").hidden = playing;
    $("game-panel").hidden = false;
  }

  // Setting document.title takes milliseconds in Chromium (3 ms typical, 11 ms at worst in
  // bench/web_latency.py), so the tab's title follows once the frame with the update is painted.
  let titleWanted = document.title;
  function setTitleAfterFrame(title) {
    if (title === titleWanted) return;
    titleWanted = title;
    afterPaint(() => { if (document.title !== titleWanted) document.title = titleWanted; });
  }

  // The standing draw offer, whoever made it, and a decline of ours.
  function renderDrawOffer(state, playing) {
    const theirs = playing && state.drawOffer !== null && state.drawOffer !== state.you;
    const opponent = state.you ? playerName(other(state.you)) : "";
    const text = !playing ? ""
      : theirs ? `${opponent} offers a draw.`
        : state.drawOffer === state.you ? `You offer a draw: ${opponent} accepts it, or declines it by moving.`
          : view.drawDeclinedAt === state.plies.length && !view.pending ? `${opponent} declined the draw.` : "";
    if ($("draw-text").textContent !== text) $("draw-text").textContent = text;
    $("draw-accept").hidden = $("draw-decline").hidden = !theirs;
    $("draw-offer").hidden = !text;
  }

  function resultOf(winner, status) {
    if (winner) return winner === "white" ? "1-0" : "0-1";
    return ["aborted", "noStart"].includes(status) ? "*" : "\u00BD-\u00BD";
  }

  function renderChat() {
    const lines = $("chat-lines");
    const chat = view.state.chat;
    if (lines.children.length === chat.length) return;
    lines.textContent = "";
    for (const line of chat) {
      const item = document.createElement("li");
      item.className = `room-${line.room}`;
      item.appendChild(Object.assign(document.createElement("span"), { className: "who", textContent: line.username }));
      item.appendChild(document.createTextNode(line.text));
      lines.appendChild(item);
    }
    lines.scrollTop = lines.scrollHeight;
  }

  function setStatus(text) {
    $("status").textContent = text;
  }

  function goTo(ply) {
    if (!view.state) return;
    view.ply = Math.max(0, Math.min(view.state.plies.length, ply));
    view.selected = null;
    render();
  }

  function openGame(gameId) {
    if (view.stream) view.stream.abort();
    view.gameId = gameId;
    view.state = null;
    view.pending = null;
    view.selected = null;
    view.flipped = false;
    view.drawDeclinedAt = null;
    $("promotion").hidden = true;
    $("pgn").value = "";
    $("pgn-panel").open = false;
    $("chat-lines").textContent = "";
    const controller = new AbortController();
    view.stream = controller;
    follow(`/api/board/game/stream/${gameId}`, (line) => {
      if (view.gameId === gameId && (line.type === "gameFull" || line.type === "gameState")) onState(line);
    }, controller.signal);
    renderGames();
  }

  async function loadPgn() {
    if (!view.gameId) return;
    const response = await fetch(`/api/board/game/${view.gameId}/pgn`, { credentials: "same-origin" });
    $("pgn").value = response.ok ? await response.text() : "";
  }

  // ---- challenges and the games list ------------------------------------------------------------

  function renderPresets() {
    const presets = $("presets");
    const choices = [...PRESETS.map(([m, i]) => ({ label: `${m}+${i}`, value: [m, i] })), { label: "Custom", value: null }];
    for (const choice of choices) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = choice.label;
      button.dataset.preset = choice.label;
      button.addEventListener("click", () => {
        view.preset = choice.value;
        for (const other of presets.children) other.setAttribute("aria-pressed", String(other === button));
        $("custom").hidden = choice.value !== null;
      });
      button.setAttribute("aria-pressed", String(choice.label === "3+2"));
      presets.appendChild(button);
    }
  }

  function chosenClock() {
    if (view.preset) return { limit: view.preset[0] * 60, increment: view.preset[1] };
    return { limit: Math.round(Number($("custom-minutes").value) * 60), increment: Math.round(Number($("custom-increment").value)) };
  }

  async function challenge(params) {
    const message = $("challenge-message");
    message.className = "message ok";
    message.textContent = `Waiting for ${view.account.bot} to answer\u2026`;
    $("challenge").disabled = true;
    try {
      const answer = await api(`/api/challenge/${view.account.bot}`, {
        "clock.limit": params.limit, "clock.increment": params.increment, color: params.color, fen: params.fen,
      });
      if (answer.status === "accepted" && answer.gameId) {
        message.textContent = "";
        location.hash = `#game/${answer.gameId}`;
      } else {
        message.className = "message";
        message.textContent = answer.message || `The challenge was ${answer.status}.`;
        message.dataset.reason = answer.declineReason || "";
      }
    } catch (error) {
      message.className = "message";
      message.textContent = error.message;
    } finally {
      $("challenge").disabled = false;
    }
  }

  function onChallengeSubmit(event) {
    event.preventDefault();
    const clock = chosenClock();
    const color = new FormData($("challenge-form")).get("color");
    challenge({ ...clock, color, fen: $("fen").value.trim() });
  }

  function rematch() {
    const state = view.state;
    const clock = state.clock ? { limit: state.clock.initial / 1000, increment: state.clock.increment / 1000 } : chosenClock();
    const fen = state.initialFen === view.account.startingFen ? "" : state.initialFen;
    $("new-game").hidden = false;
    challenge({ ...clock, color: state.you === "white" ? "black" : "white", fen });
  }

  // The games list changes with every move of every game (its ply counts): each game keeps its
  // item, which is written anew only when what it says changed, so a move redraws one line.
  function renderGames(games) {
    if (games !== undefined) view.games = games;
    const list = $("games");
    const all = view.games || [];
    const kept = new Map([...list.querySelectorAll("li[data-game]")].map((item) => [item.dataset.game, item]));
    list.querySelector("li.empty")?.remove();
    all.forEach((game, index) => {
      const item = kept.get(game.id) || gameItem(game.id);
      kept.delete(game.id);
      if (list.children[index] !== item) list.insertBefore(item, list.children[index] || null);
      const button = item.firstElementChild;
      const state = game.over ? `${resultOf(game.winner, game.status)} ${game.status}` : "live";
      const text = `${game.white} \u2013 ${game.black} \u00B7 ${game.clock} \u00B7 ${game.plies} ${game.plies === 1 ? "ply" : "plies"} \u00B7 `;
      button.classList.toggle("current", game.id === view.gameId);
      if (item.dataset.shown === text + state) return;
      item.dataset.shown = text + state;
      button.textContent = text;
      button.appendChild(Object.assign(document.createElement("span"), { className: game.over ? "" : "live", textContent: state }));
    });
    for (const item of kept.values()) item.remove();
    if (all.length === 0) {
      list.appendChild(Object.assign(document.createElement("li"), { className: "empty", textContent: "No games yet." }));
    }
  }

  function gameItem(gameId) {
    const item = document.createElement("li");
    item.dataset.game = gameId;
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.game = gameId;
    button.addEventListener("click", () => { location.hash = `#game/${gameId}`; });
    item.appendChild(button);
    return item;
  }

  async function exhibition() {
    try {
      const clock = chosenClock();
      const answer = await api("/api/exhibition", { "clock.limit": clock.limit, "clock.increment": clock.increment });
      if (answer.gameId) location.hash = `#game/${answer.gameId}`;
      else showNotice(answer.message || `The bot answered: ${answer.status}`);
    } catch (error) {
      showNotice(error.message);
    }
  }

  function showNotice(text) {
    const notice = $("notice");
    notice.textContent = text;
    notice.hidden = !text;
  }

  function onHash() {
    const match = /^#game\/([A-Za-z0-9]+)$/.exec(location.hash);
    if (match && match[1] !== view.gameId) openGame(match[1]);
  }

  function onKey(event) {
    if (event.target.closest("input, textarea, select")) return;
    if (event.key === "Escape" && !$("promotion").hidden) { hidePromotion(); return; }
    if (!view.state) return;
    const step = { ArrowLeft: view.ply - 1, ArrowRight: view.ply + 1, Home: 0, End: view.state.plies.length }[event.key];
    if (step === undefined) return;
    event.preventDefault();
    goTo(step);
  }

  // Resigning takes two clicks: the first one asks for the second, for three seconds.
  function resign() {
    const button = $("resign");
    if (!button.classList.contains("armed")) {
      button.classList.add("armed");
      button.textContent = "Really resign?";
      setTimeout(() => { button.classList.remove("armed"); button.textContent = "Resign"; }, 3000);
      return;
    }
    button.classList.remove("armed");
    button.textContent = "Resign";
    api(`/api/board/game/${view.gameId}/resign`, {}).catch((error) => setStatus(error.message));
  }

  async function copyPgn() {
    await loadPgn();
    const text = $("pgn").value;
    try {
      await navigator.clipboard.writeText(text);
    } catch (error) {
      $("pgn").select();
      document.execCommand("copy");
    }
    $("copy-pgn").textContent = "Copied";
    setTimeout(() => { $("copy-pgn").textContent = "Copy"; }, 1500);
  }

  function wire() {
    const board = $("board");
    board.addEventListener("pointerdown", onPointerDown);
    board.addEventListener("pointermove", onPointerMove);
    board.addEventListener("pointerup", onPointerUp);
    board.addEventListener("pointercancel", () => { view.drag = null; select(null); });
    $("promotion").addEventListener("click", (event) => { if (event.target === $("promotion")) hidePromotion(); });
    document.addEventListener("keydown", onKey);
    $("first").addEventListener("click", () => goTo(0));
    $("back").addEventListener("click", () => goTo(view.ply - 1));
    $("forward").addEventListener("click", () => goTo(view.ply + 1));
    $("last").addEventListener("click", () => goTo(Infinity));
    $("flip").addEventListener("click", () => { view.flipped = !view.flipped; render(); });
    $("resign").addEventListener("click", resign);
    const draw = (answer) => api(`/api/board/game/${view.gameId}/draw/${answer}`, {}).catch((e) => setStatus(e.message));
    $("draw").addEventListener("click", () => draw("yes"));
    $("draw-accept").addEventListener("click", () => draw("yes"));
    $("draw-decline").addEventListener("click", () => draw("no"));
    $("abort").addEventListener("click", () => api(`/api/board/game/${view.gameId}/abort`, {}).catch((e) => setStatus(e.message)));
    $("rematch").addEventListener("click", rematch);
    $("new").addEventListener("click", () => { $("new-game").hidden = false; $("fen").focus(); });
    $("pgn-panel").addEventListener("toggle", () => { if ($("pgn-panel").open) loadPgn(); });
    $("copy-pgn").addEventListener("click", copyPgn);
    $("chat-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const text = $("chat-text").value.trim();
      if (!text || !view.gameId) return;
      $("chat-text").value = "";
      api(`/api/board/game/${view.gameId}/chat`, { text }).catch((e) => setStatus(e.message));
    });
    $("challenge-form").addEventListener("submit", onChallengeSubmit);
    $("exhibition").addEventListener("click", exhibition);
    window.addEventListener("hashchange", onHash);
    window.addEventListener("pagehide", onPageHide);
    window.addEventListener("pageshow", onPageShow);
    setInterval(tickClocks, 100);
  }

  function followGames() {
    view.events = new AbortController();
    follow("/api/stream/event", (line) => { if (line.type === "games") renderGames(line.games); }, view.events.signal);
  }

  // A page left for another lets go of its streams, and takes them up again if it is come back to
  // from the back-forward cache: Chromium keeps a left page alive there, streams and all, and allows
  // six connections to a server, so the page that replaced it had its moves wait for one.
  function onPageHide() {
    if (view.events) view.events.abort();
    if (view.stream) view.stream.abort();
  }

  function onPageShow(event) {
    if (!event.persisted) return;
    followGames();
    if (view.gameId) openGame(view.gameId);
  }

  async function start() {
    const sprites = await fetch("/static/pieces.svg").then((response) => response.text());
    $("sprites").innerHTML = sprites;
    drawBoard();
    renderPresets();
    wire();
    try {
      view.account = await api("/api/account");
    } catch (error) {
      showNotice(error.message);
      return;
    }
    for (const node of document.querySelectorAll("#bot-name, .bot-name")) node.textContent = view.account.bot;
    renderBoard();
    afterPaint(() => { metrics.boardReadyMs = performance.now(); });
    if (!view.account.opponent) $("exhibition").hidden = true;
    followGames();
    onHash();
    document.body.dataset.ready = "true";
  }

  start();
})();
