import type { ListObjectsV2CommandInput, ListObjectsV2CommandOutput, S3Client } from "@aws-sdk/client-s3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CATALOGUE_KEY_WILDCARD, wildcardRegExp } from "../../infra/document-events.js";
import { MAX_DELIVERIES, S3EventEmulator, type S3ObjectEvent } from "../../infra/local/s3-event-emulator.js";

/** A bucket answering ListObjectsV2 (prefix, pages of `pageSize`) from a map of key → ETag. */
class FakeBucket {
  readonly objects = new Map<string, string>();
  readonly listed: ListObjectsV2CommandInput[] = [];
  failing = false;

  constructor(private readonly pageSize = 1000) {}

  readonly client = {
    send: async (command: { input: ListObjectsV2CommandInput }): Promise<Partial<ListObjectsV2CommandOutput>> => {
      this.listed.push(command.input);
      if (this.failing) throw new Error("connect ECONNREFUSED");
      const keys = [...this.objects.keys()].filter((key) => key.startsWith(command.input.Prefix ?? "")).sort();
      const start = command.input.ContinuationToken === undefined ? 0 : Number(command.input.ContinuationToken);
      const page = keys.slice(start, start + this.pageSize);
      const more = start + this.pageSize < keys.length;
      return {
        Contents: page.map((key) => ({ Key: key, ETag: `"${this.objects.get(key)}"`, Size: 7 })),
        IsTruncated: more,
        ...(more ? { NextContinuationToken: String(start + this.pageSize) } : {}),
      };
    },
  } as unknown as S3Client;
}

const SKILL = "tenants/acme/projects/web/_vance/skills/alpha/SKILL.md";
const RECIPE = "tenants/acme/projects/_tenant/_vance/recipes/default.yaml";

function emulatorOf(bucket: FakeBucket, deliver: (event: S3ObjectEvent) => Promise<void> = async () => undefined) {
  const delivered: S3ObjectEvent[] = [];
  const log: { level: string; message: string }[] = [];
  const emulator = new S3EventEmulator({
    s3: bucket.client,
    bucketName: "skills-local-documents",
    region: "eu-central-1",
    deliver: async (event) => {
      delivered.push(event);
      await deliver(event);
    },
    intervalMs: 60_000,
    logger: {
      warn: (message) => void log.push({ level: "warn", message }),
      error: (message) => void log.push({ level: "error", message }),
    },
  });
  return { emulator, delivered, log };
}

const summary = (events: S3ObjectEvent[]) => events.map((e) => [e["detail-type"], e.detail.object.key]);

let running: S3EventEmulator | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
  vi.useRealTimers();
});

