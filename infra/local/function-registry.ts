import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Context } from "aws-lambda";
import { lambdaContext } from "./sqs-lane-event.js";
import { FUNCTION_NAMES } from "../api-routes.js";
import type { FunctionName } from "../api-routes.js";
import { LOCAL_ACCOUNT_ID } from "./http-api-event.js";

/**
 * A Lambda handler as the local stack calls it. The event parameter is `never` so a handler
 * typed for any event (APIGatewayProxyEventV2, SQSEvent, …) can be passed as an override.
 */
export type LambdaHandler = (event: never, context: Context) => unknown;

export type HandlerOverrides = Partial<Record<FunctionName, LambdaHandler>>;

/** A handler module that does not load (missing, throws at module scope, exports no `handler`). */
class FunctionLoadError extends Error {
  constructor(
    readonly functionName: FunctionName,
    readonly modulePath: string,
    options?: { cause?: unknown },
  ) {
    const cause = options?.cause instanceof Error ? `: ${options.cause.message}` : "";
    super(`Function '${functionName}' (${modulePath}) failed to load${cause}`, options);
  }
}

/** Lambda's "Task timed out": the caller stops waiting; the handler's promise cannot be cancelled. */
export class FunctionTimedOut extends Error {
  constructor(
    readonly functionName: FunctionName,
    readonly timeoutMs: number,
  ) {
    super(`Function '${functionName}' timed out after ${timeoutMs} ms`);
  }
}

type AnyHandler = (event: unknown, context: Context) => unknown;

/** JSON round trip, as Lambda serializes events and results (drops undefined, Dates become strings). */
const serialized = (value: unknown): unknown => (value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown));

interface FunctionRegistryOptions {
  overrides?: HandlerOverrides | undefined;
  region: string;
  /** Folder holding `<name>/handler.ts`; default: the repository's `functions/`. */
  functionsDir?: URL | undefined;
}

/**
 * Loads each function's `handler` export on first use (or all at once with `preload`), after the
 * local stack has set the environment the handlers read at module scope. One module instance per
 * function serves every invocation, like one warm container that takes concurrent requests.
 */
export class FunctionRegistry {
  private readonly loaded = new Map<FunctionName, Promise<AnyHandler>>();
  private readonly functionsDir: URL;

  constructor(private readonly options: FunctionRegistryOptions) {
    this.functionsDir = options.functionsDir ?? new URL("../../functions/", import.meta.url);
  }

  modulePath(name: FunctionName): string {
    return fileURLToPath(new URL(`${name}/handler.ts`, this.functionsDir));
  }

  /** Loads every function that is not overridden; rejects with all failures at once. */
  async preload(names: readonly FunctionName[] = FUNCTION_NAMES): Promise<void> {
    const results = await Promise.allSettled(names.map((name) => this.handler(name)));
    const failures = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1)
      throw new AggregateError(failures, failures.map((f) => (f instanceof Error ? f.message : String(f))).join("\n"));
  }

  handler(name: FunctionName): Promise<AnyHandler> {
    let pending = this.loaded.get(name);
    if (pending === undefined) {
      pending = this.load(name);
      this.loaded.set(name, pending);
    }
    return pending;
  }

  private async load(name: FunctionName): Promise<AnyHandler> {
    const override = this.options.overrides?.[name];
    if (override !== undefined) return override as AnyHandler;
    const path = this.modulePath(name);
    if (!existsSync(path)) throw new FunctionLoadError(name, path, { cause: new Error("module not found") });
    let module: { handler?: unknown };
    try {
      module = (await import(new URL(`${name}/handler.ts`, this.functionsDir).href)) as { handler?: unknown };
    } catch (error) {
      throw new FunctionLoadError(name, path, { cause: error });
    }
    if (typeof module.handler !== "function")
      throw new FunctionLoadError(name, path, { cause: new Error("no exported function 'handler'") });
    return module.handler as AnyHandler;
  }

  /**
   * Invokes `name` with a serialized copy of `event` and returns a serialized copy of its result,
   * so neither side can share objects with the other (as across a real Lambda invocation).
   */
  async invoke(name: FunctionName, event: unknown, options: { timeoutMs: number; context?: Context }): Promise<unknown> {
    const handler = await this.handler(name);
    const context =
      options.context ??
      lambdaContext(name, `arn:aws:lambda:${this.options.region}:${LOCAL_ACCOUNT_ID}:function:${name}`, options.timeoutMs);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new FunctionTimedOut(name, options.timeoutMs)), options.timeoutMs);
      timer.unref();
    });
    try {
      const result = await Promise.race([Promise.resolve().then(() => handler(serialized(event), context)), timeout]);
      return serialized(result);
    } finally {
      clearTimeout(timer);
    }
  }
}
