/**
 * Seeded fault injection for AWS SDK clients: a middleware (like test/support/aws-request-counter.ts)
 * that fails chosen calls the way S3, DynamoDB and SQS fail, so tests can prove what the service
 * promises under those faults.
 *
 * Decisions are deterministic per item, not per call order: call n on one item (a DynamoDB key,
 * an S3 key) of one operation draws the same number in every run, however concurrent work
 * interleaves. A failing run is repeated by running it again with the same seed.
 */

import { prng } from "./seeded-random.js";

/** The seeded PRNG of every generated fixture (mulberry32); `seed` fixes the sequence of faults. */
export const seededRandom = prng;

/** FNV-1a, for turning a seed and a call's identity into a draw. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * - `throttle`: refused before sending (ProvisionedThroughputExceededException on DynamoDB,
 *   ThrottlingException / SlowDown elsewhere); nothing happened.
 * - `conflict`: ConditionalCheckFailedException before sending, as if a concurrent writer had
 *   moved the item on; use it only for writes conditional on a version, where that is possible.
 * - `lostResponse`: the call is sent and takes effect, then fails as when the response is lost
 *   and the SDK's retry finds its own write: ConditionalCheckFailedException for a conditional
 *   write, a socket reset otherwise.
 * - `unavailable`: the endpoint cannot be reached (ECONNREFUSED); nothing happened.
 */
export type FaultKind = "throttle" | "conflict" | "lostResponse" | "unavailable";

export interface FaultRule {
  kind: FaultKind;
  /** Probability per matching call, 0..1. */
  rate: number;
  /** `<Service>.<Operation>` names (e.g. `DynamoDB.PutItem`, `S3.GetObject`); every operation when absent. */
  operations?: readonly string[];
  /** Narrows the rule by the command input (e.g. only writes with a ConditionExpression). */
  when?: (input: Record<string, unknown>) => boolean;
}

export interface InjectedFault {
  operation: string;
  kind: FaultKind;
  item: string;
}

type Next = (args: { input: Record<string, unknown> }) => Promise<unknown>;
interface MiddlewareContext {
  clientName?: string;
  commandName?: string;
}
interface MiddlewareClient {
  middlewareStack: {
    add(
      middleware: (next: Next, context: MiddlewareContext) => (args: { input: Record<string, unknown> }) => Promise<unknown>,
      options: { step: "initialize"; name: string; priority: "high"; override?: boolean },
    ): void;
  };
}

const operationOf = (context: MiddlewareContext): string =>
  `${(context.clientName ?? "Unknown").replace(/Client$/, "")}.${(context.commandName ?? "Unknown").replace(/Command$/, "")}`;

/** A DynamoDB attribute value before or after marshalling (`"x"` or `{ S: "x" }`). */
const plain = (value: unknown): string => {
  if (value !== null && typeof value === "object") {
    const wrapped = value as Record<string, unknown>;
    for (const type of ["S", "N"]) if (typeof wrapped[type] === "string") return wrapped[type] as string;
  }
  return typeof value === "string" || typeof value === "number" ? String(value) : "";
};

/** Which item a call touches, so each item gets its own deterministic sequence of draws. */
export function itemOf(input: Record<string, unknown>): string {
  const keyed = (input.Key ?? input.Item) as Record<string, unknown> | undefined;
  if (keyed && typeof keyed === "object") return `${plain(keyed.pk)}|${plain(keyed.sk)}`;
  if (typeof input.Key === "string") return `${String(input.Bucket)}/${input.Key}`;
  if (typeof input.Prefix === "string") return `${String(input.Bucket)}/${input.Prefix}*`;
  if (typeof input.MessageGroupId === "string") return `${String(input.QueueUrl)}#${input.MessageGroupId}`;
  return "";
}

export const isConditionalWrite = (input: Record<string, unknown>): boolean => typeof input.ConditionExpression === "string";

/** A write conditional on the process item's `version` (the only condition a concurrent writer can break). */
export const isVersionConditionalWrite = (input: Record<string, unknown>): boolean =>
  isConditionalWrite(input) && String(input.ConditionExpression).includes("#version = :expected");