describe("S3EventEmulator (local stand-in for the bucket's EventBridge notifications)", () => {
  it("takes the documents present at start as the baseline and sends nothing for them", async () => {
    // Prepare
    const bucket = new FakeBucket();
    bucket.objects.set(SKILL, "e1");
    const { emulator, delivered } = emulatorOf(bucket);
    running = emulator;

    // Act
    await emulator.start();
    await emulator.settled();

    // Assess
    expect(delivered).toEqual([]);
  });

  it("sends an EventBridge Object Created event for a new key and for a changed ETag, Object Deleted for a removed key", async () => {
    // Prepare
    const bucket = new FakeBucket();
    bucket.objects.set(SKILL, "e1");
    const { emulator, delivered } = emulatorOf(bucket);
    running = emulator;
    await emulator.start();

    // Act
    bucket.objects.set(RECIPE, "r1");
    await emulator.settled();
    bucket.objects.set(SKILL, "e2");
    await emulator.settled();
    bucket.objects.delete(RECIPE);
    await emulator.settled();

    // Assess
    expect(summary(delivered)).toEqual([
      ["Object Created", RECIPE],
      ["Object Created", SKILL],
      ["Object Deleted", RECIPE],
    ]);
    expect(delivered[0]).toMatchObject({
      version: "0",
      source: "aws.s3",
      region: "eu-central-1",
      resources: ["arn:aws:s3:::skills-local-documents"],
      detail: { bucket: { name: "skills-local-documents" }, object: { key: RECIPE, etag: "r1", size: 7 }, reason: "PutObject" },
    });
    expect(delivered[0]!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(delivered[2]!.detail).toMatchObject({ object: { key: RECIPE }, reason: "DeleteObject", "deletion-type": "Permanently Deleted" });
    expect(delivered[2]!.detail.object.etag).toBeUndefined();
  });

  it("sends nothing for an unchanged bucket or an overwrite with the same ETag", async () => {
    // Prepare
    const bucket = new FakeBucket();
    bucket.objects.set(SKILL, "e1");
    const { emulator, delivered } = emulatorOf(bucket);
    running = emulator;
    await emulator.start();

    // Act
    await emulator.settled();
    bucket.objects.set(SKILL, "e1");
    await emulator.settled();

    // Assess
    expect(delivered).toEqual([]);
  });

  it("lists only under tenants/ and passes only catalogue keys, as the stack's rule filters", async () => {
    // Prepare
    const bucket = new FakeBucket();
    const { emulator, delivered } = emulatorOf(bucket);
    running = emulator;
    await emulator.start();

    // Act
    for (const key of [
      SKILL,
      "tenants/acme/projects/web/notes/today.md",
      "tenants/acme/projects/web/workspace/out.json",
      "uploads/tenants/acme/projects/web/_vance/x.md",
    ]) {
      bucket.objects.set(key, "x");
    }
    await emulator.settled();

    // Assess
    expect(summary(delivered)).toEqual([["Object Created", SKILL]]);
    expect(bucket.listed.every((input) => input.Prefix === "tenants/" && input.Bucket === "skills-local-documents")).toBe(true);
  });

  it("follows continuation tokens across pages", async () => {
    // Prepare
    const bucket = new FakeBucket(2);
    const { emulator, delivered } = emulatorOf(bucket);
    running = emulator;
    await emulator.start();
    const keys = [1, 2, 3, 4, 5].map((n) => `tenants/acme/projects/web/_vance/skills/s${n}/SKILL.md`);

    // Act
    for (const key of keys) bucket.objects.set(key, "x");
    const before = bucket.listed.length;
    await emulator.settled();

    // Assess
    expect(delivered.map((e) => e.detail.object.key).sort()).toEqual(keys);
    expect(bucket.listed.length - before).toBe(3);
  });

  it("retries a failed delivery on the next scans and gives up after Lambda's attempts", async () => {
    // Prepare
    const bucket = new FakeBucket();
    const { emulator, delivered, log } = emulatorOf(bucket, async () => {
      throw new Error("function failed");
    });
    running = emulator;
    await emulator.start();
    bucket.objects.set(SKILL, "e1");

    // Act
    for (let scan = 0; scan < MAX_DELIVERIES + 2; scan++) await emulator.settled();

    // Assess
    expect(MAX_DELIVERIES).toBe(3);
    expect(summary(delivered)).toEqual(Array.from({ length: MAX_DELIVERIES }, () => ["Object Created", SKILL]));
    expect(log.map((line) => line.level)).toEqual(["warn", "warn", "error"]);
    expect(log[2]!.message).toContain("gave up");
  });

  it("delivers a key once a retry succeeds, and not again", async () => {
    // Prepare
    let failures = 1;
    const bucket = new FakeBucket();
    const { emulator, delivered } = emulatorOf(bucket, async () => {
      if (failures-- > 0) throw new Error("function failed once");
    });
    running = emulator;
    await emulator.start();
    bucket.objects.set(SKILL, "e1");

    // Act
    for (let scan = 0; scan < 3; scan++) await emulator.settled();

    // Assess
    expect(summary(delivered)).toEqual([
      ["Object Created", SKILL],
      ["Object Created", SKILL],
    ]);
  });

  it("rejects settled() when the bucket cannot be listed, and catches up once it can", async () => {
    // Prepare
    const bucket = new FakeBucket();
    const { emulator, delivered } = emulatorOf(bucket);
    running = emulator;
    await emulator.start();
    bucket.objects.set(SKILL, "e1");
    bucket.failing = true;

    // Act
    const failed = emulator.settled();
    await expect(failed).rejects.toThrow(/ECONNREFUSED/);
    bucket.failing = false;
    await emulator.settled();

    // Assess
    expect(summary(delivered)).toEqual([["Object Created", SKILL]]);
  });

  it("scans on its interval until stopped", async () => {
    // Prepare
    vi.useFakeTimers();
    const bucket = new FakeBucket();
    const { emulator, delivered } = emulatorOf(bucket);
    await emulator.start();
    bucket.objects.set(SKILL, "e1");

    // Act
    await vi.advanceTimersByTimeAsync(60_000);
    const afterOneInterval = summary(delivered);
    await emulator.stop();
    const listedAtStop = bucket.listed.length;
    bucket.objects.set(RECIPE, "r1");
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    await emulator.settled();

    // Assess
    expect(afterOneInterval).toEqual([["Object Created", SKILL]]);
    expect(bucket.listed.length).toBe(listedAtStop);
    expect(summary(delivered)).toEqual([["Object Created", SKILL]]);
  });
});

describe("the catalogue key wildcard", () => {
  it("matches catalogue keys as EventBridge does (`*` spans slashes) and nothing else", () => {
    // Prepare
    const pattern = wildcardRegExp(CATALOGUE_KEY_WILDCARD);

    // Act
    const matches = [
      SKILL,
      RECIPE,
      "tenants/a/projects/b/_vance/x",
      "tenants/a/projects/b/notes/x.md",
      "tenants/a/projects/b/_vancex/y",
      "x/tenants/a/projects/b/_vance/y",
    ].map((key) => pattern.test(key));

    // Assess
    expect(matches).toEqual([true, true, true, false, false, false]);
    expect(wildcardRegExp("a.b*(c)").test("a.bxx(c)")).toBe(true);
    expect(wildcardRegExp("a.b*(c)").test("aXbxx(c)")).toBe(false);
  });
});
