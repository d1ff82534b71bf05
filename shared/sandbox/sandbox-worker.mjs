/*
 * One sandbox worker thread: evaluates untrusted JavaScript in QuickJS (quickjs-emscripten,
 * sync variant), one fresh runtime + context per evaluation. Spawned by sandbox-worker-handle.ts.
 *
 * Plain .mjs on purpose: a worker thread cannot load TypeScript under vitest/tsx, and a plain
 * module bundles as its own esbuild entry point. The message shapes are typed on the host side
 * in sandbox-protocol.ts; keep both in step.
 *
 * The worker runs in its own thread because QuickJS cannot always be stopped from inside:
 * some built-ins never poll the interrupt handler, and deep guest recursion needs far more
 * native stack than the main thread has (the pool starts us with resourceLimits.stackSizeMb).
 * Any host-side exception here leaves the wasm instance in an unknown state, so we report
 * `retire: true` and the pool replaces this worker.
 */
/* global WebAssembly */
import { Buffer } from "node:buffer";
import { performance } from "node:perf_hooks";
import { setImmediate } from "node:timers";
import { parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import { RELEASE_SYNC, newQuickJSWASMModuleFromVariant, newVariant, shouldInterruptAfterDeadline } from "quickjs-emscripten";
import { guestBootstrap } from "./guest/guest-bootstrap.js";

const MAX_STACK_BYTES = 256 * 1024;
const GUEST_FILENAME = "sandbox.js";
const PRELUDE_FILENAME = "prelude.js";

/* Evaluated first in every fresh context; why it is imported as a function, see guest-bootstrap.js. */
const BOOTSTRAP = `(${guestBootstrap.toString()})()`;

const WASM_PAGE = 64 * 1024;
const preludes = new Map(Object.entries(workerData?.preludes ?? {}));

/*
 * The hard memory bound. In this emscripten build QuickJS cannot measure its allocations
 * (malloc_usable_size is unavailable), so runtime.setMemoryLimit only rejects single large
 * allocations and long runs of small ones: measured, 20 ArrayBuffers of 1 MiB lived under an
 * 8 MiB limit and a loop of them grew the process by 2 GB. Capping the wasm memory itself makes
 * malloc fail, which QuickJS reports as a clean "out of memory". The imported memory must start
 * at the module's declared 16 MiB.
 */
const memory = new WebAssembly.Memory({
  initial: (16 * 1024 * 1024) / WASM_PAGE,
  maximum: Math.max(256, Math.floor(workerData.memoryCapBytes / WASM_PAGE)),
});
const quickjs = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmMemory: memory }));

const replyPort = workerData.replyPort;
const replySignal = new Int32Array(workerData.replySignal);
let lastCallId = 0;

const encodeFailure = (code, message) => `e${JSON.stringify({ code, message })}`;

/**
 * Blocks this thread until the pool's reply to `callId` arrives or `until` (epoch ms) passes.
 * Replies to calls we gave up on may still arrive; they are skipped. The signal is reset
 * before the port is drained, so a reply posted in between still ends the next wait at once.
 */
const awaitReply = (callId, until) => {
  for (;;) {
    Atomics.store(replySignal, 0, 0);
    for (let received = receiveMessageOnPort(replyPort); received !== undefined; received = receiveMessageOnPort(replyPort)) {
      if (received.message.callId === callId) return received.message.reply;
    }
    const remaining = until - Date.now();
    if (remaining <= 0) return undefined;
    Atomics.wait(replySignal, 0, 0, remaining);
  }
};

