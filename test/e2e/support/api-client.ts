import { Agent, request as httpRequest } from "node:http";
import * as z from "zod/mini";
import * as contract from "../../../contract/index.js";
import type { WsTestClient } from "./ws-client.js";

/**
 * A tiny typed client of the API.md contract for the end-to-end tests. Requests go out through
 * node:http with the path exactly as given (fetch would normalize `..`, `%2e%2e` and `\`, which
 * the traversal tests must send verbatim). Every answer is checked against the contract
 * (contract/) into `contractLedger`; the types below are what the tests read of those answers.
 */

export type ApiError = { error: contract.ApiErrorBody };
export type ActiveSkillRef = contract.ActiveSkillRef;
export type SkillSummary = contract.SkillSummary;
/** A skill document an inner level hides: `shadowedBy` is the level that answers for the name. */
export type ShadowedSkill = contract.ShadowedSkill;
export type SkillDetail = contract.SkillDetail;
export type PendingMessage = contract.PendingMessage;
export type Process = contract.Process;
export type Turn = contract.Turn;
/** API.md "Explainable activation". */
export type ActivationEntry = contract.ActivationEntry;
export type ActivateResult = contract.ActivateResult;
export type LaneAnswer<R = unknown> = contract.RequestRecord<R>;
export type ProcessSkillRequest = contract.ProcessSkillRequest;

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  json: T;
}

export type RequestBody = string | Buffer | Record<string, unknown> | unknown[];

export interface RequestOptions {
  body?: RequestBody;
  headers?: Record<string, string>;
  /** `Prefer: wait=N` (seconds). */
  wait?: number;
  /** The contract's schema of a 2xx answer (a lane call's result, for lane routes): checked into `contractLedger`. */
  answer?: Answer;
}

/** What a route answers on success: a plain schema, or a lane call's (200 `doneOf(result)`, 202 `Queued`). */
type Answer = { schema: z.core.$ZodType } | { lane: z.core.$ZodType };

/**
 * Every answer this helper received, checked against the contract (contract/): 2xx bodies with
 * the route's schema, error bodies with the error shape and the code's status. Recorded, never
 * thrown, so tests of odd inputs run as before; test/e2e/contract-answers.test.ts asserts the
 * ledger of a whole local-stack flow is clean.
 */
export const contractLedger = { checked: [] as string[], violations: [] as string[] };

