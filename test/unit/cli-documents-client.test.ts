import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SkillsApiError } from "../../client/index.js";
import { httpDocumentsApi } from "../../cli/documents-client.js";
import { parseLevelTarget, resolveRemote } from "../../cli/remote-target.js";
import { InvalidRequest } from "../../shared/errors.js";

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  body: Buffer;
}

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A tiny HTTP server answering from `reply`; every request is recorded. */
async function serve(reply: (request: Seen, response: ServerResponse) => void): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const entry = {
        method: request.method ?? "",
        url: request.url ?? "",
        authorization: request.headers.authorization,
        body: Buffer.concat(chunks),
      };
      seen.push(entry);
      reply(entry, response);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
};

const api = (url: string) =>
  httpDocumentsApi({ baseUrl: new URL(url), token: "tok", tenant: "acme", level: "_user_ada" }, { sleep: async () => undefined });

describe("the documents API client", () => {
  it("puts raw bytes with the bearer token at /brain/{tenant}/projects/{level}/documents/{path}", async () => {
    // Prepare
    const { url, seen } = await serve((_, response) =>
      json(response, 200, { path: "_vance/skills/a/x.bin", etag: "abc", warnings: [{ path: "p", message: "m" }] }, { etag: '"abc"' }),
    );
    const bytes = Uint8Array.from([0, 0xff, 0x89, 10]);

    // Act
    const saved = await api(url).put("_vance/skills/a/x.bin", bytes);

    // Assess
    expect(seen).toEqual([
      {
        method: "PUT",
        url: "/brain/acme/projects/_user_ada/documents/_vance/skills/a/x.bin",
        authorization: "Bearer tok",
        body: Buffer.from(bytes),
      },
    ]);
    expect(saved).toEqual({ path: "_vance/skills/a/x.bin", etag: "abc", warnings: [{ path: "p", message: "m" }] });
  });

  it("lists with the prefix and hands out bare ETags", async () => {
    // Prepare
    const { url, seen } = await serve((_, response) =>
      json(response, 200, { documents: [{ path: "_vance/skills/a/SKILL.md", etag: '"e1"', size: 3 }] }),
    );

    // Act
    const listed = await api(url).list("_vance/skills/");

    // Assess
    expect(seen[0]?.url).toBe("/brain/acme/projects/_user_ada/documents?prefix=_vance%2Fskills%2F");
    expect(listed).toEqual([{ path: "_vance/skills/a/SKILL.md", etag: "e1", size: 3 }]);
  });

  it("turns a 422 into a SkillsApiError with the problems", async () => {
    // Prepare
    const problems = [{ path: "_vance/skills/a/SKILL.md", line: 3, message: "bad", severity: "error" }];
    const { url } = await serve((_, response) =>
      json(response, 422, { error: { code: "INVALID_DOCUMENT", message: "invalid", problems } }),
    );

    // Act
    const error = await api(url)
      .put("_vance/skills/a/SKILL.md", Buffer.from("x"))
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(SkillsApiError);
    expect(error).toMatchObject({ status: 422, code: "INVALID_DOCUMENT", problems, message: "422 INVALID_DOCUMENT: invalid" });
  });

  it("retries 503 and 429, then answers; gives up after four attempts", async () => {
    // Prepare
    let calls = 0;
    const { url } = await serve((_, response) => {
      calls += 1;
      if (calls <= 2)
        json(response, calls === 1 ? 503 : 429, { error: { code: "SERVICE_UNAVAILABLE", message: "busy" } }, { "retry-after": "1" });
      else if (calls === 3) response.writeHead(200).end(Buffer.from("body"));
      else json(response, 503, { error: { code: "SERVICE_UNAVAILABLE", message: "still busy" } });
    });
    const client = api(url);

    // Act
    const body = await client.get("_vance/skills/a/SKILL.md");
    const failure = await client.get("_vance/skills/a/SKILL.md").catch((e: unknown) => e);

    // Assess
    expect(Buffer.from(body).toString()).toBe("body");
    expect(failure).toMatchObject({ status: 503, code: "SERVICE_UNAVAILABLE" });
    expect(calls).toBe(3 + 4);
  });

  it("refuses an unsafe path before any request", async () => {
    // Prepare
    const { url, seen } = await serve((_, response) => json(response, 200, {}));

    // Act
    const error = await api(url)
      .get("_vance/skills/../secret")
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(InvalidRequest);
    expect(seen).toEqual([]);
  });
});

