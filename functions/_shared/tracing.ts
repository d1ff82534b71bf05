import type { Tracer } from "@aws-lambda-powertools/tracer";
import type { ClientInstrumentation } from "../../shared/aws/aws-clients.js";
import { ENV } from "../../shared/config/config.js";

/**
 * The tracing hooks of one function. Importing the Powertools Tracer loads the X-Ray SDK, whose
 * context tracking installs an async hook at import, tracing enabled or not: every `await` of the
 * process then costs ~10× more (docs/decisions.md, issue 31). So the tracer is only loaded, through
 * `import()`, where it would trace (see `tracingWanted`); elsewhere the hooks are the identity.
 */
export interface HandlerTracer {
  /** Gives every call of an AWS SDK v3 client its own X-Ray subsegment. */
  readonly instrument: ClientInstrumentation;
  /** Runs one invocation inside a `## <name>` subsegment annotated with ColdStart and Service; a thrown error is recorded on it. */
  invocation<R>(name: string, run: () => Promise<R>): Promise<R>;
}

/** Only what the hooks call, so tests can hand in a recorder instead of the X-Ray SDK. */
export type TracerPort = Pick<
  Tracer,
  | "isTracingEnabled"
  | "getSegment"
  | "setSegment"
  | "annotateColdStart"
  | "addServiceNameAnnotation"
  | "addErrorAsMetadata"
  | "captureAWSv3Client"
>;

export function tracingHooks(tracer: TracerPort): HandlerTracer {
  return {
    instrument: (client) => tracer.captureAWSv3Client(client),
    async invocation(name, run) {
      if (!tracer.isTracingEnabled()) return run();
      const parent = tracer.getSegment();
      // Lambda's own segment is the parent; without one (context missing) there is nothing to attach to.
      if (parent === undefined) return run();
      const own = parent.addNewSubsegment(`## ${name}`);
      tracer.setSegment(own);
      tracer.annotateColdStart();
      tracer.addServiceNameAnnotation();
      try {
        return await run();
      } catch (error) {
        tracer.addErrorAsMetadata(error instanceof Error ? error : new Error(String(error)));
        throw error;
      } finally {
        own.close();
        tracer.setSegment(parent);
      }
    },
  };
}

/** No tracing: clients as they are, invocations run bare (`traced` returns the handler itself). */
export const UNTRACED: HandlerTracer = {
  instrument: (client) => client,
  invocation: (_name, run) => run(),
};

/**
 * Whether Powertools Tracer would trace here, decided from the environment alone and by its own
 * rule (Tracer.setTracingEnabled): inside Lambda (the runtime's execution environment set, not
 * Amplify's mock, not SAM local) unless the trace switch is `false`. Tests, tools and the local stack: no.
 */
export function tracingWanted(env: Readonly<Record<string, string | undefined>>): boolean {
  const executionEnv = env[ENV.awsExecutionEnv] ?? "";
  if (executionEnv === "" || executionEnv === "AWS_Lambda_amplify-mock") return false;
  if ((env.AWS_SAM_LOCAL ?? "") !== "") return false;
  return (env[ENV.powertoolsTraceEnabled] ?? "").toLowerCase() !== "false";
}

/**
 * Hooks over a tracer that is still loading. Loading starts at once (during init); clients built
 * before it ends are captured when it ends, and every invocation waits for it first, so no SDK
 * call of an invocation runs uncaptured. A failed load fails the invocations (a packaging bug,
 * never silently untraced) without an unhandled rejection at init.
 */
export function lazyTracing(load: () => Promise<TracerPort>): HandlerTracer {
  let hooks: HandlerTracer | undefined;
  const pending: object[] = [];
  const loading = load().then((tracer) => {
    hooks = tracingHooks(tracer);
    for (const client of pending.splice(0)) hooks.instrument(client);
    return hooks;
  });
  loading.catch(() => undefined);
  return {
    instrument: (client) => {
      if (hooks !== undefined) return hooks.instrument(client);
      // captureAWSv3Client adds middleware to the client in place: the same object gets traced later.
      pending.push(client);
      return client;
    },
    invocation: async (name, run) => (hooks ?? (await loading)).invocation(name, run),
  };
}

/**
 * Module-scope tracer of one function (service name as in the logs). Responses are not captured
 * (POWERTOOLS_TRACER_CAPTURE_RESPONSE=false in the stack): they hold skill bodies and prompts.
 */
export const powertoolsTracing = (serviceName: string, env: Readonly<Record<string, string | undefined>> = process.env): HandlerTracer =>
  tracingWanted(env)
    ? lazyTracing(async () => {
        const { Tracer: PowertoolsTracer } = await import("@aws-lambda-powertools/tracer");
        return new PowertoolsTracer({ serviceName });
      })
    : UNTRACED;

/** A Lambda handler whose every invocation runs through `tracer.invocation`; the handler itself when untraced. */
export const traced = <E, C, R>(
  tracer: HandlerTracer,
  name: string,
  handler: (event: E, context: C) => Promise<R>,
): ((event: E, context: C) => Promise<R>) =>
  tracer === UNTRACED ? handler : (event, context) => tracer.invocation(name, () => handler(event, context));