function checkAnswer(method: string, path: string, status: number, json: unknown, answer: Answer | undefined): void {
  const what = `${method} ${path.split("?")[0]} → ${status}`;
  const record = (schema: z.core.$ZodType): void => {
    const parsed = z.safeParse(schema, json);
    contractLedger.checked.push(what);
    if (!parsed.success)
      contractLedger.violations.push(`${what}: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  };
  if (status >= 400) {
    if (typeof json !== "object" || json === null) return;
    record(contract.ApiErrorBody);
    const code = (json as { error?: { code?: unknown } }).error?.code;
    if (!contract.isErrorCode(code)) contractLedger.violations.push(`${what}: unknown error code ${String(code)}`);
    else if (contract.STATUS_BY_CODE[code] !== status)
      contractLedger.violations.push(`${what}: ${code} is ${contract.STATUS_BY_CODE[code]} in the contract`);
    return;
  }
  if (!answer || status === 204 || status === 304) return;
  // The metadata view of a process (a non-owner admin) is a narrower answer than `Process`.
  if (typeof json === "object" && json !== null && "withheld" in json) return;
  if ("schema" in answer) record(answer.schema);
  else record(status === 202 ? contract.Queued : contract.doneOf(answer.lane));
}

/**
 * `Prefer: wait=N` for the tests' lane calls: generous, so a loaded machine answers 200 rather
 * than 202; a healthy lane answers in a fraction of a second whatever N is.
 */
export const LANE_WAIT_SECONDS = 15;

/** The API.md error of a response, if its body is one. */
export function errorOf(response: ApiResponse<unknown>): ApiError["error"] | undefined {
  const body = jsonOrUndefined(response.text) as Partial<ApiError> | undefined;
  return typeof body === "object" && body !== null && typeof body.error === "object" ? body.error : undefined;
}

const agent = new Agent({ keepAlive: true });

const jsonOrUndefined = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

const enc = encodeURIComponent;
/** A document path keeps its slashes; each segment is encoded once. */
const encPath = (path: string): string => path.split("/").map(enc).join("/");

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly token?: string,
  ) {}

  /** The same stack with another token (undefined: no Authorization header). */
  as(token: string | undefined): ApiClient {
    return new ApiClient(this.baseUrl, token);
  }

  /** One request with `path` sent byte for byte as given. */
  send<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const url = new URL(this.baseUrl);
    const headers: Record<string, string> = {};
    if (this.token !== undefined) headers.authorization = `Bearer ${this.token}`;
    if (options.wait !== undefined) headers.prefer = `wait=${options.wait}`;
    let payload: Buffer | undefined;
    if (options.body !== undefined) {
      const isRaw = typeof options.body === "string" || Buffer.isBuffer(options.body);
      payload = isRaw ? Buffer.from(options.body as string | Buffer) : Buffer.from(JSON.stringify(options.body));
      if (!isRaw) headers["content-type"] = "application/json";
      headers["content-length"] = String(payload.byteLength);
    }
    Object.assign(headers, options.headers);
    return new Promise((resolve, reject) => {
      const req = httpRequest({ agent, hostname: url.hostname, port: url.port, method, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const body = Buffer.concat(chunks);
          const text = body.toString("utf8");
          const json = jsonOrUndefined(text);
          checkAnswer(method, path, res.statusCode ?? 0, json, options.answer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text, json: json as T });
        });
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(payload);
    });
  }

  // Documents

  putDocument(tenant: string, project: string, path: string, body: string | Buffer, contentType = "text/markdown") {
    return this.send<{ path: string; etag: string; warnings: { path: string; line?: number; message: string }[] }>(
      "PUT",
      `/brain/${enc(tenant)}/projects/${enc(project)}/documents/${encPath(path)}`,
      { body, headers: { "content-type": contentType }, answer: { schema: contract.SavedDocument } },
    );
  }

  getDocument(tenant: string, project: string, path: string) {
    return this.send("GET", `/brain/${enc(tenant)}/projects/${enc(project)}/documents/${encPath(path)}`);
  }

  deleteDocument(tenant: string, project: string, path: string) {
    return this.send("DELETE", `/brain/${enc(tenant)}/projects/${enc(project)}/documents/${encPath(path)}`);
  }

  listDocuments(tenant: string, project: string, prefix?: string) {
    const query = prefix === undefined ? "" : `?prefix=${enc(prefix)}`;
    return this.send<{ documents: { path: string; etag: string; size: number }[] }>(
      "GET",
      `/brain/${enc(tenant)}/projects/${enc(project)}/documents${query}`,
      {
        answer: { schema: contract.DocumentList },
      },
    );
  }

  // Skills

  effective(tenant: string, projectId?: string) {
    const query = projectId === undefined ? "" : `?projectId=${enc(projectId)}`;
    return this.send<{ skills: SkillSummary[] }>("GET", `/brain/${enc(tenant)}/skills/effective${query}`, {
      answer: { schema: contract.EffectiveSkills },
    });
  }

  /** The effective list with `includeShadowed=true` (API.md "Explainable activation"). */
  effectiveWithShadowed(tenant: string, projectId?: string) {
    const query = projectId === undefined ? "" : `&projectId=${enc(projectId)}`;
    return this.send<{ skills: SkillSummary[]; shadowed: ShadowedSkill[] }>(
      "GET",
      `/brain/${enc(tenant)}/skills/effective?includeShadowed=true${query}`,
      {
        answer: { schema: contract.EffectiveSkills },
      },
    );
  }

  effectiveSkill(tenant: string, name: string, projectId?: string) {
    const query = projectId === undefined ? "" : `?projectId=${enc(projectId)}`;
    return this.send<SkillDetail>("GET", `/brain/${enc(tenant)}/skills/effective/${enc(name)}${query}`, {
      answer: { schema: contract.SkillDetail },
    });
  }

  problems(tenant: string, projectId?: string) {
    const query = projectId === undefined ? "" : `?projectId=${enc(projectId)}`;
    return this.send<{
      problems: { name: string; source: string; path: string; line?: number; message: string; severity: "error" | "warning" | "info" }[];
    }>("GET", `/brain/${enc(tenant)}/skills/problems${query}`, {
      answer: { schema: contract.SkillProblems },
    });
  }

  active(tenant: string, processId: string) {
    return this.send<{ activeSkills: ActiveSkillRef[] }>("GET", `/brain/${enc(tenant)}/skills/active?processId=${enc(processId)}`, {
      answer: { schema: contract.ActiveSkills },
    });
  }

  // Processes and steering

  spawn(tenant: string, sessionId: string, body: { recipe: string; projectId: string; name?: string }) {
    return this.send<Process>("POST", `/brain/${enc(tenant)}/sessions/${enc(sessionId)}/processes`, {
      body,
      answer: { schema: contract.Process },
    });
  }

  process(tenant: string, processId: string) {
    return this.send<Process>("GET", `/brain/${enc(tenant)}/processes/${enc(processId)}`, { answer: { schema: contract.Process } });
  }

  steer(tenant: string, processId: string, request: ProcessSkillRequest, wait?: number) {
    return this.send<LaneAnswer<ActivateResult>>("POST", `/brain/${enc(tenant)}/processes/${enc(processId)}/skill`, {
      body: { ...request },
      ...(wait === undefined ? {} : { wait }),
      answer: { lane: contract.ActivateResult },
    });
  }

  requestStatus(tenant: string, processId: string, requestId: string) {
    return this.send<LaneAnswer>("GET", `/brain/${enc(tenant)}/processes/${enc(processId)}/requests/${enc(requestId)}`, {
      answer: { schema: contract.RequestRecord },
    });
  }

  compose(tenant: string, processId: string, body: { message?: string; requestId?: string } = {}, wait?: number) {
    return this.send<LaneAnswer<Turn> & { turnId: string }>("POST", `/brain/${enc(tenant)}/processes/${enc(processId)}/turns`, {
      body,
      ...(wait === undefined ? {} : { wait }),
      answer: { lane: contract.Turn },
    });
  }

  complete(tenant: string, processId: string, turnId: string, body: { output: string; final?: boolean }, wait?: number) {
    return this.send<LaneAnswer<{ activeSkills: ActiveSkillRef[]; [field: string]: unknown }>>(
      "POST",
      `/brain/${enc(tenant)}/processes/${enc(processId)}/turns/${enc(turnId)}/complete`,
      { body, ...(wait === undefined ? {} : { wait }), answer: { lane: contract.CompleteResult } },
    );
  }

  composition(tenant: string, processId: string, message?: string, options: { explain?: "all" } = {}) {
    const params = [
      ...(message === undefined ? [] : [`message=${enc(message)}`]),
      ...(options.explain ? [`explain=${options.explain}`] : []),
    ];
    const query = params.length === 0 ? "" : `?${params.join("&")}`;
    return this.send<Turn>("GET", `/brain/${enc(tenant)}/processes/${enc(processId)}/composition${query}`, {
      answer: { schema: contract.Turn },
    });
  }

  /** A composed Turn, as stored with its compose request. */
  turn(tenant: string, processId: string, turnId: string) {
    return this.send<Turn>("GET", `/brain/${enc(tenant)}/processes/${enc(processId)}/turns/${enc(turnId)}`, {
      answer: { schema: contract.Turn },
    });
  }

  tool(tenant: string, processId: string, toolName: string, args: Record<string, unknown> = {}) {
    return this.send<{ result: unknown }>("POST", `/brain/${enc(tenant)}/processes/${enc(processId)}/tools/${enc(toolName)}`, {
      body: { args },
      answer: { schema: contract.ToolResult },
    });
  }
}

/** A SKILL.md from frontmatter lines and a body. */
export const skillMd = (frontmatter: string, body = ""): string => `---\n${frontmatter.trim()}\n---\n${body}`;

/**
 * Every JSON frame a WebSocket client receives, kept in order, so a test can wait for the frame
 * it cares about while others (results of other requests, subscriptions) arrive in between.
 */
export class FrameInbox {
  readonly frames: Record<string, unknown>[] = [];
  private readonly taken = new Set<number>();

  constructor(readonly client: WsTestClient) {
    client.socket.on("message", (data, isBinary) => {
      if (isBinary) return;
      const parsed = jsonOrUndefined(data.toString());
      if (typeof parsed === "object" && parsed !== null) this.frames.push(parsed as Record<string, unknown>);
    });
  }

  send(frame: Record<string, unknown> | string): void {
    this.client.send(frame);
  }

  /** The first frame not taken yet that matches; fails after `timeoutMs`. */
  async next<T = Record<string, unknown>>(match: (frame: Record<string, unknown>) => boolean, timeoutMs = 5000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.frames.findIndex((frame, i) => !this.taken.has(i) && match(frame));
      if (index >= 0) {
        this.taken.add(index);
        return this.frames[index] as T;
      }
      if (Date.now() >= deadline)
        throw new Error(`No matching WebSocket frame within ${timeoutMs} ms; received: ${JSON.stringify(this.frames).slice(0, 2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Frames of `type` received so far (taken or not). */
  ofType(type: string): Record<string, unknown>[] {
    return this.frames.filter((frame) => frame.type === type);
  }
}

export const ofType =
  (type: string, extra: Record<string, unknown> = {}) =>
  (frame: Record<string, unknown>): boolean =>
    frame.type === type && Object.entries(extra).every(([key, value]) => frame[key] === value);
