import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { page } from "../../shared/app/mcp/mcp-protocol.js";
import { directoryChildren, parseDirectoryUri, skillEntry, SKILLS_PAGE_SIZE, skillNameOfUri } from "../../shared/app/mcp/mcp-skills.js";
import { documentDigest, sha256Hex } from "../../shared/skills/document-digest.js";
import type { ResolvedSkill } from "../../shared/skills/resolved-skill.js";
import { skillMdRendition } from "../../shared/skills/skill-md-rendition.js";

const bytes = (text: string): Buffer => Buffer.from(text, "utf8");
const text = (data: Uint8Array): string => Buffer.from(data).toString("utf8");
const frontmatterOf = (data: Uint8Array): unknown => parseYaml(/^\uFEFF?---\r?\n([\s\S]*?)\r?\n---/.exec(text(data))?.[1] ?? "");
const skill = (fields: Partial<ResolvedSkill>): ResolvedSkill =>
  ({ name: "pdf", title: "Pdf", description: "d", arguments: false, files: [], ...fields }) as ResolvedSkill;

describe("SKILL.md rendition for the MCP Skills extension", () => {
  it("adds name: as the first frontmatter key and leaves every other byte as written", () => {
    // Prepare
    const stored = bytes('---\ndescription: Fills forms.\nlicense: MIT\nmetadata:\n  version: "2"\n---\n\n# Body {{ x }}\n');

    // Act
    const rendition = skillMdRendition("pdf", stored);

    // Assess
    expect("bytes" in rendition && text(rendition.bytes)).toBe(
      '---\nname: pdf\ndescription: Fills forms.\nlicense: MIT\nmetadata:\n  version: "2"\n---\n\n# Body {{ x }}\n',
    );
    expect("frontmatter" in rendition && rendition.frontmatter).toEqual({
      name: "pdf",
      description: "Fills forms.",
      license: "MIT",
      metadata: { version: "2" },
    });
    expect("frontmatter" in rendition && Object.keys(rendition.frontmatter)[0]).toBe("name");
    expect("bytes" in rendition && frontmatterOf(rendition.bytes)).toEqual("frontmatter" in rendition && rendition.frontmatter);
  });

  it("keeps a BOM and CRLF line ends, and quotes a folder name YAML would read as another type", () => {
    // Act
    const crlf = skillMdRendition("pdf", bytes("\uFEFF---\r\ndescription: d\r\n---\r\nBody\r\n"));
    const numeric = skillMdRendition("123", bytes("---\ndescription: d\n---\n"));
    const boolean = skillMdRendition("true", bytes("---\ndescription: d\n---\n"));

    // Assess
    expect("bytes" in crlf && text(crlf.bytes)).toBe("\uFEFF---\r\nname: pdf\r\ndescription: d\r\n---\r\nBody\r\n");
    expect("bytes" in numeric && text(numeric.bytes)).toBe('---\nname: "123"\ndescription: d\n---\n');
    expect("bytes" in numeric && frontmatterOf(numeric.bytes)).toEqual({ name: "123", description: "d" });
    expect("bytes" in boolean && frontmatterOf(boolean.bytes)).toEqual({ name: "true", description: "d" });
  });

  it("serves a SKILL.md that writes its own name as stored; a different name, a bad folder name or no description is refused with the reason", () => {
    // Prepare
    const named = bytes("---\nname: pdf\ndescription: d\n---\nBody\n");

    // Act
    const same = skillMdRendition("pdf", named);
    const other = skillMdRendition("pdf", bytes("---\nname: forms\ndescription: d\n---\n"));
    const folder = skillMdRendition("Bad_Name", bytes("---\ndescription: d\n---\n"));
    const undescribed = skillMdRendition("pdf", bytes("---\ntitle: T\n---\n"));
    const binary = skillMdRendition("pdf", Buffer.from([0xff, 0xfe, 0x00]));

    // Assess
    expect("bytes" in same && same.bytes).toBe(named);
    expect(other).toEqual({ refusal: expect.stringContaining("'forms'") });
    expect(folder).toEqual({ refusal: expect.stringContaining("not an Agent Skills name") });
    expect(undescribed).toEqual({ refusal: expect.stringContaining("no description") });
    expect(binary).toEqual({ refusal: expect.stringContaining("not UTF-8") });
  });

  it("stores with a SKILL.md the digest and size of its rendition, with any other document only the digest of its bytes", () => {
    // Prepare
    const stored = bytes("---\ndescription: d\n---\n");
    const rendition = bytes("---\nname: pdf\ndescription: d\n---\n");

    // Act
    const skillMd = documentDigest("_vance/skills/pdf/SKILL.md", "e1", stored);
    const file = documentDigest("_vance/skills/pdf/refs/a.md", "e2", bytes("a"));

    // Assess
    expect(skillMd).toEqual({
      etag: "e1",
      sha256: sha256Hex(stored),
      rendition: { sha256: sha256Hex(rendition), size: rendition.byteLength, frontmatter: '{"name":"pdf","description":"d"}' },
    });
    expect(file).toEqual({ etag: "e2", sha256: sha256Hex(bytes("a")) });
  });
});

