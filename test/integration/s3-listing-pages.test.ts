import type { S3Client } from "@aws-sdk/client-s3";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mapWithConcurrency } from "../../shared/documents/cascade-layers.js";
import { S3DocumentStore } from "../../shared/documents/s3-document-store.js";
import { createTestBucket, deleteTestBucket, testS3Client } from "../support/aws-clients.js";

/**
 * The embedded S3 emulator sorted keys with localeCompare but paged by code-unit comparison, so
 * a page ending on `<skill>/references/…` skipped the `SKILL.md` of the next skill folder (1 000
 * pushed skills lost one). patches/fauxqs+*.patch sorts by code unit, as S3 does; this lists 10 000
 * keys in pages of 1 000 whose boundaries fall inside skill folders.
 */
describe("S3 listing over the emulator", () => {
  let s3: S3Client;
  let bucket: string;

  beforeAll(async () => {
    s3 = testS3Client();
    bucket = await createTestBucket(s3, "listing-pages");
  });

  afterAll(async () => {
    await deleteTestBucket(s3, bucket);
    s3.destroy();
  });

  it("lists all 10 000 keys in code-unit order when pages end inside skill folders", async () => {
    // Prepare: 2 500 skill folders of 4 keys each (mixed case: `SKILL.md` sorts before `references/`
    // by code unit, after it by locale), so every page of 1 000 ends inside a folder.
    const keys: string[] = [];
    for (let i = 0; i < 2500; i++) {
      const dir = `_vance/skills/s-${String(i).padStart(4, "0")}`;
      keys.push(`${dir}/SKILL.md`, `${dir}/evals/triggers.yaml`, `${dir}/references/a.md`, `${dir}/references/B.md`);
    }
    await mapWithConcurrency(keys, 32, (path) =>
      s3.send(new PutObjectCommand({ Bucket: bucket, Key: `tenants/acme/projects/big/${path}`, Body: "x" })),
    );
    const store = new S3DocumentStore({ client: s3, bucket });

    // Act
    const listed = await store.list("acme", "big", "_vance/");

    // Assess
    const expected = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(listed.length).toBe(10_000);
    expect(listed.map((ref) => ref.path)).toEqual(expected);
  }, 120_000);
});
