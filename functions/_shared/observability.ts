import type { SkillActivationPath, SkillActivationSink } from "../../shared/steering/skill-activations.js";
import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import { powertoolsTracing } from "./tracing.js";
import type { HandlerTracer } from "./tracing.js";

/** The part of the Powertools Logger the handlers use; tests pass a recorder. */
export interface HandlerLogger {
  debug(message: string, ...extra: Record<string, unknown>[]): void;
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

export const SKILL_ACTIVATIONS_METRIC = "SkillActivations";

/**
 * One EMF line per activation, dimensioned by skill and path. Powertools reads its namespace
 * and service from POWERTOOLS_METRICS_NAMESPACE / POWERTOOLS_SERVICE_NAME (set by the stack) and
 * is silenced with POWERTOOLS_METRICS_DISABLED (tests, the local stack if it wants).
 */
export class PowertoolsActivationMetrics implements SkillActivationSink {
  constructor(private readonly metrics: Metrics = new Metrics()) {}

  skillActivated(name: string, path: SkillActivationPath): void {
    const single = this.metrics.singleMetric();
    single.addDimensions({ skill: name, path });
    single.addMetric(SKILL_ACTIVATIONS_METRIC, MetricUnit.Count, 1);
  }
}

export interface Observability {
  logger: HandlerLogger;
  activations: SkillActivationSink;
  tracer: HandlerTracer;
}

/** Module-scope observability of one function: Powertools Logger (level from POWERTOOLS_LOG_LEVEL), Metrics and Tracer. */
export function powertoolsObservability(serviceName: string): Observability {
  return { logger: new Logger({ serviceName }), activations: new PowertoolsActivationMetrics(), tracer: powertoolsTracing(serviceName) };
}

const ignore = (): void => undefined;

/** For tests and tools that want no output at all. */
export const SILENT_LOGGER: HandlerLogger = { debug: ignore, info: ignore, warn: ignore, error: ignore };
