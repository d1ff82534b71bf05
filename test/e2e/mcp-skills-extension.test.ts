import { createHash } from "node:crypto";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import * as z from "zod/v4";
import { ApiClient, skillMd } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * The MCP Skills extension (SEP-2640) over the local stack, driven by the official SDK client
 * with custom requests (the SDK has no helper for them): skills/list with paging, skills/get,
 * resources/directory/read; every digest checked against the bytes resources/read returns; the
 * authorization matrix of the other MCP methods; and a host that ignores the extension.
 */

const TENANT = "acme";
const OTHER_TENANT = "globex";
const P1 = "p1";
const BULK = 55;

// This service's own form: no `name:` (the folder is the name); MCP serves it with `name: pdf` added.
const PDF = skillMd(["description: Fills PDF forms.", "license: MIT", "metadata:", '  version: "2"'].join("\n"), "Use `templates/`.\n");
const NAMED = skillMd(["name: named", "description: Written with its name."].join("\n"), "Named body.\n");
const BAD = skillMd("description: A folder name other hosts refuse.", "Bad body.\n");
const SECRET = skillMd("description: Bob's own skill.", "Bob only.\n");
const FOREIGN = skillMd("description: Another tenant's skill.", "Foreign.\n");
const LOGO = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xde, 0xad, 0xbe, 0xef]);
const PDF_FILES: Record<string, string | Buffer> = {
  "references/FORMS.md": "# Forms\n",
  "templates/invoice.md": "Invoice {{ n }}\n",
  "templates/regional/eu.md": "EU invoice\n",
  "scripts/extract.py": "print('x')\n",
  "assets/logo.png": LOGO,
};

const SkillResourceSchema = z.object({ uri: z.string(), digest: z.string().regex(/^sha256:[0-9a-f]{64}$/), size: z.number().int().min(0) });
const SkillSchema = z.object({
  uri: z.string(),
  frontmatter: z.looseObject({ name: z.string(), description: z.string() }),
  resources: z.array(SkillResourceSchema),
});
const ListSkillsResultSchema = z.looseObject({
  resultType: z.literal("complete"),
  skills: z.array(SkillSchema),
  nextCursor: z.string().optional(),
  ttlMs: z.number(),
  cacheScope: z.enum(["public", "private"]),
  _meta: z
    .looseObject({ "skills-service/skipped": z.array(z.object({ name: z.string(), uri: z.string(), reason: z.string() })).optional() })
    .optional(),
});
const GetSkillResultSchema = z.looseObject({
  resultType: z.literal("complete"),
  skill: SkillSchema,
  ttlMs: z.number(),
  cacheScope: z.enum(["public", "private"]),
});
const DirectoryResultSchema = z.looseObject({
  resultType: z.literal("complete"),
  resources: z.array(z.looseObject({ uri: z.string(), name: z.string(), mimeType: z.string().optional(), size: z.number().optional() })),
  nextCursor: z.string().optional(),
});
type SkillEntry = z.infer<typeof SkillSchema>;

let stack: LocalStack;
let alice: string;
let bob: string;
let outsider: string;
let foreigner: string;
const clients: Client[] = [];

const mcpUrl = (tenant: string): URL => new URL(`${stack.httpUrl}/brain/${tenant}/mcp?projectId=${P1}`);