/** One guest → host call; always returns a reply string for the guest bridge, never throws. */
const callHost = (jobId, request, state, index, argsJson) => {
  if (!Number.isInteger(index) || index < 0 || index >= (request.hostFunctions?.length ?? 0) || typeof argsJson !== "string") {
    return encodeFailure("HOST_CALL_FAILED", "invalid host call");
  }
  const path = request.hostFunctions[index];
  if (state.hostCalls >= request.maxHostCalls) {
    return encodeFailure("HOST_CALL_LIMIT", `more than ${request.maxHostCalls} host calls in one evaluation`);
  }
  if (Buffer.byteLength(argsJson, "utf8") > request.maxHostArgsBytes) {
    return encodeFailure("HOST_ARGS_TOO_LARGE", `host call arguments exceed ${request.maxHostArgsBytes} bytes`);
  }
  // The deadline keeps running while the host works: a host call never extends it.
  const remaining = state.deadline - Date.now();
  if (remaining <= 0) {
    state.interrupted = true;
    return encodeFailure("HOST_CALL_TIMEOUT", "the evaluation deadline passed");
  }
  state.hostCalls += 1;
  const callId = ++lastCallId;
  parentPort.postMessage({ type: "hostCall", id: jobId, callId, index, argsJson });
  const reply = awaitReply(callId, Date.now() + Math.min(request.hostCallTimeoutMs, remaining));
  // A reply that lands after the deadline (the host's own timeout of this call, under load) does not
  // count: the evaluation has timed out either way, and says so the same way every time.
  if (reply !== undefined && Date.now() < state.deadline) return reply;
  if (Date.now() >= state.deadline) {
    // The interrupt handler now stops the guest at its next poll, even inside a catch block.
    state.interrupted = true;
    return encodeFailure("HOST_CALL_TIMEOUT", "the evaluation deadline passed");
  }
  return encodeFailure("HOST_CALL_TIMEOUT", `host call '${path}' timed out after ${request.hostCallTimeoutMs} ms`);
};

/**
 * Installs the request's host functions as guest closures (see `bind` in guest/guest-bootstrap.js).
 * The one raw QuickJS function handle is disposed here; its argument handles are borrowed (the
 * library frees them) and its returned string handle is owned and freed by the library after the call.
 */
const bindHostFunctions = (ctx, helpers, jobId, request, state) => {
  const host = ctx.newFunction("host", (indexHandle, argsHandle) => {
    let reply;
    try {
      const index = indexHandle !== undefined && ctx.typeof(indexHandle) === "number" ? ctx.getNumber(indexHandle) : -1;
      const argsJson = argsHandle !== undefined && ctx.typeof(argsHandle) === "string" ? ctx.getString(argsHandle) : undefined;
      reply = callHost(jobId, request, state, index, argsJson);
    } catch (error) {
      // Never let a host exception reach the guest verbatim; this worker is retired afterwards.
      state.hostFault = error instanceof Error ? error.message : String(error);
      reply = encodeFailure("HOST_CALL_FAILED", "host call failed");
    }
    return ctx.newString(reply);
  });
  const bind = ctx.getProp(helpers, "bind");
  const paths = ctx.newString(JSON.stringify(request.hostFunctions));
  const maxArgsChars = ctx.newNumber(request.maxHostArgsBytes);
  try {
    unwrap(ctx, helpers, ctx.callFunction(bind, ctx.undefined, host, paths, maxArgsChars), state).dispose();
  } finally {
    maxArgsChars.dispose();
    paths.dispose();
    bind.dispose();
    host.dispose();
  }
};

/** QuickJS' own counters (JSMemoryUsage), for leak tests and benchmarks. */
const memoryCounters = (runtime, ctx) => {
  const usage = runtime.computeMemoryUsage();
  try {
    const dumped = ctx.dump(usage);
    return Object.fromEntries(Object.entries(dumped).filter(([, value]) => typeof value === "number"));
  } finally {
    usage.dispose();
  }
};

/** Thrown inside this file for guest-caused outcomes; anything else is a host failure. */
class GuestOutcome {
  constructor(kind, message, extra = {}) {
    this.kind = kind;
    this.message = message;
    Object.assign(this, extra);
  }
}

