import { Metrics } from "@aws-lambda-powertools/metrics";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  PowertoolsActivationMetrics,
  SKILL_ACTIVATIONS_METRIC,
  SKILL_ACTIVATION_REFUSALS_METRIC,
} from "../../functions/_shared/observability.js";

/** The EMF lines Powertools writes, parsed; it writes through `console` when POWERTOOLS_DEV is set. */
function captureEmf(): { lines: () => Record<string, unknown>[] } {
  vi.stubEnv("POWERTOOLS_DEV", "true");
  vi.stubEnv("POWERTOOLS_METRICS_DISABLED", "false");
  const spy = vi.spyOn(console, "log").mockImplementation(() => undefined);
  return { lines: () => spy.mock.calls.map((call) => JSON.parse(String(call[0])) as Record<string, unknown>) };
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe("activation metrics (EMF)", () => {
  it("dimensions activations by skill and path, refusals by skill and code, and carries tenant, project and level as searchable fields", () => {
    // Prepare
    const emf = captureEmf();
    const sink = new PowertoolsActivationMetrics(new Metrics({ namespace: "Skills", serviceName: "test" }));

    // Act
    sink.skillActivated("deploy", "trigger", { tenant: "acme", projectId: "p1", source: "PROJECT" });
    sink.skillRefused("outsider", "SKILL_NOT_ALLOWED", { tenant: "acme", projectId: "p1", source: null });
    sink.skillActivated("bare", "explicit");

    // Assess
    const [activated, refused, bare] = emf.lines();
    expect(activated).toMatchObject({
      skill: "deploy",
      path: "trigger",
      tenant: "acme",
      projectId: "p1",
      level: "PROJECT",
      [SKILL_ACTIVATIONS_METRIC]: 1,
    });
    expect(JSON.stringify((activated!._aws as { CloudWatchMetrics: unknown }).CloudWatchMetrics)).not.toContain("tenant");
    expect(refused).toMatchObject({
      skill: "outsider",
      code: "SKILL_NOT_ALLOWED",
      tenant: "acme",
      projectId: "p1",
      level: "none",
      [SKILL_ACTIVATION_REFUSALS_METRIC]: 1,
    });
    expect(bare).toMatchObject({ skill: "bare", path: "explicit" });
    expect(bare).not.toHaveProperty("tenant");
  });
});
