import { SkillsSubscriptionError } from "./errors.js";
import type { ClientFrame, ServerFrame, SubscriptionFrame } from "./types.js";

/** What the client needs of a WebSocket: the browser's and the `ws` package's both fit. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface SubscriptionOptions {
  /** `ws://host/ws`; the token is added as `?token=`. */
  url: string;
  token: string | (() => string | Promise<string>);
  /** Subscribed on every (re)connect. More can be added with `subscribe()`. */
  processIds?: string[];
  WebSocket?: WebSocketConstructor;
  /** Reconnects in a row before giving up. Default 8. */
  maxReconnectAttempts?: number;
  /** First pause before a reconnect, doubled per attempt up to `maxReconnectDelayMs`. Defaults 250 ms, 5 000 ms. */
  reconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
  /** Frames kept while nobody reads; the oldest are dropped beyond it. Default 1 000. */
  bufferSize?: number;
}

/**
 * A live subscription: iterate it for frames (`for await (const frame of sub)`), `send` frames of
 * your own, `close()` when done. Service frames arrive as the service sent them; `connection`
 * frames say when the socket opened, dropped (and is being reopened) or closed for good.
 */
export interface Subscription extends AsyncIterable<SubscriptionFrame> {
  /** Resolves once the first connection is open and its subscriptions are sent. */
  readonly ready: Promise<void>;
  /** Sends a frame now; throws when the socket is not open. */
  send(frame: ClientFrame): void;
  /** Adds a process to the subscriptions, now and on every reconnect. */
  subscribe(processId: string): void;
  /** The next frame that matches (frames read by the iterator are not seen here twice). */
  next<T extends SubscriptionFrame = SubscriptionFrame>(match: (frame: SubscriptionFrame) => boolean, timeoutMs?: number): Promise<T>;
  readonly connected: boolean;
  close(): void;
}

const OPEN = 1;
/** API.md: the service closes a socket whose token expired with 4001; a reconnect needs a new token. */
const TOKEN_EXPIRED = 4001;

let wsModule: Promise<WebSocketConstructor> | undefined;

/** The global WebSocket (browsers, Node ≥ 22), else the `ws` package, loaded only when needed. */
async function webSocketConstructor(given: WebSocketConstructor | undefined): Promise<WebSocketConstructor> {
  if (given) return given;
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (global) return global;
  // A variable specifier keeps bundlers from pulling `ws` into a browser build, where the global exists.
  const name = "ws";
  wsModule ??= import(/* @vite-ignore */ name).then((module: { WebSocket: WebSocketConstructor }) => module.WebSocket);
  return wsModule;
}

type Waiter = { match: (frame: SubscriptionFrame) => boolean; resolve: (frame: SubscriptionFrame) => void };