const describeGuestError = (ctx, helpers, errorHandle, state) => {
  if (state.interrupted) return new GuestOutcome("timeout", "interrupted");
  if (helpers === null) {
    // The bootstrap itself failed (only our code has run, so dumping is safe): a tiny memory limit.
    const { name, message } = ctx.dump(errorHandle) ?? {};
    return name === "InternalError" && message === "out of memory"
      ? new GuestOutcome("memory", message)
      : new GuestOutcome("guest", String(message ?? "sandbox bootstrap failed"), { name: "Error" });
  }
  let described = { name: "Error", message: "guest exception" };
  const describe = ctx.getProp(helpers, "describe");
  try {
    const result = ctx.callFunction(describe, ctx.undefined, errorHandle);
    if (result.error) {
      result.error.dispose();
    } else {
      described = JSON.parse(ctx.getString(result.value));
      result.value.dispose();
    }
  } finally {
    describe.dispose();
  }
  if (state.interrupted) return new GuestOutcome("timeout", "interrupted");
  if (described.name === "InternalError" && described.message === "out of memory") {
    return new GuestOutcome("memory", described.message);
  }
  let line = described.line;
  if (line === undefined && typeof described.stack === "string") {
    const match = /sandbox\.js:(\d+)/.exec(described.stack);
    if (match) line = Number(match[1]);
  }
  return new GuestOutcome("guest", described.message, { name: described.name, line });
};

/** Unwraps a VmCallResult, turning a guest exception into a GuestOutcome. */
const unwrap = (ctx, helpers, result, state) => {
  if (!result.error) return result.value;
  try {
    throw describeGuestError(ctx, helpers, result.error, state);
  } finally {
    result.error.dispose();
  }
};

const settle = (runtime, ctx, helpers, handle, state) => {
  const pending = runtime.executePendingJobs();
  if (pending.error) {
    handle.dispose();
    unwrap(ctx, helpers, pending, state);
  }
  const promise = ctx.getPromiseState(handle);
  if (promise.type === "fulfilled") {
    if (!promise.notAPromise) handle.dispose();
    return promise.value;
  }
  handle.dispose();
  if (promise.type === "rejected") unwrap(ctx, helpers, { error: promise.error }, state);
  throw new GuestOutcome("guest", "the guest returned a promise that never settled", { name: "Error" });
};

const runInContext = (runtime, ctx, jobId, request, state) => {
  const helpers = unwrap(ctx, null, ctx.evalCode(BOOTSTRAP, "bootstrap.js"), state);
  try {
    if (request.prelude !== undefined) {
      const source = preludes.get(request.prelude);
      if (source === undefined) throw new Error(`unknown prelude '${request.prelude}'`);
      unwrap(ctx, helpers, ctx.evalCode(source, PRELUDE_FILENAME), state).dispose();
    }
    if (request.globalsJson !== undefined) {
      const install = ctx.getProp(helpers, "install");
      const json = ctx.newString(request.globalsJson);
      try {
        unwrap(ctx, helpers, ctx.callFunction(install, ctx.undefined, json), state).dispose();
      } finally {
        json.dispose();
        install.dispose();
      }
    }
    if (request.hostFunctions !== undefined && request.hostFunctions.length > 0) bindHostFunctions(ctx, helpers, jobId, request, state);
    const evaluated = unwrap(ctx, helpers, ctx.evalCode(request.code, GUEST_FILENAME), state);
    const value = settle(runtime, ctx, helpers, evaluated, state);
    const serialize = ctx.getProp(helpers, "serialize");
    const max = ctx.newNumber(request.maxOutputBytes);
    let serialized;
    try {
      serialized = unwrap(ctx, helpers, ctx.callFunction(serialize, ctx.undefined, value, max), state);
    } finally {
      max.dispose();
      serialize.dispose();
      value.dispose();
    }
    let json;
    try {
      const type = ctx.typeof(serialized);
      if (type === "number") throw new GuestOutcome("output", "output too large");
      json = type === "undefined" ? undefined : ctx.getString(serialized);
    } finally {
      serialized.dispose();
    }
    // A guest that caught the deadline's HostError and finished before the next interrupt poll.
    if (state.interrupted) throw new GuestOutcome("timeout", "interrupted");
    if (request.collectStats) state.quickjs = memoryCounters(runtime, ctx);
    return json;
  } finally {
    helpers.dispose();
  }
};

