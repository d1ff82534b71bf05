import { requestFailure, SkillsTimeoutError } from "./errors.js";
import { HttpTransport, segment } from "./http-transport.js";
import type { TransportOptions } from "./http-transport.js";
import { subscribe } from "./subscription.js";
import type { Subscription, SubscriptionOptions } from "./subscription.js";
import type {
  ActivateResult,
  ActiveSkillRef,
  ClearResult,
  CompleteInput,
  CompleteResult,
  ComposeInput,
  DocumentBody,
  DocumentEntry,
  Process,
  ProcessSkillRequest,
  RequestRecord,
  SavedDocument,
  DocumentVersion,
  SkillUsageRow,
  SkillEvalsResult,
  SkillSearchResult,
  ShadowedSkill,
  SkillDetail,
  SkillProblem,
  SkillSummary,
  SpawnInput,
  Turn,
} from "./types.js";

/**
 * How a lane call (steering, compose, complete) waits for its result: first `Prefer: wait=N` on
 * the call itself, then, while the request is still QUEUED, polls of GET …/requests/{id} with a
 * growing pause, until `timeoutMs` is spent (then SkillsTimeoutError).
 */
export interface WaitOptions {
  /** Seconds for `Prefer: wait` (the service caps it at 20). Default 10. */
  preferWaitSeconds?: number;
  /** The whole wait, the first call included. Default 60 000 ms. */
  timeoutMs?: number;
  /** First pause between polls; doubled up to `maxPollIntervalMs`. Defaults 100 ms and 2 000 ms. */
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
  /** Called before each poll, e.g. to show progress. */
  onPoll?: (info: { requestId: string; attempt: number; elapsedMs: number }) => void;
  signal?: AbortSignal;
}

export const DEFAULT_WAIT = { preferWaitSeconds: 10, timeoutMs: 60_000, pollIntervalMs: 100, maxPollIntervalMs: 2_000 } as const;

export interface SkillsClientOptions extends TransportOptions {
  /** The tenant every call goes to (the token's). */
  tenant: string;
  /** `ws://…/ws`; default: the base URL's origin with ws(s) and `/ws` (the local stack's). */
  webSocketUrl?: string;
  /** A WebSocket constructor; default the global one, else the `ws` package (Node 20). */
  WebSocket?: SubscriptionOptions["WebSocket"];
  /** Defaults for every lane call. */
  wait?: WaitOptions;
}

/** A lane answer that was applied: the request's id and its result. */
export interface LaneResult<R> {
  requestId: string;
  result: R;
}

const newRequestId = (): string => globalThis.crypto.randomUUID();

/** Request and answer header of a document's permission bits, three octal digits (API.md third round). */
const FILE_MODE_HEADER = "skills-file-mode";
const fileModeOf = (value: string | null): number | undefined =>
  value !== null && /^0?[0-7]{3}$/.test(value) ? Number.parseInt(value, 8) : undefined;

/**
 * A typed client of the API.md contract, for engines, the CLI, the console and tests. Grouped as
 * the contract is: documents, skills, processes, steering, turns, tools, and `subscribe` for the
 * WebSocket. Lane calls carry a requestId the client makes up when the caller gives none, so a
 * retried call is applied once (API.md: same requestId twice → applied once).
 */
export class SkillsClient {
  readonly http: HttpTransport;
  readonly tenant: string;
  private readonly t: string;

  constructor(readonly options: SkillsClientOptions) {
    this.http = new HttpTransport(options);
    this.tenant = options.tenant;
    this.t = `/brain/${segment(options.tenant)}`;
  }

  /** The same service and tenant with another token. */
  withToken(token: SkillsClientOptions["token"]): SkillsClient {
    return new SkillsClient({ ...this.options, token });
  }

  /** GET /health */
  async health(): Promise<{ status: string }> {
    return this.http.json("GET", "/health");
  }

  /** GET /openapi.json: the service's own description of these routes. */
  async openApi(): Promise<Record<string, unknown>> {
    return this.http.json("GET", "/openapi.json");
  }

