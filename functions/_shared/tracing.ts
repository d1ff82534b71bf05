import { Tracer } from "@aws-lambda-powertools/tracer";
import type { ClientInstrumentation } from "../../shared/aws/aws-clients.js";

/**
 * The tracing hooks of one function. Powertools Tracer switches itself off outside Lambda
 * (tests, the local stack) and when POWERTOOLS_TRACE_ENABLED=false, so the hooks cost nothing there.
 */
export interface HandlerTracer {
  /** Gives every call of an AWS SDK v3 client its own X-Ray subsegment. */
  readonly instrument: ClientInstrumentation;
  /** Runs one invocation inside a `## <name>` subsegment annotated with ColdStart and Service; a thrown error is recorded on it. */
  invocation<R>(name: string, run: () => Promise<R>): Promise<R>;
}

/** Only what the hooks call, so tests can hand in a recorder instead of the X-Ray SDK. */
export type TracerPort = Pick<Tracer, "isTracingEnabled" | "getSegment" | "setSegment" | "annotateColdStart" | "addServiceNameAnnotation" | "addErrorAsMetadata" | "captureAWSv3Client">;

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

/**
 * Module-scope tracer of one function (service name as in the logs). Responses are not captured
 * (POWERTOOLS_TRACER_CAPTURE_RESPONSE=false in the stack): they hold skill bodies and prompts.
 */
export const powertoolsTracing = (serviceName: string): HandlerTracer => tracingHooks(new Tracer({ serviceName }));

/** A Lambda handler whose every invocation runs through `tracer.invocation`. */
export const traced =
  <E, C, R>(tracer: HandlerTracer, name: string, handler: (event: E, context: C) => Promise<R>) =>
  (event: E, context: C): Promise<R> =>
    tracer.invocation(name, () => handler(event, context));