/** An error shaped like the SDK's service exceptions: name, message, `$fault`, `$metadata`. */
export function serviceError(name: string, message: string, httpStatusCode: number, extra: Record<string, unknown> = {}): Error {
  const error = new Error(message);
  error.name = name;
  return Object.assign(error, {
    $fault: httpStatusCode >= 500 ? "server" : "client",
    $metadata: { httpStatusCode, attempts: 1 },
    ...extra,
  });
}

export const conditionalCheckFailed = (): Error =>
  serviceError("ConditionalCheckFailedException", "The conditional request failed (injected)", 400);

export function throttled(operation: string): Error {
  if (operation.startsWith("DynamoDB.")) {
    return serviceError(
      "ProvisionedThroughputExceededException",
      "The level of configured provisioned throughput for the table was exceeded (injected)",
      400,
      {
        $retryable: { throttling: true },
      },
    );
  }
  if (operation.startsWith("S3.")) return serviceError("SlowDown", "Please reduce your request rate (injected)", 503);
  return serviceError("ThrottlingException", "Rate exceeded (injected)", 400, { $retryable: { throttling: true } });
}

/** What Node reports for a refused TCP connection; the SDK passes it through unchanged. */
export function connectionRefused(): Error {
  return Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1 (injected)"), { code: "ECONNREFUSED", errno: -111, syscall: "connect" });
}

const socketReset = (): Error => Object.assign(new Error("socket hang up (injected)"), { code: "ECONNRESET" });

/**
 * Instruments SDK clients with seeded faults. Rules are checked in order; the first that draws a
 * fault decides. `enabled` switches all faults off and on (e.g. an outage that ends).
 */
export class FaultInjector {
  enabled = true;
  private readonly calls = new Map<string, number>();
  private readonly log: InjectedFault[] = [];
  private readonly aliases = new Map<string, string>();

  constructor(
    private readonly seed: number,
    private readonly rules: readonly FaultRule[],
  ) {
    for (const rule of rules) {
      if (!(rule.rate >= 0 && rule.rate <= 1)) throw new RangeError(`Fault rate must be within 0..1, got ${rule.rate}`);
    }
  }

  /**
   * Names a random id (a tenant, a processId) by a stable label in item identities, so the
   * faults an item draws do not change with the ids a run happens to generate.
   */
  alias(id: string, label: string): void {
    this.aliases.set(id, label);
  }

  /** Every fault injected so far, in order. */
  get injected(): readonly InjectedFault[] {
    return this.log;
  }

  /** Faults per `<kind> <operation>`, for assertions that a run really was under fire. */
  counts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const { kind, operation } of this.log) counts[`${kind} ${operation}`] = (counts[`${kind} ${operation}`] ?? 0) + 1;
    return counts;
  }

  count(kind?: FaultKind): number {
    return kind === undefined ? this.log.length : this.log.filter((f) => f.kind === kind).length;
  }

  /**
   * Runs before the SDK's own retries (`initialize` step), so an injected fault is what the
   * service's code sees, not something the SDK quietly retries away.
   */
  instrument<C>(client: C, name = "skillsFaultInjector"): C {
    (client as unknown as MiddlewareClient).middlewareStack.add(
      (next, context) => async (args) => {
        const operation = operationOf(context);
        const kind = this.enabled ? this.decide(operation, args.input) : undefined;
        if (kind === undefined) return next(args);
        this.log.push({ operation, kind, item: itemOf(args.input) });
        switch (kind) {
          case "throttle":
            throw throttled(operation);
          case "conflict":
            throw conditionalCheckFailed();
          case "unavailable":
            throw connectionRefused();
          case "lostResponse":
            await next(args);
            throw isConditionalWrite(args.input) ? conditionalCheckFailed() : socketReset();
        }
      },
      { step: "initialize", name, priority: "high", override: true },
    );
    return client;
  }

  private decide(operation: string, input: Record<string, unknown>): FaultKind | undefined {
    let item = itemOf(input);
    for (const [id, label] of this.aliases) item = item.split(id).join(label);
    const key = `${operation}|${item}`;
    const n = (this.calls.get(key) ?? 0) + 1;
    this.calls.set(key, n);
    const draw = seededRandom(hash32(`${this.seed}|${key}|${n}`));
    for (const rule of this.rules) {
      if (rule.operations !== undefined && !rule.operations.includes(operation)) continue;
      if (rule.when !== undefined && !rule.when(input)) continue;
      if (draw() < rule.rate) return rule.kind;
    }
    return undefined;
  }
}