  readonly documents = {
    list: async (project: string, options: { prefix?: string } = {}): Promise<DocumentEntry[]> => {
      const body = await this.http.json<{ documents: DocumentEntry[] }>("GET", `${this.level(project)}/documents`, {
        query: { prefix: options.prefix },
      });
      return body.documents;
    },
    get: async (project: string, path: string, options: { versionId?: string } = {}): Promise<DocumentBody> => {
      const response = await this.http.send("GET", this.documentPath(project, path), { query: { versionId: options.versionId } });
      const body = new Uint8Array(await response.arrayBuffer());
      const mode = fileModeOf(response.headers.get(FILE_MODE_HEADER));
      return {
        body,
        etag: response.headers.get("etag") ?? undefined,
        contentType: response.headers.get("content-type") ?? undefined,
        ...(mode !== undefined ? { mode } : {}),
        text: () => new TextDecoder().decode(body),
      };
    },
    /**
     * Without `contentType` the service derives one from the file name. `mode` (permission bits,
     * e.g. 0o755) is kept with the document and answered on every GET of it.
     */
    put: async (
      project: string,
      path: string,
      body: Uint8Array | string,
      options: { contentType?: string; mode?: number } = {},
    ): Promise<SavedDocument> => {
      const headers: Record<string, string> = {
        ...(options.contentType ? { "content-type": options.contentType } : {}),
        ...(options.mode !== undefined ? { [FILE_MODE_HEADER]: (options.mode & 0o777).toString(8).padStart(3, "0") } : {}),
      };
      const saved = await this.http.json<Partial<SavedDocument>>("PUT", this.documentPath(project, path), {
        raw: body,
        ...(Object.keys(headers).length > 0 ? { headers } : {}),
      });
      return { path: saved.path ?? path, etag: saved.etag ?? "", warnings: Array.isArray(saved.warnings) ? saved.warnings : [] };
    },
    delete: async (project: string, path: string): Promise<void> => {
      const response = await this.http.send("DELETE", this.documentPath(project, path));
      await response.body?.cancel();
    },
    /** Newest first, each with its writer where known; a deployment that keeps no versions answers 501 VERSIONS_UNAVAILABLE. */
    versions: async (project: string, path: string): Promise<DocumentVersion[]> => {
      const body = await this.http.json<{ versions: DocumentVersion[] }>("GET", this.documentPath(project, path), {
        query: { versions: "" },
      });
      return body.versions;
    },
    /** Writes that version back as the newest, validated like a PUT. */
    restore: async (project: string, path: string, versionId: string): Promise<SavedDocument> => {
      const saved = await this.http.json<Partial<SavedDocument>>("POST", `${this.documentPath(project, path)}:restore`, {
        json: { versionId },
      });
      return { path: saved.path ?? path, etag: saved.etag ?? "", warnings: Array.isArray(saved.warnings) ? saved.warnings : [] };
    },
  };

  readonly skills = {
    /** The effective list (cascade dedup, disabled removed, sorted by name). */
    list: async (options: { projectId?: string } = {}): Promise<SkillSummary[]> => {
      const body = await this.http.json<{ skills: SkillSummary[] }>("GET", `${this.t}/skills/effective`, {
        query: { projectId: options.projectId },
      });
      return body.skills;
    },
    /** The effective list and every document an inner level hides. */
    listWithShadowed: async (options: { projectId?: string } = {}): Promise<{ skills: SkillSummary[]; shadowed: ShadowedSkill[] }> =>
      this.http.json("GET", `${this.t}/skills/effective`, { query: { projectId: options.projectId, includeShadowed: true } }),
    get: async (name: string, options: { projectId?: string } = {}): Promise<SkillDetail> =>
      this.http.json("GET", `${this.t}/skills/effective/${segment(name)}`, { query: { projectId: options.projectId } }),
    problems: async (options: { projectId?: string } = {}): Promise<SkillProblem[]> => {
      const body = await this.http.json<{ problems: SkillProblem[] }>("GET", `${this.t}/skills/problems`, {
        query: { projectId: options.projectId },
      });
      return body.problems;
    },
    usage: async (options: { projectId?: string; days?: number; name?: string } = {}): Promise<SkillUsageRow[]> =>
      (await this.skills.usageReport(options)).usage,
    /** The rows and whether the service cut them (at 10 000 rows, the oldest days are left out). */
    usageReport: async (
      options: { projectId?: string; days?: number; name?: string } = {},
    ): Promise<{ usage: SkillUsageRow[]; truncated: boolean }> => {
      const body = await this.http.json<{ usage: SkillUsageRow[]; truncated?: boolean }>("GET", `${this.t}/skills/usage`, {
        query: options,
      });
      return { usage: body.usage, truncated: body.truncated === true };
    },
    /** Skills ranked by relevance to `query` (API.md "Catalog at scale"), best first; `limit` 1..20 (default 5). */
    search: async (query: string, options: { projectId?: string; limit?: number } = {}): Promise<SkillSearchResult> =>
      this.http.json("GET", `${this.t}/skills/search`, { query: { projectId: options.projectId, q: query, limit: options.limit } }),
    evals: async (name: string, options: { projectId?: string } = {}): Promise<SkillEvalsResult> =>
      this.http.json("GET", `${this.t}/skills/effective/${segment(name)}/evals`, { query: { projectId: options.projectId } }),
    active: async (processId: string): Promise<ActiveSkillRef[]> => {
      const body = await this.http.json<{ activeSkills: ActiveSkillRef[] }>("GET", `${this.t}/skills/active`, { query: { processId } });
      return body.activeSkills;
    },
  };

