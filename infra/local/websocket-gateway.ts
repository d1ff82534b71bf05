import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import { WebSocketServer } from "ws";
import type { RawData, WebSocket } from "ws";
import { WEBSOCKET_ROUTES, WEBSOCKET_TOKEN_QUERY_PARAMETER } from "../api-routes.js";
import { tokenExpiryFromEvent } from "../../shared/auth/authorizer-context.js";
import { TOKEN_HINT } from "../../shared/auth/auth-errors.js";
import { TOKEN_EXPIRED_CLOSE_CODE } from "../../shared/app/ws-lifecycle.js";
import { authorizerFailure, webSocketAuthorizerOutcome } from "./authorizer-outcome.js";
import type { AuthorizerOutcome } from "./authorizer-outcome.js";
import type { ConnectionRegistry, LocalConnection } from "./connection-registry.js";
import type { FunctionRegistry } from "./function-registry.js";
import type { LocalStackLogger } from "./local-logger.js";
import {
  connectEvent,
  disconnectEvent,
  handshakeFacts,
  messageEvent,
  newConnectionId,
  webSocketAuthorizerEvent,
  webSocketMethodArn,
} from "./websocket-events.js";
import type { ConnectionFacts } from "./websocket-events.js";

/** API Gateway WebSocket quotas the local gateway enforces. */
export const WEBSOCKET_LIMITS = {
  /** Message payload size; a larger message closes the connection with 1009. */
  maxMessageBytes: 128 * 1024,
  idleTimeoutMs: 10 * 60 * 1000,
  maxConnectionMs: 2 * 60 * 60 * 1000,
} as const;

/**
 * Close reasons (at most 123 bytes): a client that logs them learns why the socket went and what
 * keeps it (issue 30: a watcher vanished silently after 10 idle minutes). Any frame counts as
 * activity, so re-sending `process-subscribe` every few minutes is the ping.
 */
export const IDLE_CLOSE_REASON = "Idle timeout: no frame for 10 minutes; send any frame (e.g. process-subscribe again) every few minutes";
export const MAX_DURATION_CLOSE_REASON = "Connection open for 2 hours, the most API Gateway allows; reconnect";

export const WEBSOCKET_PATH = "/ws";

interface WebSocketGatewayOptions {
  functions: FunctionRegistry;
  connections: ConnectionRegistry;
  region: string;
  logger: LocalStackLogger;
  /** Lambda timeout for the `$connect`, `$default`, `$disconnect` functions and the authorizer. */
  functionTimeoutMs: number;
  /**
   * Send a `$default` function's response `body` back to the client, as a route with a route
   * response (`returnResponse: true` in CDK) does.
   */
  returnResponse: boolean;
  idleTimeoutMs?: number | undefined;
  maxConnectionMs?: number | undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function rawDataBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** Header names and values safe to copy into a raw response (no CR/LF smuggling). */
const SAFE_HEADER_NAME = /^[A-Za-z0-9-]{1,64}$/;
const SAFE_HEADER_VALUE = /^[\x20-\x7e]{0,256}$/;

function extraHeaderLines(headers: Record<string, unknown>): string {
  return Object.entries(headers)
    .filter(([name]) => name.toLowerCase() !== "content-type" && name.toLowerCase() !== "content-length" && SAFE_HEADER_NAME.test(name))
    .filter(
      (entry): entry is [string, string | number] =>
        (typeof entry[1] === "string" || typeof entry[1] === "number") && SAFE_HEADER_VALUE.test(String(entry[1])),
    )
    .map(([name, value]) => `${name}: ${String(value)}\r\n`)
    .join("");
}

/** Refuses a handshake with a plain HTTP response, as API Gateway does before upgrading (`headers`: e.g. a 429's Retry-After). */
function rejectHandshake(socket: Duplex, statusCode: number, body: unknown, headers: Record<string, unknown> = {}): void {
  if (socket.destroyed) return;
  const text = typeof body === "string" ? body : JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode] ?? ""}\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      extraHeaderLines(headers) +
      `Content-Length: ${Buffer.byteLength(text)}\r\n` +
      "Connection: close\r\n\r\n" +
      text,
  );
}

/** setTimeout's ceiling (~24.8 days); a later expiry is beyond the 2-hour connection limit anyway. */
const MAX_TIMER_MS = 2_147_483_647;

