import { describe, expect, it } from "vitest";
import { createLlmPort } from "../../shared/wiring/create-llm-port.js";
import { DEFAULT_LLM_TIMEOUT_MS, llmConfigFromEnv } from "../../shared/llm/llm-config.js";
import { LlmConfigurationError } from "../../shared/llm/llm-errors.js";

describe("llmConfigFromEnv", () => {
  it("is undefined without a URL (blank counts as unset)", () => {
    // Act
    const none = llmConfigFromEnv({});
    const blank = llmConfigFromEnv({ SKILLS_LLM_URL: "  ", SKILLS_LLM_MODEL: "m" });

    // Assess
    expect(none).toBeUndefined();
    expect(blank).toBeUndefined();
  });

  it("reads URL (without trailing slashes), model, key, secret ARN and timeout", () => {
    // Act
    const config = llmConfigFromEnv({
      SKILLS_LLM_URL: "https://llm.example.com/v1//",
      SKILLS_LLM_MODEL: "judge",
      SKILLS_LLM_API_KEY_SECRET_ARN: "arn:aws:secretsmanager:eu-central-1:1:secret:k",
      SKILLS_LLM_TIMEOUT_MS: "5000",
    });
    const defaults = llmConfigFromEnv({ SKILLS_LLM_URL: "http://localhost:8080", SKILLS_LLM_MODEL: "m", SKILLS_LLM_API_KEY: "sk" });

    // Assess
    expect(config).toEqual({
      url: "https://llm.example.com/v1",
      model: "judge",
      apiKeySecretArn: "arn:aws:secretsmanager:eu-central-1:1:secret:k",
      timeoutMs: 5000,
    });
    expect(defaults).toEqual({ url: "http://localhost:8080", model: "m", apiKey: "sk", timeoutMs: DEFAULT_LLM_TIMEOUT_MS });
  });

  it.each([
    ["a URL without model", { SKILLS_LLM_URL: "https://llm.example.com" }, /^SKILLS_LLM_MODEL is required with SKILLS_LLM_URL$/],
    ["a URL that is not one", { SKILLS_LLM_URL: "not a url", SKILLS_LLM_MODEL: "m" }, /^SKILLS_LLM_URL is not a URL/],
    ["a non-http URL", { SKILLS_LLM_URL: "file:///etc/passwd", SKILLS_LLM_MODEL: "m" }, /^SKILLS_LLM_URL must be http\(s\)/],
    [
      "a bad timeout",
      { SKILLS_LLM_URL: "https://llm.example.com", SKILLS_LLM_MODEL: "m", SKILLS_LLM_TIMEOUT_MS: "soon" },
      /^SKILLS_LLM_TIMEOUT_MS must be a positive integer/,
    ],
  ])("rejects %s, naming the variable", (_, env, message) => {
    // Act + Assess
    expect(() => llmConfigFromEnv(env)).toThrow(LlmConfigurationError);
    expect(() => llmConfigFromEnv(env)).toThrow(message);
  });

  it("looks at nothing else without a URL", () => {
    // Act + Assess
    expect(llmConfigFromEnv({ SKILLS_LLM_TIMEOUT_MS: "soon" })).toBeUndefined();
  });

  it("needs a secret resolver when the key lives in Secrets Manager", () => {
    // Act + Assess
    expect(() =>
      createLlmPort({ SKILLS_LLM_URL: "https://llm.example.com", SKILLS_LLM_MODEL: "m", SKILLS_LLM_API_KEY_SECRET_ARN: "arn:x" }),
    ).toThrow(TypeError);
  });
});