  readonly processes = {
    spawn: async (sessionId: string, input: SpawnInput): Promise<Process> =>
      this.http.json("POST", `${this.t}/sessions/${segment(sessionId)}/processes`, { json: input }),
    list: async (sessionId: string): Promise<Process[]> => {
      const body = await this.http.json<{ processes: Process[] }>("GET", `${this.t}/sessions/${segment(sessionId)}/processes`);
      return body.processes;
    },
    get: async (processId: string): Promise<Process> => this.http.json("GET", this.processPath(processId)),
    /** GET …/requests/{requestId}: a lane request's status, result or error, as stored. */
    request: async <R = unknown>(processId: string, requestId: string): Promise<RequestRecord<R>> =>
      this.http.json("GET", `${this.processPath(processId)}/requests/${segment(requestId)}`),
    /** The Turn that would be composed now, changing nothing. */
    composition: async (processId: string, options: { message?: string; explain?: "all" } = {}): Promise<Turn> =>
      this.http.json("GET", `${this.processPath(processId)}/composition`, {
        query: { message: options.message, explain: options.explain },
      }),
  };

  readonly steering = {
    /** POST …/skill, waited: the applied result, or the request's error thrown as a typed class. */
    send: async <R = ActivateResult | ClearResult>(
      processId: string,
      request: ProcessSkillRequest,
      wait: WaitOptions = {},
    ): Promise<LaneResult<R>> => this.lane<R>(processId, "/skill", { ...request, requestId: request.requestId ?? newRequestId() }, wait),
    /** POST …/skill without waiting: 202 QUEUED (or the stored status of a repeated requestId). */
    enqueue: async (processId: string, request: ProcessSkillRequest): Promise<RequestRecord> =>
      this.http.json("POST", `${this.processPath(processId)}/skill`, {
        json: { ...request, requestId: request.requestId ?? newRequestId() },
      }),
    activate: async (
      processId: string,
      skillName: string,
      options: { args?: string; oneShot?: boolean; requestId?: string } & WaitOptions = {},
    ): Promise<ActivateResult> => {
      const { args, oneShot, requestId, ...wait } = options;
      const request: ProcessSkillRequest = {
        command: "ACTIVATE",
        skillName,
        ...(args === undefined ? {} : { args }),
        ...(oneShot ? { oneShot } : {}),
        ...(requestId ? { requestId } : {}),
      };
      return (await this.steering.send<ActivateResult>(processId, request, wait)).result;
    },
    clear: async (processId: string, skillName: string, wait: WaitOptions = {}): Promise<ClearResult> =>
      (await this.steering.send<ClearResult>(processId, { command: "CLEAR", skillName }, wait)).result,
    clearAll: async (processId: string, wait: WaitOptions = {}): Promise<ClearResult> =>
      (await this.steering.send<ClearResult>(processId, { command: "CLEAR_ALL" }, wait)).result,
    /** Waits for a request sent earlier (polls GET …/requests/{id}). */
    wait: async <R = unknown>(processId: string, requestId: string, wait: WaitOptions = {}): Promise<R> =>
      this.poll<R>(processId, requestId, wait, Date.now()),
  };

