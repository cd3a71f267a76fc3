// A table's live events (Server-Sent Events at /api/v1/tables/{id}/events).
// EventSource cannot send the Authorization header, so the stream is read with
// fetch. When it drops, it reconnects with a growing pause; the first event of
// every connection (`state`) is the table's current view, so nothing missed
// while away stays missed.

import { session, signInAgain } from "./api.js";

/**
 * Watches a table until `stop()`. `onEvent(name, data)` gets each event;
 * `onStatus(status)` gets "connecting", "live" or "reconnecting".
 */
export function watchTable(tableId, onEvent, onStatus = () => {}) {
  const controller = new AbortController();
  let stopped = false;
  let pauseMs = 500;

  async function connectOnce() {
    onStatus("connecting");
    const s = session();
    const response = await fetch(`/api/v1/tables/${encodeURIComponent(tableId)}/events`, {
      headers: { authorization: "Bearer " + (s ? s.token : ""), accept: "text/event-stream" },
      signal: controller.signal,
    });
    if (response.status === 401) { signInAgain("Your session ended; please sign in again."); stopped = true; return; }
    if (!response.ok || !response.body) throw new Error("stream refused: " + response.status);
    onStatus("live");
    pauseMs = 500;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        dispatch(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  }

  function dispatch(block) {
    let name = "message";
    const data = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) name = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length === 0) return;
    let parsed;
    try { parsed = JSON.parse(data.join("\n")); } catch (_) { parsed = data.join("\n"); }
    // The session this stream was opened with has ended (logout elsewhere, deactivation…).
    if (name === "ended") {
      stopped = true;
      signInAgain("Your session ended; please sign in again.");
      return;
    }
    onEvent(name, parsed);
  }

  (async () => {
    while (!stopped) {
      try {
        await connectOnce();
      } catch (_) {
        if (stopped) return;
      }
      if (stopped) return;
      onStatus("reconnecting");
      await new Promise((r) => setTimeout(r, pauseMs));
      pauseMs = Math.min(pauseMs * 2, 8000);
    }
  })();

  return {
    stop() {
      stopped = true;
      controller.abort();
    },
  };
}

/** A status line for the live stream, for a `role="status"` element. */
export function liveStatusText(status) {
  return {
    connecting: "Connecting to the table…",
    live: "Live",
    reconnecting: "Connection lost — reconnecting…",
  }[status] || status;
}