async function connect(token: string, tenant = TENANT): Promise<Client> {
  const client = new Client({ name: "skills-extension-e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(mcpUrl(tenant), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  clients.push(client);
  return client;
}

async function listAll(client: Client): Promise<{ pages: z.infer<typeof ListSkillsResultSchema>[]; skills: SkillEntry[] }> {
  const pages: z.infer<typeof ListSkillsResultSchema>[] = [];
  let cursor: string | undefined;
  do {
    const result = await client.request({ method: "skills/list", params: cursor === undefined ? {} : { cursor } }, ListSkillsResultSchema);
    pages.push(result);
    cursor = result.nextCursor;
  } while (cursor !== undefined);
  return { pages, skills: pages.flatMap((p) => p.skills) };
}

const getSkill = (client: Client, uri: string) => client.request({ method: "skills/get", params: { uri } }, GetSkillResultSchema);
const readDirectory = (client: Client, uri: string) =>
  client.request({ method: "resources/directory/read", params: { uri } }, DirectoryResultSchema);

/** The bytes resources/read returns for a URI: text as UTF-8, a blob decoded. */
async function bytesOf(client: Client, uri: string): Promise<Buffer> {
  const { contents } = await client.readResource({ uri });
  const [content] = contents;
  if (content === undefined) throw new Error(`no content for ${uri}`);
  return "text" in content ? Buffer.from(content.text, "utf8") : Buffer.from(String(content.blob), "base64");
}

const sha256 = (bytes: Buffer): string => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

const frontmatterOf = (text: string): unknown => parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(text)?.[1] ?? "");

beforeAll(async () => {
  stack = await startLocalStack();
  alice = await stack.token({ tenant: TENANT, login: "alice", projects: [P1], roles: [`project-admin:${P1}`] });
  bob = await stack.token({ tenant: TENANT, login: "bob", projects: [P1] });
  outsider = await stack.token({ tenant: TENANT, login: "carol", projects: ["p2"] });
  foreigner = await stack.token({ tenant: OTHER_TENANT, login: "gina", projects: [P1], roles: [`project-admin:${P1}`] });
  const api = new ApiClient(stack.httpUrl, alice);
  const puts: (() => ReturnType<ApiClient["putDocument"]>)[] = [
    () => api.putDocument(TENANT, P1, "_vance/skills/pdf/SKILL.md", PDF),
    ...Object.entries(PDF_FILES).map(
      ([path, body]) =>
        () =>
          api.putDocument(TENANT, P1, `_vance/skills/pdf/${path}`, body, path.endsWith(".png") ? "image/png" : "text/markdown"),
    ),
    () => api.putDocument(TENANT, P1, "_vance/skills/named/SKILL.md", NAMED),
    () => api.putDocument(TENANT, P1, "_vance/skills/Bad_Name/SKILL.md", BAD),
    ...Array.from(
      { length: BULK },
      (_, i) => () =>
        api.putDocument(
          TENANT,
          P1,
          `_vance/skills/bulk-${String(i).padStart(2, "0")}/SKILL.md`,
          skillMd(`description: Bulk skill ${i}.`, `Bulk ${i}.\n`),
        ),
    ),
    () => api.as(bob).putDocument(TENANT, "_user_bob", "_vance/skills/secret/SKILL.md", SECRET),
    () => api.as(foreigner).putDocument(OTHER_TENANT, P1, "_vance/skills/foreign/SKILL.md", FOREIGN),
  ];
  for (let i = 0; i < puts.length; i += 8) {
    for (const response of await Promise.all(puts.slice(i, i + 8).map((put) => put()))) expect(response.status, response.text).toBe(200);
  }
}, 180_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await stack?.close();
});

