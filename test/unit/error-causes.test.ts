import * as z from "zod";
import { ConfigurationError } from "../../shared/config/config-errors.js";
import { describe, expect, it } from "vitest";
import { InvalidEngineCommand, InvalidRequest } from "../../shared/errors.js";
import { assertSafeRawPath } from "../../shared/http/raw-path.js";
import { parseJsonBody } from "../../shared/http/request.js";
import { llmConfigFromEnv } from "../../shared/llm/llm-config.js";
import { LlmConfigurationError } from "../../shared/llm/llm-errors.js";
import { newProcess } from "../../shared/processes/process.js";
import { EngineCommandDispatcher } from "../../shared/steering/engine-command-dispatcher.js";
import { EngineCommandRejected } from "../../shared/steering/steering-errors.js";
import { TemplateSyntaxError } from "../../shared/templates/template-errors.js";
import { precompileTemplate } from "../../shared/templates/template-precompiler.js";
import { httpApiV2Request } from "../fixtures/events/http-api-v2-request.js";

const failureOf = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
};

/** An error that wraps another passes it on as `cause`, with its own message and code unchanged. */
describe("wrapping errors keep their cause", () => {
  it("a body that is not JSON: InvalidRequest caused by the SyntaxError", () => {
    // Act
    const error = failureOf(() => parseJsonBody(httpApiV2Request({ body: '{"command":' }), z.object({})));

    // Assess
    expect(error).toBeInstanceOf(InvalidRequest);
    expect(error).toMatchObject({ message: "Request body is not valid JSON" });
    expect((error as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it("a path that does not decode: InvalidRequest caused by the URIError", () => {
    // Act
    const error = failureOf(() => assertSafeRawPath("/brain/acme/%c0%ae"));

    // Assess
    expect(error).toMatchObject({ message: "Path has malformed percent-encoding" });
    expect((error as Error).cause).toBeInstanceOf(URIError);
  });

  it("engine command arguments a handler rejects: InvalidEngineCommand caused by EngineCommandRejected", () => {
    // Prepare
    const process = newProcess({
      tenant: "acme",
      processId: "p-1",
      sessionId: "s-1",
      name: "chat",
      recipe: "default",
      engine: "ford",
      projectId: "web",
    });

    // Act
    const error = failureOf(() =>
      new EngineCommandDispatcher().apply(process, ["mode.set a b"], {
        skill: { name: "s", location: { source: "PROJECT", project: "web" } },
      }),
    );

    // Assess
    expect(error).toBeInstanceOf(InvalidEngineCommand);
    expect((error as Error).cause).toBeInstanceOf(EngineCommandRejected);
    expect((error as Error).message).toBe(`Engine command 'mode.set' in skill 's': ${((error as Error).cause as Error).message}`);
  });

  it("a template nunjucks cannot parse: TemplateSyntaxError caused by the parser's error", async () => {
    // Act
    const error = await precompileTemplate("{% endif %}").catch((rejected: unknown) => rejected);

    // Assess
    expect(error).toBeInstanceOf(TemplateSyntaxError);
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it("an LLM URL that does not parse: LlmConfigurationError caused by the configuration's error", () => {
    // Act
    const error = failureOf(() => llmConfigFromEnv({ SKILLS_LLM_URL: "not a url", SKILLS_LLM_MODEL: "m" }));

    // Assess
    expect(error).toBeInstanceOf(LlmConfigurationError);
    expect((error as Error).cause).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain("SKILLS_LLM_URL");
  });
});