describe("the push / pull target", () => {
  it("parses <tenant>/<level> for a project, _tenant and _user_<login>", () => {
    // Act / Assess
    expect(parseLevelTarget("acme/alpha", "--to")).toEqual({ tenant: "acme", level: "alpha" });
    expect(parseLevelTarget("acme/_tenant", "--to")).toEqual({ tenant: "acme", level: "_tenant" });
    expect(parseLevelTarget("acme/_user_ada@example.com", "--to")).toEqual({ tenant: "acme", level: "_user_ada@example.com" });
  });

  it("refuses anything else with the flag's name", () => {
    // Act / Assess
    expect(() => parseLevelTarget(undefined, "--to")).toThrow("--to <tenant>/<level> is required");
    expect(() => parseLevelTarget("acme", "--to")).toThrow(/--to expects <tenant>\/<level>/);
    expect(() => parseLevelTarget("acme/a/b", "--from")).toThrow(/--from expects/);
    expect(() => parseLevelTarget("acme/_other", "--to")).toThrow(/--to: Project id/);
  });

  it("takes --url and --token over SKILLS_URL and SKILLS_TOKEN", async () => {
    // Prepare
    const env = { SKILLS_URL: "http://env.example:1", SKILLS_TOKEN: "env-token" };
    const target = { tenant: "acme", level: "alpha" };

    // Act
    const fromEnv = await resolveRemote(target, {}, env);
    const fromFlags = await resolveRemote(target, { url: "http://flag.example:2", token: "flag-token" }, env);

    // Assess
    expect([fromEnv.baseUrl.href, fromEnv.token]).toEqual(["http://env.example:1/", "env-token"]);
    expect([fromFlags.baseUrl.href, fromFlags.token]).toEqual(["http://flag.example:2/", "flag-token"]);
    await expect(resolveRemote(target, { url: "ftp://x" }, env)).rejects.toThrow(/http or https/);
  });

  it("defaults to the local stack's URL and, for a loopback URL only, signs a dev token for the target tenant", async () => {
    // Prepare
    const target = { tenant: "acme", level: "alpha" };

    // Act
    const local = await resolveRemote(target, {}, {});
    const remoteWithout = resolveRemote(target, { url: "https://skills.example" }, {});

    // Assess
    expect(local.baseUrl.href).toBe("http://127.0.0.1:3000/");
    const claims = JSON.parse(Buffer.from(local.token.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ tenant: "acme", roles: ["tenant-admin"] });
    await expect(remoteWithout).rejects.toThrow(/no token/);
  });
});

describe("the documents API client: history and restore (issue 17)", () => {
  it("lists versions with ?versions and restores with POST …:restore {versionId}", async () => {
    // Prepare
    const { url, seen } = await serve((request, response) =>
      request.method === "GET"
        ? json(response, 200, {
            versions: [{ versionId: "v2", etag: "e2", lastModified: "2025-01-02T00:00:00.000Z", size: 5, writtenBy: "ada" }],
          })
        : json(response, 200, { path: "_vance/skills/x/SKILL.md", etag: "e1", warnings: [] }),
    );

    // Act
    const versions = await api(url).versions!("_vance/skills/x/SKILL.md");
    const saved = await api(url).restore!("_vance/skills/x/SKILL.md", "v1");

    // Assess
    expect(versions.map((v) => [v.versionId, v.writtenBy])).toEqual([["v2", "ada"]]);
    expect(saved).toEqual({ path: "_vance/skills/x/SKILL.md", etag: "e1", warnings: [] });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      "GET /brain/acme/projects/_user_ada/documents/_vance/skills/x/SKILL.md?versions=",
      "POST /brain/acme/projects/_user_ada/documents/_vance/skills/x/SKILL.md:restore",
    ]);
    expect(JSON.parse(seen[1]!.body.toString())).toEqual({ versionId: "v1" });
  });

  it("turns a refused restore into a SkillsApiError with the service's code", async () => {
    // Prepare
    const { url } = await serve((_request, response) =>
      json(response, 422, { error: { code: "INVALID_DOCUMENT", message: "bad", problems: [{ path: "p", message: "m" }] } }),
    );

    // Act
    const error = await api(url).restore!("_vance/skills/x/SKILL.md", "v1").catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(SkillsApiError);
    expect((error as SkillsApiError).code).toBe("INVALID_DOCUMENT");
  });
});