export function subscribe(options: SubscriptionOptions): Subscription {
  const processIds = new Set(options.processIds ?? []);
  const maxAttempts = options.maxReconnectAttempts ?? 8;
  const baseDelay = options.reconnectDelayMs ?? 250;
  const maxDelay = options.maxReconnectDelayMs ?? 5_000;
  const bufferSize = options.bufferSize ?? 1_000;

  const buffer: SubscriptionFrame[] = [];
  const readers: ((result: IteratorResult<SubscriptionFrame>) => void)[] = [];
  const waiters = new Set<Waiter>();
  let socket: WebSocketLike | undefined;
  let closedByUs = false;
  let finished = false;
  let attempt = 0;
  let failure: Error | undefined;
  let resolveReady!: () => void;
  let rejectReady!: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  ready.catch(() => undefined);

  const deliver = (frame: SubscriptionFrame): void => {
    for (const waiter of waiters) {
      if (waiter.match(frame)) {
        waiters.delete(waiter);
        waiter.resolve(frame);
        return;
      }
    }
    const reader = readers.shift();
    if (reader) reader({ value: frame, done: false });
    else {
      buffer.push(frame);
      if (buffer.length > bufferSize) buffer.shift();
    }
  };

  const finish = (error?: Error): void => {
    if (finished) return;
    finished = true;
    failure = error;
    if (error) rejectReady(error);
    for (const reader of readers.splice(0)) reader({ value: undefined, done: true });
  };

  const send = (frame: ClientFrame): void => {
    if (!socket || socket.readyState !== OPEN) throw new SkillsSubscriptionError("the WebSocket is not open");
    socket.send(JSON.stringify(frame));
  };

  const connect = async (): Promise<void> => {
    const Ctor = await webSocketConstructor(options.WebSocket);
    const token = typeof options.token === "function" ? await options.token() : options.token;
    if (closedByUs) return;
    const url = `${options.url}${options.url.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}`;
    const ws = new Ctor(url);
    socket = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      const reconnects = attempt;
      attempt = 0;
      for (const processId of processIds) ws.send(JSON.stringify({ type: "process-subscribe", processId }));
      deliver({ type: "connection", state: "open", attempt: reconnects });
      resolveReady();
    };
    ws.onmessage = (event) => {
      if (typeof event.data !== "string") return;
      try {
        const frame = JSON.parse(event.data) as ServerFrame;
        if (typeof frame === "object" && frame !== null && typeof frame.type === "string") deliver(frame);
      } catch {
        // The service sends JSON only; anything else is not a frame of this contract.
      }
    };
    // Failures surface as a close as well; the close decides what happens next.
    ws.onerror = () => undefined;
    ws.onclose = (event) => {
      if (socket === ws) socket = undefined;
      if (closedByUs) {
        deliver({ type: "connection", state: "closed", attempt, closeCode: event.code, reason: event.reason });
        finish();
        return;
      }
      const expired = event.code === TOKEN_EXPIRED && typeof options.token !== "function";
      if (expired || attempt >= maxAttempts) {
        const why = expired
          ? "the token expired (close 4001)"
          : `gave up after ${attempt} reconnect attempts${opened ? "" : " (the handshake was refused or the service is down)"}`;
        deliver({ type: "connection", state: "closed", attempt, closeCode: event.code, reason: why });
        finish(new SkillsSubscriptionError(`WebSocket subscription ended: ${why}`, event.code));
        return;
      }
      attempt += 1;
      deliver({ type: "connection", state: "reconnecting", attempt, closeCode: event.code, reason: event.reason });
      setTimeout(
        () => void connect().catch((error: unknown) => finish(error instanceof Error ? error : new Error(String(error)))),
        Math.min(baseDelay * 2 ** (attempt - 1), maxDelay),
      );
    };
  };
  void connect().catch((error: unknown) => finish(error instanceof Error ? error : new Error(String(error))));

  return {
    ready,
    get connected() {
      return socket?.readyState === OPEN;
    },
    send,
    subscribe(processId) {
      processIds.add(processId);
      if (socket?.readyState === OPEN) send({ type: "process-subscribe", processId });
    },
    next<T extends SubscriptionFrame>(match: (frame: SubscriptionFrame) => boolean, timeoutMs = 10_000): Promise<T> {
      const index = buffer.findIndex(match);
      if (index >= 0) return Promise.resolve(buffer.splice(index, 1)[0] as T);
      return new Promise<T>((resolve, reject) => {
        const waiter: Waiter = {
          match,
          resolve: (frame) => {
            clearTimeout(timer);
            resolve(frame as T);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new SkillsSubscriptionError(`no matching frame within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    close() {
      closedByUs = true;
      if (socket) socket.close(1000, "client closing");
      else finish();
    },
    [Symbol.asyncIterator]() {
      return {
        next: (): Promise<IteratorResult<SubscriptionFrame>> => {
          const frame = buffer.shift();
          if (frame) return Promise.resolve({ value: frame, done: false });
          if (finished) return failure ? Promise.reject(failure) : Promise.resolve({ value: undefined, done: true });
          return new Promise((resolve) => readers.push(resolve));
        },
        return: (): Promise<IteratorResult<SubscriptionFrame>> => {
          closedByUs = true;
          socket?.close(1000, "client closing");
          return Promise.resolve({ value: undefined, done: true });
        },
      };
    },
  };
}