/** The token's expiry in ms from the authorizer context (`tokenExpiresAt`, epoch seconds). */
function tokenExpiryMs(authorizer: Record<string, unknown> | undefined): number | undefined {
  const seconds = tokenExpiryFromEvent({ requestContext: { authorizer } });
  return seconds === undefined ? undefined : seconds * 1000;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const errorBody = (code: string, message: string) => ({ error: { code, message } });

/**
 * The WebSocket API on `/ws`: the `$connect` authorizer (token from `?token=`), then the
 * `$connect` function before the upgrade completes, `$default` for every message and
 * `$disconnect` when either side closes. Messages of one connection are handled concurrently,
 * as API Gateway gives no ordering guarantee; `$disconnect` waits for those still running.
 */
export class WebSocketGateway {
  private readonly server: WebSocketServer;
  private readonly disconnects = new Set<Promise<void>>();
  private readonly idleTimeoutMs: number;
  private readonly maxConnectionMs: number;

  constructor(private readonly options: WebSocketGatewayOptions) {
    this.server = new WebSocketServer({ noServer: true, maxPayload: WEBSOCKET_LIMITS.maxMessageBytes, perMessageDeflate: false });
    this.idleTimeoutMs = options.idleTimeoutMs ?? WEBSOCKET_LIMITS.idleTimeoutMs;
    this.maxConnectionMs = options.maxConnectionMs ?? WEBSOCKET_LIMITS.maxConnectionMs;
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on("error", () => socket.destroy());
    void this.upgrade(req, socket, head).catch((error: unknown) => {
      this.options.logger.error("WebSocket handshake failed", error);
      rejectHandshake(socket, 500, errorBody("INTERNAL", "Internal error"));
    });
  }

  /**
   * Closes every connection (1001 Going Away), cuts off clients that do not finish the close
   * handshake within `graceMs`, and waits for their `$disconnect` functions.
   */
  async closeAll(graceMs = 2000): Promise<void> {
    const { connections } = this.options;
    for (const connection of connections.all()) connection.socket.close(1001, "Going away");
    const deadline = Date.now() + graceMs;
    while (connections.all().length > 0 && Date.now() < deadline) await sleep(25);
    for (const connection of connections.all()) connection.socket.terminate();
    while (this.disconnects.size > 0) await Promise.allSettled([...this.disconnects]);
    this.server.close();
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const { functions, region, functionTimeoutMs } = this.options;
    const url = new URL(req.url ?? "/", "http://local");
    if (url.pathname !== WEBSOCKET_PATH)
      return rejectHandshake(socket, 404, errorBody("NOT_FOUND", `No WebSocket endpoint at ${url.pathname}`));

    const now = new Date();
    const requestId = randomUUID();
    const facts: ConnectionFacts = {
      connectionId: newConnectionId(),
      connectedAt: now.getTime(),
      sourceIp: (req.socket.remoteAddress ?? "127.0.0.1").replace(/^::ffff:/, ""),
      userAgent: req.headers["user-agent"] ?? "",
      domainName: req.headers.host ?? "127.0.0.1",
      authorizer: undefined,
    };
    const handshake = handshakeFacts(req, facts, now, requestId);

    // The identity source is the query parameter: without it API Gateway answers 401 by itself.
    const token = handshake.queryStringParameters?.[WEBSOCKET_TOKEN_QUERY_PARAMETER];
    if (token === undefined || token === "") {
      return rejectHandshake(
        socket,
        401,
        errorBody("UNAUTHENTICATED", `Unauthenticated: the '${WEBSOCKET_TOKEN_QUERY_PARAMETER}' query parameter is missing; ${TOKEN_HINT}`),
      );
    }
    const started = Date.now();
    let outcome: AuthorizerOutcome;
    try {
      const result = await functions.invoke("authorizer", webSocketAuthorizerEvent(handshake, facts, region, now, requestId), {
        timeoutMs: functionTimeoutMs,
      });
      outcome = webSocketAuthorizerOutcome(result, webSocketMethodArn(region));
    } catch (error) {
      outcome = authorizerFailure(error);
    }
    if (outcome.kind === "unauthorized")
      return rejectHandshake(
        socket,
        401,
        errorBody(
          "UNAUTHENTICATED",
          `Unauthenticated: the token is not valid (malformed, expired or signed with another key); ${TOKEN_HINT}`,
        ),
      );
    if (outcome.kind === "forbidden") return rejectHandshake(socket, 403, errorBody("FORBIDDEN", "Forbidden"));
    if (outcome.kind === "error") {
      this.options.logger.error("WebSocket authorizer failed", outcome.error);
      return rejectHandshake(socket, 500, errorBody("INTERNAL", "Internal error"));
    }
    facts.authorizer = { ...outcome.context, principalId: outcome.principalId ?? "", integrationLatency: Date.now() - started };

    let connectResult: unknown;
    try {
      connectResult = await functions.invoke(WEBSOCKET_ROUTES.$connect, connectEvent(handshake, facts, now), {
        timeoutMs: functionTimeoutMs,
      });
    } catch (error) {
      this.options.logger.error("$connect function failed", error);
      return rejectHandshake(socket, 500, errorBody("INTERNAL", "Internal error"));
    }
    const status = isRecord(connectResult) && typeof connectResult.statusCode === "number" ? connectResult.statusCode : 200;
    if (status < 200 || status > 299) {
      const body = isRecord(connectResult) && typeof connectResult.body === "string" ? connectResult.body : "";
      const headers = isRecord(connectResult) && isRecord(connectResult.headers) ? connectResult.headers : {};
      return rejectHandshake(socket, status, body, headers);
    }
    if (socket.destroyed) {
      // The function recorded a connection the client abandoned meanwhile: API Gateway still disconnects it.
      this.trackDisconnect(this.disconnect({ ...facts }, 1006, "", new Set()));
      return;
    }
    this.server.handleUpgrade(req, socket, head, (ws) => this.open(ws, facts));
  }

  private open(ws: WebSocket, facts: ConnectionFacts): void {
    const { connections, logger } = this.options;
    const inFlight = new Set<Promise<void>>();
    let idleTimer: NodeJS.Timeout | undefined;
    const resetIdle = (): void => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => ws.close(1001, IDLE_CLOSE_REASON), this.idleTimeoutMs);
      idleTimer.unref();
    };
    const maxTimer = setTimeout(() => ws.close(1001, MAX_DURATION_CLOSE_REASON), this.maxConnectionMs);
    maxTimer.unref();
    // The socket's identity ends with its token (API.md, second round): closed with 4001 at `exp`.
    const tokenExpiresAtMs = tokenExpiryMs(facts.authorizer);
    const expired = (): boolean => tokenExpiresAtMs !== undefined && Date.now() >= tokenExpiresAtMs;
    const closeExpired = (): void => ws.close(TOKEN_EXPIRED_CLOSE_CODE, "Token expired");
    const expiryTimer =
      tokenExpiresAtMs === undefined
        ? undefined
        : setTimeout(closeExpired, Math.max(0, Math.min(tokenExpiresAtMs - Date.now(), MAX_TIMER_MS)));
    expiryTimer?.unref();
    const connection: LocalConnection = {
      ...facts,
      socket: ws,
      lastActiveAt: Date.now(),
      touch: () => {
        connection.lastActiveAt = Date.now();
        resetIdle();
      },
    };
    resetIdle();
    connections.add(connection);

    ws.on("message", (data, isBinary) => {
      // A frame after `exp` never reaches `$default`, even if it beats the timer.
      if (expired()) return closeExpired();
      connection.touch();
      const done = this.message(connection, rawDataBuffer(data), isBinary).finally(() => inFlight.delete(done));
      inFlight.add(done);
    });
    // Oversized frames (ws closes with 1009) and protocol errors arrive here; the close follows.
    ws.on("error", (error) => logger.warn(`WebSocket ${facts.connectionId}: ${error.message}`));
    ws.once("close", (code, reason) => {
      clearTimeout(idleTimer);
      clearTimeout(maxTimer);
      clearTimeout(expiryTimer);
      connections.delete(facts.connectionId);
      this.trackDisconnect(this.disconnect(facts, code, reason.toString("utf8"), inFlight));
    });
  }

  private trackDisconnect(pending: Promise<void>): void {
    const tracked = pending.finally(() => this.disconnects.delete(tracked));
    this.disconnects.add(tracked);
  }

  private async message(connection: LocalConnection, data: Buffer, isBinary: boolean): Promise<void> {
    const event = messageEvent(connection, data, isBinary, new Date());
    let result: unknown;
    try {
      result = await this.options.functions.invoke(WEBSOCKET_ROUTES.$default, event, { timeoutMs: this.options.functionTimeoutMs });
    } catch (error) {
      this.options.logger.error("$default function failed", error);
      // API Gateway's own frame when an integration fails.
      this.send(
        connection,
        JSON.stringify({
          message: "Internal server error",
          connectionId: connection.connectionId,
          requestId: event.requestContext.requestId,
        }),
      );
      return;
    }
    if (this.options.returnResponse && isRecord(result) && typeof result.body === "string" && result.body !== "") {
      this.send(connection, result.body);
    }
  }

  private send(connection: LocalConnection, text: string): void {
    if (connection.socket.readyState === connection.socket.OPEN) connection.socket.send(text);
  }

  private async disconnect(facts: ConnectionFacts, code: number, reason: string, inFlight: Set<Promise<void>>): Promise<void> {
    await Promise.allSettled([...inFlight]);
    try {
      await this.options.functions.invoke(WEBSOCKET_ROUTES.$disconnect, disconnectEvent(facts, code, reason, new Date()), {
        timeoutMs: this.options.functionTimeoutMs,
      });
    } catch (error) {
      this.options.logger.error("$disconnect function failed", error);
    }
  }
}
