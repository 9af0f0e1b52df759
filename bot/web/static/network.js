// The page's only link to the server: JSON requests and the ndjson streams (games list, one game),
// and the banner that says when the server is gone. A broken stream is taken up again quietly,
// every RETRY_MS, until the server answers; the banner shows meanwhile and goes when it does.
import { $, showNotice } from "./page.js";

const RETRY_MS = 1000;
const broken = new Set(); // the streams that are down now, by path

function setConnected(path, connected) {
  if (connected) broken.delete(path); else broken.add(path);
  $("offline").hidden = broken.size === 0;
}

export class ServerGone extends Error {}

export async function api(path, form) {
  const options = { credentials: "same-origin", headers: {} };
  if (form !== undefined) {
    options.method = "POST";
    options.headers["X-Knightmate-Play"] = "1";
    options.headers["Content-Type"] = "application/x-www-form-urlencoded";
    options.body = new URLSearchParams(form).toString();
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    throw new ServerGone("The server does not answer: is knightmate-bot play still running?");
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error || `${response.status} ${response.statusText}`);
  return body;
}

// Hands each JSON line of a streamed answer to onLine, until the answer ends.
export async function readLines(response, onLine) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const text = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (text) onLine(JSON.parse(text));
    }
  }
}

// Reads an ndjson stream until `signal` aborts it, taking it up again after a break (the server
// stopped, the network went), but not for something the server says does not exist.
export async function follow(path, onLine, signal) {
  while (!signal.aborted) {
    try {
      const response = await fetch(path, { credentials: "same-origin", signal });
      if (response.status === 404) {
        setConnected(path, true);
        showNotice((await response.json().catch(() => ({}))).error || "Not found");
        return;
      }
      if (!response.ok) throw new Error(`${response.status}`);
      setConnected(path, true);
      await readLines(response, onLine);
    } catch (error) {
      if (signal.aborted) break;
    }
    if (signal.aborted) break;
    setConnected(path, false);
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
  setConnected(path, true); // a stream let go of is no longer missed
}
