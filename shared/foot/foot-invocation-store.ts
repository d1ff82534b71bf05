import * as z from "zod/mini";
import "../../contract/locale.js";
import type { ScriptLogEntry } from "../sandbox/script-errors.js";
import { FootLogEntry, MAX_FOOT_LOG_ENTRIES } from "../scripts/foot-port.js";

/**
 * The shared state between the function that invokes a FOOT script and the `$default`
 * WebSocket function that receives the client's answer (Lambdas share no memory): one item per
 * invocation, created PENDING before the frame is pushed, answered once by the connection it
 * was pushed to, polled by the invoker, and expiring by TTL.
 * Adapters: in-memory-foot-invocation-store.ts, dynamodb-foot-invocation-store.ts.
 */
export const FootError = z.strictObject({ code: z.string().check(z.maxLength(64)), message: z.string().check(z.maxLength(4_000)) });

/** What the client answered. */
export type FootAnswer =
  | { status: "DONE"; result: unknown; logs?: ScriptLogEntry[] | undefined }
  | { status: "FAILED"; error: z.infer<typeof FootError>; logs?: ScriptLogEntry[] | undefined };

export const FootInvocation = z.object({
  invocationId: z.string().check(z.minLength(1)),
  processId: z.string().check(z.minLength(1)),
  /** The one connection the frame was pushed to; only it may answer. */
  connectionId: z.string().check(z.minLength(1)),
  status: z.enum(["PENDING", "DONE", "FAILED"]),
  result: z.optional(z.unknown()),
  error: z.optional(FootError),
  logs: z.optional(z.array(FootLogEntry).check(z.maxLength(MAX_FOOT_LOG_ENTRIES))),
});

export type FootInvocation = z.infer<typeof FootInvocation>;

export interface NewFootInvocation {
  invocationId: string;
  processId: string;
  connectionId: string;
}

/** Longer than any invocation may wait; only bounds how long a forgotten item lingers. */
export const FOOT_INVOCATION_TTL_SECONDS = 15 * 60;

export interface FootInvocationStore {
  /** Records a PENDING invocation; an existing id is a caller bug and rejects. */
  create(tenant: string, invocation: NewFootInvocation): Promise<void>;
  /** Strongly consistent; undefined when unknown, removed or expired. */
  get(tenant: string, invocationId: string): Promise<FootInvocation | undefined>;
  /**
   * Stores the client's answer while the invocation is PENDING and only when `connectionId` is
   * the connection it was pushed to. false otherwise (unknown, expired, answered, someone else).
   */
  answer(tenant: string, invocationId: string, connectionId: string, answer: FootAnswer): Promise<boolean>;
  /** Idempotent; a late answer then finds nothing. */
  remove(tenant: string, invocationId: string): Promise<void>;
}

export interface FootInvocationStoreOptions {
  ttlSeconds?: number;
  now?: () => number;
}
