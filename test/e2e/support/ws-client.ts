import { WebSocket } from "ws";

export interface CloseInfo {
  code: number;
  reason: string;
}

/** The handshake was refused with an HTTP status (401 without a token, 403, …). */
export class WebSocketRejected extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: string,
  ) {
    super(`WebSocket handshake refused with ${statusCode}: ${body}`);
  }
}

/** A real `ws` client that queues incoming frames, so a test can await them one by one. */
export interface WsTestClient {
  readonly socket: WebSocket;
  /** Resolves with the next text frame (frames already received first). */
  nextFrame(timeoutMs?: number): Promise<string>;
  /** The next frame parsed as JSON. */
  nextJson<T = unknown>(timeoutMs?: number): Promise<T>;
  send(data: string | Buffer | object): void;
  readonly closed: Promise<CloseInfo>;
  close(code?: number, reason?: string): Promise<CloseInfo>;
}

export function webSocketUrl(wsUrl: string, token: string | undefined): string {
  return token === undefined ? wsUrl : `${wsUrl}?token=${encodeURIComponent(token)}`;
}

export function connectWebSocket(wsUrl: string, token?: string): Promise<WsTestClient> {
  const socket = new WebSocket(webSocketUrl(wsUrl, token));
  const frames: string[] = [];
  const waiters: ((frame: string) => void)[] = [];
  socket.on("message", (data, isBinary) => {
    const frame = isBinary ? Buffer.from(data as Buffer).toString("base64") : data.toString();
    const waiter = waiters.shift();
    if (waiter) waiter(frame);
    else frames.push(frame);
  });
  const closed = new Promise<CloseInfo>((resolve) => socket.once("close", (code, reason) => resolve({ code, reason: reason.toString() })));

  const nextFrame = (timeoutMs = 5000): Promise<string> => {
    const queued = frames.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(onFrame), 1);
        reject(new Error(`No WebSocket frame within ${timeoutMs} ms`));
      }, timeoutMs);
      const onFrame = (frame: string): void => {
        clearTimeout(timer);
        resolve(frame);
      };
      waiters.push(onFrame);
    });
  };

  const client: WsTestClient = {
    socket,
    nextFrame,
    nextJson: async <T>(timeoutMs?: number) => JSON.parse(await nextFrame(timeoutMs)) as T,
    send: (data) => socket.send(typeof data === "string" || Buffer.isBuffer(data) ? data : JSON.stringify(data)),
    closed,
    close: (code = 1000, reason = "") => {
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) socket.close(code, reason);
      return closed;
    },
  };

  return new Promise((resolve, reject) => {
    socket.once("open", () => {
      // Later failures surface as a close (see `closed`), not as an unhandled 'error' event.
      socket.on("error", () => undefined);
      resolve(client);
    });
    socket.once("unexpected-response", (_req, res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        reject(new WebSocketRejected(res.statusCode ?? 0, Buffer.concat(chunks).toString("utf8")));
        socket.terminate();
      });
    });
    socket.once("error", reject);
  });
}