  readonly turns = {
    /** POST …/turns, waited: the composed Turn (it consumes `pending`). */
    compose: async (processId: string, input: ComposeInput = {}, wait: WaitOptions = {}): Promise<Turn> =>
      (await this.lane<Turn>(processId, "/turns", { ...input, requestId: input.requestId ?? newRequestId() }, wait)).result,
    /** POST …/turns/{turnId}/complete, waited. */
    complete: async (processId: string, turnId: string, input: CompleteInput, wait: WaitOptions = {}): Promise<CompleteResult> =>
      (
        await this.lane<CompleteResult>(
          processId,
          `/turns/${segment(turnId)}/complete`,
          { ...input, requestId: input.requestId ?? newRequestId() },
          wait,
        )
      ).result,
    /** A Turn as it was composed, `activation` included (kept ≥ 24 h). */
    get: async (processId: string, turnId: string): Promise<Turn> =>
      this.http.json("GET", `${this.processPath(processId)}/turns/${segment(turnId)}`),
  };

  readonly tools = {
    /** POST …/tools/{toolName}: the tool's `result`. */
    call: async <R = unknown>(processId: string, toolName: string, args: Record<string, unknown> = {}): Promise<R> => {
      const body = await this.http.json<{ result: R }>("POST", `${this.processPath(processId)}/tools/${segment(toolName)}`, {
        json: { args },
      });
      return body.result;
    },
  };

  /** A WebSocket subscription to processes' frames, reconnecting and re-subscribing when the socket drops. */
  subscribe(
    options: Omit<SubscriptionOptions, "url" | "token" | "WebSocket"> & Partial<Pick<SubscriptionOptions, "WebSocket">> = {},
  ): Subscription {
    return subscribe({
      url: this.options.webSocketUrl ?? defaultWebSocketUrl(this.http.baseUrl),
      token: async () => (await this.http.token()) ?? "",
      ...(this.options.WebSocket ? { WebSocket: this.options.WebSocket } : {}),
      ...options,
    });
  }

  private level(project: string): string {
    return `${this.t}/projects/${segment(project)}`;
  }

  private documentPath(project: string, path: string): string {
    // A document path keeps its slashes; each segment is encoded once.
    return `${this.level(project)}/documents/${path.split("/").map(segment).join("/")}`;
  }

  private processPath(processId: string): string {
    return `${this.t}/processes/${segment(processId)}`;
  }

  private async lane<R>(processId: string, suffix: string, body: Record<string, unknown>, options: WaitOptions): Promise<LaneResult<R>> {
    const wait = { ...DEFAULT_WAIT, ...this.options.wait, ...options };
    const started = Date.now();
    const seconds = Math.max(0, Math.min(20, Math.floor(Math.min(wait.preferWaitSeconds, wait.timeoutMs / 1000))));
    const answer = await this.http.json<RequestRecord<R>>("POST", `${this.processPath(processId)}${suffix}`, {
      json: body,
      ...(seconds > 0 ? { headers: { prefer: `wait=${seconds}` } } : {}),
      ...(wait.signal ? { signal: wait.signal } : {}),
    });
    if (answer.status === "DONE") return { requestId: answer.requestId, result: answer.result as R };
    if (answer.status === "FAILED") throw requestFailure(answer.error, answer.requestId);
    return { requestId: answer.requestId, result: await this.poll<R>(processId, answer.requestId, wait, started) };
  }

  private async poll<R>(processId: string, requestId: string, options: WaitOptions, started: number): Promise<R> {
    const wait = { ...DEFAULT_WAIT, ...this.options.wait, ...options };
    let interval = wait.pollIntervalMs;
    for (let attempt = 1; ; attempt += 1) {
      const elapsedMs = Date.now() - started;
      if (elapsedMs >= wait.timeoutMs) throw new SkillsTimeoutError(requestId, elapsedMs);
      wait.signal?.throwIfAborted();
      await this.http.sleep(Math.min(interval, Math.max(0, wait.timeoutMs - elapsedMs)));
      interval = Math.min(interval * 2, wait.maxPollIntervalMs);
      wait.onPoll?.({ requestId, attempt, elapsedMs: Date.now() - started });
      const record = await this.processes.request<R>(processId, requestId);
      if (record.status === "DONE") return record.result as R;
      if (record.status === "FAILED") throw requestFailure(record.error, requestId);
    }
  }
}

/** The local stack's layout: WebSocket at `/ws` on the HTTP origin. */
export function defaultWebSocketUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.pathname = "/ws";
  url.search = "";
  return url.href;
}