describe("MCP Skills extension over the local stack (SDK client, custom requests)", () => {
  it("declares the extension with directoryRead, beside the resources capability", async () => {
    // Act
    const client = await connect(alice);

    // Assess
    expect(client.getServerCapabilities()).toMatchObject({
      resources: {},
      extensions: { "io.modelcontextprotocol/skills": { directoryRead: true } },
    });
  });

  it("lists every visible skill in pages of at most 50 with complete manifests; a skill it cannot serve is skipped with its reason", async () => {
    // Prepare
    const client = await connect(alice);

    // Act
    const { pages, skills } = await listAll(client);

    // Assess
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) expect(page.skills.length + (page._meta?.["skills-service/skipped"]?.length ?? 0)).toBeLessThanOrEqual(50);
    expect(pages[0]).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    const uris = skills.map((s) => s.uri);
    expect(new Set(uris).size).toBe(uris.length);
    expect(uris).toEqual(
      expect.arrayContaining([
        "skill://pdf/SKILL.md",
        "skill://named/SKILL.md",
        "skill://bulk-00/SKILL.md",
        `skill://bulk-${BULK - 1}/SKILL.md`,
      ]),
    );
    expect(uris.filter((u) => u.startsWith("skill://bulk-"))).toHaveLength(BULK);
    expect(uris.some((u) => u.startsWith("skill://secret/") || u.startsWith("skill://foreign/") || u.startsWith("skill://Bad_Name/"))).toBe(
      false,
    );
    const skipped = pages.flatMap((p) => p._meta?.["skills-service/skipped"] ?? []);
    expect(skipped).toEqual([
      { name: "Bad_Name", uri: "skill://Bad_Name/SKILL.md", reason: expect.stringContaining("not an Agent Skills name") },
    ]);
    const pdf = skills.find((s) => s.uri === "skill://pdf/SKILL.md");
    expect(pdf?.frontmatter).toEqual({ name: "pdf", description: "Fills PDF forms.", license: "MIT", metadata: { version: "2" } });
    expect(Object.keys(pdf?.frontmatter ?? {})[0]).toBe("name");
    expect(pdf?.resources.map((r) => r.uri).sort()).toEqual(
      ["skill://pdf/SKILL.md", ...Object.keys(PDF_FILES).map((p) => `skill://pdf/${p}`)].sort(),
    );
    expect(pdf?.resources.find((r) => r.uri === "skill://pdf/assets/logo.png")).toEqual({
      uri: "skill://pdf/assets/logo.png",
      digest: sha256(LOGO),
      size: LOGO.byteLength,
    });
    expect(skills.find((s) => s.uri === "skill://named/SKILL.md")?.resources).toEqual([
      { uri: "skill://named/SKILL.md", digest: sha256(Buffer.from(NAMED)), size: Buffer.byteLength(NAMED) },
    ]);
  });

  it("serves bytes through resources/read that hash to every listed digest, SKILL.md as the rendition its frontmatter describes, and resources/list agrees on every URI", async () => {
    // Prepare
    const client = await connect(alice);
    const { skills } = await listAll(client);
    const listed = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor === undefined ? {} : { cursor });
      for (const resource of page.resources) listed.add(resource.uri);
      cursor = page.nextCursor;
    } while (cursor !== undefined);

    // Act
    const checked = await Promise.all(
      skills.flatMap((skill) => skill.resources.map(async (resource) => ({ skill, resource, bytes: await bytesOf(client, resource.uri) }))),
    );

    // Assess
    expect(checked.length).toBeGreaterThan(BULK + Object.keys(PDF_FILES).length);
    for (const { skill, resource, bytes } of checked) {
      expect(listed.has(resource.uri), `${resource.uri} in resources/list`).toBe(true);
      expect({ uri: resource.uri, digest: sha256(bytes), size: bytes.byteLength }).toEqual(resource);
      if (resource.uri === skill.uri) expect(frontmatterOf(bytes.toString("utf8"))).toEqual(skill.frontmatter);
    }
    const pdfMd = checked.find((c) => c.resource.uri === "skill://pdf/SKILL.md")?.bytes.toString("utf8");
    expect(pdfMd).toBe(PDF.replace("---\n", "---\nname: pdf\n"));
  });

  it("refuses a cursor it did not hand out with -32602", async () => {
    // Prepare
    const client = await connect(alice);

    // Act
    const refused = await client
      .request({ method: "skills/list", params: { cursor: "not-a-cursor" } }, ListSkillsResultSchema)
      .catch((error: unknown) => error);

    // Assess
    expect(refused).toMatchObject({ code: -32602 });
  });

  it("gets one skill by its SKILL.md URI as its listing entry; any other URI is -32602", async () => {
    // Prepare
    const client = await connect(alice);
    const { skills } = await listAll(client);

    // Act
    const got = await getSkill(client, "skill://pdf/SKILL.md");
    const refusals = await Promise.all(
      [
        "skill://nope/SKILL.md",
        "skill://secret/SKILL.md",
        "skill://foreign/SKILL.md",
        "skill://pdf/references/FORMS.md",
        "skill://pdf",
        "https://pdf/SKILL.md",
        "skill://Bad_Name/SKILL.md",
      ].map((uri) => getSkill(client, uri).catch((error: unknown) => error)),
    );

    // Assess
    expect(got).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "private" });
    expect(got.skill).toEqual(skills.find((s) => s.uri === "skill://pdf/SKILL.md"));
    for (const refusal of refusals)
      expect(refusal).toMatchObject({ code: -32602, message: expect.stringContaining("No skill is served at") });
    expect(refusals.at(-1)).toMatchObject({ message: expect.stringContaining("not an Agent Skills name") });
  });

  it("reads a skill's directories one level at a time; a file, an unknown or another user's skill is -32602", async () => {
    // Prepare
    const client = await connect(alice);

    // Act
    const root = await readDirectory(client, "skill://pdf");
    const templates = await readDirectory(client, "skill://pdf/templates");
    const regional = await readDirectory(client, "skill://pdf/templates/regional");
    const refusals = await Promise.all(
      ["skill://pdf/SKILL.md", "skill://pdf/nothing", "skill://nope", "skill://secret", "skill://pdf/"].map((uri) =>
        readDirectory(client, uri).catch((error: unknown) => error),
      ),
    );

    // Assess
    expect(root.resources).toEqual([
      { uri: "skill://pdf/SKILL.md", name: "SKILL.md", mimeType: "text/markdown" },
      { uri: "skill://pdf/assets", name: "assets", mimeType: "inode/directory" },
      { uri: "skill://pdf/references", name: "references", mimeType: "inode/directory" },
      { uri: "skill://pdf/scripts", name: "scripts", mimeType: "inode/directory" },
      { uri: "skill://pdf/templates", name: "templates", mimeType: "inode/directory" },
    ]);
    expect(templates.resources).toEqual([
      {
        uri: "skill://pdf/templates/invoice.md",
        name: "invoice.md",
        mimeType: "text/markdown",
        size: Buffer.byteLength(String(PDF_FILES["templates/invoice.md"])),
      },
      { uri: "skill://pdf/templates/regional", name: "regional", mimeType: "inode/directory" },
    ]);
    expect(regional.resources.map((r) => r.uri)).toEqual(["skill://pdf/templates/regional/eu.md"]);
    for (const refusal of refusals) expect(refusal).toMatchObject({ code: -32602 });
  });

  it("holds the authorization matrix: another user's _user_ skill only for its owner, another tenant and a non-member refused with 403", async () => {
    // Prepare
    const asBob = await connect(bob);
    const asGina = await connect(foreigner, OTHER_TENANT);
    const raw = (tenant: string, token: string) =>
      fetch(mcpUrl(tenant), {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "skills/list", params: {} }),
      });

    // Act
    const bobs = await listAll(asBob);
    const bobSecret = await getSkill(asBob, "skill://secret/SKILL.md");
    const ginas = await listAll(asGina);
    const ginaPdf = await getSkill(asGina, "skill://pdf/SKILL.md").catch((error: unknown) => error);
    const otherTenant = await raw(OTHER_TENANT, alice);
    const nonMember = await raw(TENANT, outsider);
    const sdkRefused = await connect(outsider).catch((error: unknown) => error);

    // Assess
    expect(bobs.skills.map((s) => s.uri)).toContain("skill://secret/SKILL.md");
    expect(bobSecret.skill.frontmatter).toEqual({ name: "secret", description: "Bob's own skill." });
    expect(ginas.skills.map((s) => s.uri)).toContain("skill://foreign/SKILL.md");
    expect(ginas.skills.some((s) => s.uri === "skill://pdf/SKILL.md" || s.uri.startsWith("skill://bulk-"))).toBe(false);
    expect(ginaPdf).toMatchObject({ code: -32602 });
    expect(otherTenant.status).toBe(403);
    expect(nonMember.status).toBe(403);
    expect(sdkRefused).toBeInstanceOf(Error);
  });

  it("still serves a host that ignores the extension: prompts and resources as before", async () => {
    // Prepare
    const client = await connect(alice);

    // Act
    const { prompts } = await client.listPrompts();
    const prompt = await client.getPrompt({ name: "pdf" });
    const forms = await client.readResource({ uri: "skill://pdf/references/FORMS.md" });

    // Assess
    expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(["pdf", "named", "bulk-00"]));
    expect(prompt.messages[0]?.content).toMatchObject({ type: "text", text: expect.stringContaining("Use `templates/`.") });
    expect(forms.contents).toEqual([{ uri: "skill://pdf/references/FORMS.md", mimeType: "text/markdown", text: "# Forms\n" }]);
  });

  it("shows the same digests in the HTTP skill detail's files", async () => {
    // Prepare
    const api = new ApiClient(stack.httpUrl, alice);

    // Act
    const detail = await api.effectiveSkill(TENANT, "pdf", P1);

    // Assess
    expect(detail.status).toBe(200);
    const { files } = detail.json;
    expect(files.find((f) => f.path === "assets/logo.png")).toEqual({
      path: "assets/logo.png",
      size: LOGO.byteLength,
      digest: sha256(LOGO),
    });
    expect(
      files.every(
        (f) =>
          f.digest === sha256(Buffer.isBuffer(PDF_FILES[f.path]) ? (PDF_FILES[f.path] as Buffer) : Buffer.from(String(PDF_FILES[f.path]))),
      ),
    ).toBe(true);
  });

  it("takes the digest of a file written around the API from its new bytes", async () => {
    // Prepare
    const s3 = new S3Client({ region: stack.region, endpoint: stack.endpoints.s3, credentials: stack.credentials, forcePathStyle: true });
    const changed = "# Forms, changed around the API\n";
    try {
      await s3.send(
        new PutObjectCommand({
          Bucket: stack.resources.bucketName,
          Key: `tenants/${TENANT}/projects/${P1}/_vance/skills/pdf/references/FORMS.md`,
          Body: changed,
          ContentType: "text/markdown",
        }),
      );
    } finally {
      s3.destroy();
    }
    await stack.s3EventsSettled();
    const client = await connect(alice);

    // Act
    const first = await getSkill(client, "skill://pdf/SKILL.md");
    const again = await getSkill(client, "skill://pdf/SKILL.md");
    const read = await bytesOf(client, "skill://pdf/references/FORMS.md");

    // Assess
    const forms = { uri: "skill://pdf/references/FORMS.md", digest: sha256(Buffer.from(changed)), size: Buffer.byteLength(changed) };
    expect(first.skill.resources).toContainEqual(forms);
    expect(again.skill.resources).toContainEqual(forms);
    expect(sha256(read)).toBe(forms.digest);
  });
});
