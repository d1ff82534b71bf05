import { describe, expect, it } from "vitest";
import { SERVICE_TOOLS } from "../../shared/tools/service-tools.js";
import { SERVICE_TOOL_NAMES } from "../../shared/skills/service-tool-names.js";
import {
  SERVICE_TOOL_SPECS,
  SKILL_ACTIVATE_TOOL,
  SKILL_READ_FILE_TOOL,
  SKILL_REFERENCE_DOC_TOOL,
} from "../../shared/turns/service-tool-specs.js";
import { handlerHarness, PROJECT } from "../support/handler-harness.js";

/**
 * Issue 28: names, tool names and single-line fields with control characters reached terminals
 * (`skills chat` printed an OSC 52 clipboard write from a description). The service refuses them at
 * save, 422 with the field named; free-text fields keep tab and line breaks only.
 */
const PATH = "_vance/skills/sneaky/SKILL.md";
const docs = `/brain/acme/projects/${PROJECT}/documents/${PATH}`;
const ESC = "\u001b";

/** A valid document with one frontmatter line added or replaced. */
const withLine = (line: string, replacing?: string): string => {
  const base = ["title: Sneaky", "description: Does sneaky things", "version: 1.0.0"];
  const lines = replacing === undefined ? [...base, line] : base.map((l) => (l.startsWith(`${replacing}:`) ? line : l));
  return `---\n${lines.join("\n")}\n---\nBody.\n`;
};

/** YAML double-quoted scalars carry the escapes as `\e`, `\a`, `\x9b`, so the document itself stays printable. */
const CASES: { field: string; line: string; replacing?: string }[] = [
  { field: "title", line: 'title: "Sneaky\\e]0;owned\\a"', replacing: "title" },
  { field: "description", line: 'description: "Looks fine\\e]52;c;ZWNobw==\\a"', replacing: "description" },
  { field: "version", line: 'version: "1.0.0\\e[2J"', replacing: "version" },
  { field: "name", line: 'name: "sneaky\\e[31m"' },
  { field: "tools", line: 'tools: ["shell\\e[8m"]' },
  { field: "allowed-tools", line: 'allowed-tools: "Read Bash(\\e]8;;https://evil.example\\e\\\\)"' },
  { field: "allowed-tools", line: 'allowed-tools: ["Read\\a"]' },
  { field: "argument-hint", line: 'argument-hint: "[n]\\x9b2J"' },
  { field: "tags", line: 'tags: ["a\\tb"]' },
  { field: "action", line: 'action: "Run \\e]8;;https://evil.example\\e\\\\this\\e]8;;\\e\\\\"' },
  { field: "when_to_use", line: 'when_to_use: "always\\a"' },
  { field: "license", line: 'license: "MIT\\nsecond line"' },
  { field: "manualPaths", line: 'manualPaths: ["docs\\e"]' },
];

describe("control characters in SKILL.md frontmatter", () => {
  it.each(CASES)("PUT refuses one in $field: 422 INVALID_DOCUMENT naming the field, nothing saved", async ({ field, line, replacing }) => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("documents", {
      method: "PUT",
      path: docs,
      as: { login: "pat", tenant: "acme", projects: [], roles: [`project-admin:${PROJECT}`] },
      body: withLine(line, replacing),
    });

    // Assess
    expect(reply.status).toBe(422);
    expect(reply.json.error.code).toBe("INVALID_DOCUMENT");
    const messages = (reply.json.error.problems as { message: string }[]).map((p) => p.message).join("\n");
    expect(messages).toContain(field);
    expect(messages).toMatch(/control characters/);
    expect(messages).not.toContain(ESC);
    expect(await h.documents.get("acme", PROJECT, PATH)).toBeUndefined();
  });

  it("keeps tab and line breaks in free text (description, action:) and saves", async () => {
    // Prepare
    const h = await handlerHarness();
    const body = `---\ntitle: Fine\ndescription: |\n  First line\n  \tindented second\naction: "Do\\tthis\\nthen that"\nversion: 1.0.0\n---\nBody.\n`;

    // Act
    const reply = await h.call("documents", {
      method: "PUT",
      path: docs,
      as: { login: "pat", tenant: "acme", projects: [], roles: [`project-admin:${PROJECT}`] },
      body,
    });

    // Assess
    expect(reply.status).toBe(200);
  });
});

describe("service tools are not a skill's to grant", () => {
  it("warns at save when tools or allowed-tools names one, and saves", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("documents", {
      method: "PUT",
      path: docs,
      as: { login: "pat", tenant: "acme", projects: [], roles: [`project-admin:${PROJECT}`] },
      body: withLine("tools: [skill_activate, manual_read, own_tool]\nallowed-tools: skill_search Read"),
    });

    // Assess
    expect(reply.status).toBe(200);
    const warnings = (reply.json.warnings as { message: string }[]).map((w) => w.message);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/tools.*'skill_activate', 'manual_read': service tools are not a skill's to grant/),
        expect.stringMatching(/allowed-tools.*'skill_search': service tools are not a skill's to grant/),
      ]),
    );
  });

  it("names every tool the service itself serves or adds", () => {
    // Assess: a service tool added later without being named here would be grantable again
    const served = [
      ...SERVICE_TOOLS.map((tool) => tool.name),
      ...Object.keys(SERVICE_TOOL_SPECS),
      SKILL_ACTIVATE_TOOL,
      SKILL_READ_FILE_TOOL,
      SKILL_REFERENCE_DOC_TOOL,
    ];
    for (const name of served) expect(SERVICE_TOOL_NAMES.has(name), name).toBe(true);
  });
});