const evaluate = (jobId, request, state) => {
  const deadlineReached = shouldInterruptAfterDeadline(state.deadline);
  const runtime = quickjs.newRuntime();
  try {
    runtime.setMemoryLimit(request.memoryBytes);
    runtime.setMaxStackSize(MAX_STACK_BYTES);
    runtime.setInterruptHandler((rt) => {
      if (state.interrupted || deadlineReached(rt)) state.interrupted = true;
      return state.interrupted;
    });
    const ctx = runtime.newContext();
    try {
      return runInContext(runtime, ctx, jobId, request, state);
    } finally {
      ctx.dispose();
    }
  } finally {
    runtime.dispose();
  }
};

/** Wasm memory never shrinks: a worker that grew past its retain size is replaced to give it back. */
const oversized = () => memory.buffer.byteLength > workerData.memoryRetainBytes;

const newState = (request) => ({
  interrupted: false,
  deadline: Date.now() + request.timeoutMs,
  hostCalls: 0,
  hostFault: undefined,
  quickjs: undefined,
});

const statsOf = (state) => ({
  hostCalls: state.hostCalls,
  wasmMemoryBytes: memory.buffer.byteLength,
  ...(state.quickjs === undefined ? {} : { quickjs: state.quickjs }),
});

const handleEvaluate = (id, request) => {
  const started = performance.now();
  const state = newState(request);
  try {
    const json = evaluate(id, request, state);
    if (json !== undefined && Buffer.byteLength(json, "utf8") > request.maxOutputBytes) {
      throw new GuestOutcome("output", "output too large");
    }
    if (state.hostFault !== undefined) throw new Error(state.hostFault);
    const durationMs = performance.now() - started;
    parentPort.postMessage({ type: "result", id, ok: true, json, durationMs, stats: statsOf(state), retire: oversized() });
  } catch (outcome) {
    if (outcome instanceof GuestOutcome) {
      const { kind, message, name, line } = outcome;
      const error = { kind, message, name, line };
      const durationMs = performance.now() - started;
      const retire = oversized() || state.hostFault !== undefined;
      parentPort.postMessage({ type: "result", id, ok: false, error, durationMs, stats: statsOf(state), retire });
    } else {
      // Host-side failure (wasm trap, native stack, disposal): never trust this instance again.
      const message = outcome instanceof Error ? outcome.message : String(outcome);
      parentPort.postMessage({ type: "result", id, ok: false, error: { kind: "internal", message }, retire: true });
    }
  }
};

/**
 * One throwaway evaluation (with a prelude: once per prelude) before real work, so the first
 * request does not pay for V8 compiling the wasm hot paths and a broken prelude shows early.
 */
const warm = (prelude) => {
  try {
    const request = {
      code: "0",
      prelude,
      timeoutMs: 2000,
      memoryBytes: 64 * 1024 * 1024,
      maxOutputBytes: 16,
      hostCallTimeoutMs: 0,
      maxHostCalls: 0,
      maxHostArgsBytes: 0,
    };
    evaluate(0, request, newState(request));
  } catch {
    // A failing prelude fails each evaluation that asks for it, with the guest's message.
  }
};

parentPort.on("message", (message) => {
  switch (message.type) {
    case "prelude":
      preludes.set(message.id, message.source);
      warm(message.id);
      break;
    case "evaluate":
      handleEvaluate(message.id, message.request);
      break;
    default:
      break;
  }
});

// Warm up only after this module has finished evaluating: measured, the same work done during
// top-level evaluation left the thread busy for hundreds of ms before it took its first message.
setImmediate(() => {
  warm(undefined);
  for (const id of preludes.keys()) warm(id);
  parentPort.postMessage({ type: "ready" });
});
