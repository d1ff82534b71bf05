import { hasApplied, markApplied } from "./applied-requests.js";
import { ProcessNotFound } from "./process-errors.js";
import type { Process } from "./process.js";
import type { ProcessStore } from "./process-store.js";

/** The request being applied: which process, and the requestId that makes it at most once. */
export interface OnceRequest {
  readonly tenant: string;
  readonly processId: string;
  readonly requestId: string;
}

/**
 * What one attempt of the write produces: the process to store (without the applied marker,
 * applyOnce adds it) and how the request answers if this attempt's write is the one stored.
 */
export interface OnceAttempt<R> {
  process: Process;
  /** `stored` is the process as written (version and updatedAt set by the store). */
  answer: (stored: Process) => R | Promise<R>;
}

/** The write of a request that the snapshot shows not applied yet. */
export interface OnceWrite<R> {
  /**
   * Per attempt of the conditional write (ProcessStore.update may call it again after a lost
   * race): synchronous, deterministic, no side effects beyond its return value. Throwing aborts,
   * nothing is written.
   */
  mutate: (current: Process) => OnceAttempt<R>;
  /**
   * The answer when the write finds the request applied meanwhile (a concurrent delivery of it
   * won the race). Default: the `alreadyApplied` of applyOnce.
   */
  alreadyApplied?: (process: Process) => R | Promise<R>;
  /** The first attempt writes on the snapshot without reading again (UpdateOptions.expected). */
  fromSnapshot?: boolean;
}

/** A request that needs no write; answered as is, and not recorded as applied. */
export interface OnceAnswer<R> {
  answer: R;
}

export type OncePlan<R> = OnceWrite<R> | OnceAnswer<R>;

export interface ApplyOnceSteps<R> {
  /** The process as the caller read it; without one it is read here (unknown → ProcessNotFound). */
  snapshot?: Process | undefined;
  /** What a request answers when the process shows it applied already: a redelivery. */
  alreadyApplied: (process: Process) => R | Promise<R>;
  /**
   * Runs once, on a snapshot that has not applied the request: validation (throw a domain error
   * and nothing is written) and the async work the write needs (resolve, render, spawn). Returns
   * the write, or an answer that needs none.
   */
  prepare: (snapshot: Process) => Promise<OncePlan<R>>;
}

/**
 * At-most-once application of a lane request (applied-requests.ts), in one place:
 * snapshot → already applied? → prepare → ONE conditional write that checks the requestId again
 * on the state it writes over, applies the mutation and records the requestId (so a redelivery
 * writes nothing) → the answer of the attempt that was stored, or the already-applied answer.
 */
export async function applyOnce<R>(store: ProcessStore, request: OnceRequest, steps: ApplyOnceSteps<R>): Promise<R> {
  const { tenant, processId, requestId } = request;
  const snapshot = steps.snapshot ?? (await store.get(tenant, processId));
  if (!snapshot) throw new ProcessNotFound(processId);
  if (hasApplied(snapshot, requestId)) return steps.alreadyApplied(snapshot);
  const plan = await steps.prepare(snapshot);
  if (!isWrite(plan)) return plan.answer;

  // The answer of the latest attempt: after a write whose reply was lost the store reports the
  // state that attempt stored, without calling the mutation again.
  let answer: OnceAttempt<R>["answer"] | undefined;
  const { process, changed } = await store.update(
    tenant,
    processId,
    (current) => {
      if (hasApplied(current, requestId)) return undefined;
      const attempt = plan.mutate(current);
      answer = attempt.answer;
      return markApplied(attempt.process, requestId);
    },
    plan.fromSnapshot === true ? { expected: snapshot } : undefined,
  );
  if (!changed || answer === undefined) return (plan.alreadyApplied ?? steps.alreadyApplied)(process);
  return answer(process);
}

const isWrite = <R>(plan: OncePlan<R>): plan is OnceWrite<R> => "mutate" in plan;