describe("Skills extension paging and URIs", () => {
  it("pages skills by an opaque cursor, 50 at a time, until no nextCursor; a cursor it did not hand out is -32602", () => {
    // Prepare
    const items = Array.from({ length: 120 }, (_, i) => i);

    // Act
    const first = page(items, undefined, SKILLS_PAGE_SIZE);
    const second = page(items, first.nextCursor, SKILLS_PAGE_SIZE);
    const last = page(items, second.nextCursor, SKILLS_PAGE_SIZE);
    const bad = (): unknown => page(items, "bm90IGEgbnVtYmVy", SKILLS_PAGE_SIZE);

    // Assess
    expect([first.items.length, second.items.length, last.items.length]).toEqual([50, 50, 20]);
    expect([...first.items, ...second.items, ...last.items]).toEqual(items);
    expect(last.nextCursor).toBeUndefined();
    expect(first.nextCursor).not.toMatch(/^\d+$/);
    expect(bad).toThrow(expect.objectContaining({ code: ErrorCode.InvalidParams }));
  });

  it("names a skill only by skill://{name}/SKILL.md; anything else is -32602", () => {
    // Act
    const name = skillNameOfUri("skill://pdf/SKILL.md");
    const refused = [
      "skill://pdf/refs/SKILL.md",
      "skill://pdf",
      "file://pdf/SKILL.md",
      "skill:///SKILL.md",
      "skill://%E0%A4%A/SKILL.md",
    ].map((uri) => () => skillNameOfUri(uri));

    // Assess
    expect(name).toBe("pdf");
    for (const refusal of refused)
      expect(refusal).toThrow(
        expect.objectContaining({ code: ErrorCode.InvalidParams, message: expect.stringContaining("No skill is served at") }),
      );
  });

  it("lists a directory's direct children, subdirectories as inode/directory; a file or a missing directory is none", () => {
    // Prepare
    const pdf = skill({
      files: [
        { path: "templates/invoice.md", size: 4 },
        { path: "templates/regional/eu.md", size: 2 },
        { path: "run.sh", size: 1 },
      ],
    });

    // Act
    const root = directoryChildren(pdf, parseDirectoryUri("skill://pdf").directory);
    const templates = directoryChildren(pdf, parseDirectoryUri("skill://pdf/templates").directory);
    const file = directoryChildren(pdf, "run.sh");
    const missing = directoryChildren(pdf, "nothing");

    // Assess
    expect(root).toEqual([
      { uri: "skill://pdf/SKILL.md", name: "SKILL.md", mimeType: "text/markdown" },
      { uri: "skill://pdf/run.sh", name: "run.sh", mimeType: "text/x-shellscript", size: 1 },
      { uri: "skill://pdf/templates", name: "templates", mimeType: "inode/directory" },
    ]);
    expect(templates).toEqual([
      { uri: "skill://pdf/templates/invoice.md", name: "invoice.md", mimeType: "text/markdown", size: 4 },
      { uri: "skill://pdf/templates/regional", name: "regional", mimeType: "inode/directory" },
    ]);
    expect(file).toBeUndefined();
    expect(missing).toBeUndefined();
    expect(() => parseDirectoryUri("skill://pdf/")).toThrow(expect.objectContaining({ code: ErrorCode.InvalidParams }));
  });

  it("writes an entry with the SKILL.md URI, the frontmatter and every file as a sha256: digest with its size", () => {
    // Act
    const entry = skillEntry("pdf", {
      frontmatter: { name: "pdf", description: "d" },
      files: [
        { path: "SKILL.md", size: 3, sha256: "a".repeat(64) },
        { path: "a b.md", size: 1, sha256: "b".repeat(64) },
      ],
    });

    // Assess
    expect(entry).toEqual({
      uri: "skill://pdf/SKILL.md",
      frontmatter: { name: "pdf", description: "d" },
      resources: [
        { uri: "skill://pdf/SKILL.md", digest: `sha256:${"a".repeat(64)}`, size: 3 },
        { uri: "skill://pdf/a%20b.md", digest: `sha256:${"b".repeat(64)}`, size: 1 },
      ],
    });
  });
});
