import type { ActivationWhere, SkillActivationPath, SkillActivationSink } from "../../shared/steering/skill-activations.js";
import { Logger as PowertoolsLogger } from "@aws-lambda-powertools/logger";
import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import { powertoolsTracing } from "./tracing.js";
import type { HandlerTracer } from "./tracing.js";
import type { Logger } from "../../shared/support/logger.js";

export const SKILL_ACTIVATIONS_METRIC = "SkillActivations";
export const SKILL_ACTIVATION_REFUSALS_METRIC = "SkillActivationRefusals";

/**
 * One EMF line per activation, dimensioned by skill and path. Powertools reads its namespace
 * and service from POWERTOOLS_METRICS_NAMESPACE / POWERTOOLS_SERVICE_NAME (set by the stack) and
 * is silenced with POWERTOOLS_METRICS_DISABLED (tests, the local stack if it wants).
 */
export class PowertoolsActivationMetrics implements SkillActivationSink {
  constructor(private readonly metrics: Metrics = new Metrics()) {}

  skillActivated(name: string, path: SkillActivationPath, where?: ActivationWhere): void {
    const single = this.metrics.singleMetric();
    single.addDimensions({ skill: name, path });
    addWhere(single, where);
    single.addMetric(SKILL_ACTIVATIONS_METRIC, MetricUnit.Count, 1);
  }

  skillRefused(name: string, code: string, where?: ActivationWhere): void {
    const single = this.metrics.singleMetric();
    single.addDimensions({ skill: name, code });
    addWhere(single, where);
    single.addMetric(SKILL_ACTIVATION_REFUSALS_METRIC, MetricUnit.Count, 1);
  }
}

/** Tenant, project and level as EMF metadata: searchable in Logs Insights, no extra time series. */
function addWhere(metrics: Metrics, where: ActivationWhere | undefined): void {
  if (!where) return;
  metrics.addMetadata("tenant", where.tenant);
  if (where.projectId !== undefined) metrics.addMetadata("projectId", where.projectId);
  if (where.source !== undefined) metrics.addMetadata("level", where.source ?? "none");
}

export interface Observability {
  logger: Logger;
  activations: SkillActivationSink;
  tracer: HandlerTracer;
}

/**
 * The keys the Powertools Logger writes itself (`ReservedKeys` of @aws-lambda-powertools/logger):
 * a custom attribute of the same name is dropped, with only a warning line. A refusal logged
 * with `{message: reason}` lost every reason that way.
 */
export const POWERTOOLS_RESERVED_KEYS: ReadonlySet<string> = new Set(["level", "message", "sampling_rate", "service", "timestamp"]);

/** The name a reserved attribute is kept under instead (`message` → `field_message`). */
export const keptKeyOf = (key: string): string => `field_${key}`;

function keepReserved(extra: Record<string, unknown>): Record<string, unknown> {
  if (!Object.keys(extra).some((key) => POWERTOOLS_RESERVED_KEYS.has(key))) return extra;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(extra)) kept[POWERTOOLS_RESERVED_KEYS.has(key) ? keptKeyOf(key) : key] = value;
  return kept;
}

/**
 * A logger that renames reserved attributes before Powertools sees them, so no call site can
 * lose a field by its name. Call sites still choose meaningful names (`reason`, `scriptLevel`).
 */
export function reservedKeySafe(logger: Logger): Logger {
  return {
    debug: (message, ...extra) => logger.debug(message, ...extra.map(keepReserved)),
    info: (message, ...extra) => logger.info(message, ...extra.map(keepReserved)),
    warn: (message, ...extra) => logger.warn(message, ...extra.map(keepReserved)),
    error: (message, ...extra) => logger.error(message, ...extra.map(keepReserved)),
  };
}

/** Module-scope observability of one function: Powertools Logger (level from POWERTOOLS_LOG_LEVEL), Metrics and Tracer (loaded only where it traces: functions/_shared/tracing.ts). */
export function powertoolsObservability(serviceName: string): Observability {
  return {
    logger: reservedKeySafe(new PowertoolsLogger({ serviceName })),
    activations: new PowertoolsActivationMetrics(),
    tracer: powertoolsTracing(serviceName),
  };
}

const ignore = (): void => undefined;

/** For tests and tools that want no output at all. */
export const SILENT_LOGGER: Logger = { debug: ignore, info: ignore, warn: ignore, error: ignore };
