import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import type { S3Client } from "@aws-sdk/client-s3";
import type { FauxqsApp } from "./fauxqs-hooks.js";

/**
 * fauxqs 1.9.2 keeps S3 only in memory (no storage option). With `--data`, every successful
 * write to a bucket is copied to `DIR/s3/objects` before fauxqs answers it (an `onSend` hook
 * holds the response), so a document the API acknowledged survives `kill -9`. After a mutation
 * the hook reads the key back from fauxqs itself (`inject`, no network) instead of interpreting
 * the request (chunked uploads, copies, multipart completes all end as "the key now holds X").
 *
 * One file pair per object: `<sha>.body` then `<sha>.json` (key, content type, metadata), each
 * written to a temporary name and renamed, so a crash leaves the old or the new version, never
 * half of one. Writes run one after another: the last one reads the last state.
 */
interface StoredObject {
  bucket: string;
  key: string;
  contentType?: string | undefined;
  metadata?: Record<string, string> | undefined;
}

const OBJECTS = "objects";
const fileNameOf = (bucket: string, key: string): string => createHash("sha256").update(`${bucket}\u0000${key}`).digest("hex");

async function writeAtomically(path: string, data: string | Uint8Array): Promise<void> {
  await writeFile(`${path}.tmp`, data);
  await rename(`${path}.tmp`, path);
}

/** The keys a successful S3 request may have changed; undefined when it changed none. */
export function mutatedKeys(method: string, url: string, body: unknown): { bucket: string; keys: string[] } | undefined {
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") return undefined;
  const [rawPath = "", query = ""] = url.split("?");
  const [bucketPart = "", ...keyParts] = rawPath.replace(/^\//, "").split("/");
  if (bucketPart === "" || bucketPart.startsWith("_")) return undefined;
  const bucket = decodeURIComponent(bucketPart);
  const key = keyParts.map((part) => decodeURIComponent(part)).join("/");
  if (key !== "") {
    // An upload part changes no object until CompleteMultipartUpload (POST …?uploadId=) does.
    if (method === "PUT" && /(^|&)partNumber=/.test(query)) return undefined;
    if (method === "POST" && /(^|&)uploads(=|&|$)/.test(query)) return undefined;
    return { bucket, keys: [key] };
  }
  // DeleteObjects: POST /bucket?delete with <Key> elements in the XML body.
  if (method === "POST" && /(^|&)delete(=|&|$)/.test(query)) {
    const xml = Buffer.isBuffer(body) ? body.toString("utf8") : typeof body === "string" ? body : "";
    const keys = [...xml.matchAll(/<Key>([\s\S]*?)<\/Key>/g)].map((m) => unescapeXml(m[1] ?? ""));
    return { bucket, keys };
  }
  return undefined;
}

const unescapeXml = (text: string): string =>
  text.replace(/&(lt|gt|quot|apos|amp);/g, (_m, name: string) => ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" })[name] ?? "");

const encodeKey = (key: string): string => key.split("/").map(encodeURIComponent).join("/");

export class S3WriteThrough {
  private chain: Promise<void> = Promise.resolve();
  private readonly dir: string;

  constructor(
    private readonly app: FauxqsApp,
    dataDir: string,
    private readonly onError: (error: unknown) => void,
  ) {
    this.dir = join(dataDir, "s3", OBJECTS);
  }

  /** Holds every successful S3 mutation's answer until its keys are on disk. */
  register(): void {
    this.app.addHook("onSend", async (request, reply, payload) => {
      if (reply.statusCode >= 300 || request.headers["x-amz-target"] !== undefined) return payload;
      const changed = mutatedKeys(request.method, request.url, request.body);
      if (changed === undefined || changed.keys.length === 0) return payload;
      await this.persist(changed.bucket, changed.keys);
      return payload;
    });
  }

  private persist(bucket: string, keys: string[]): Promise<void> {
    const next = this.chain.then(async () => {
      await mkdir(this.dir, { recursive: true });
      for (const key of keys) await this.persistKey(bucket, key);
    });
    // A failed write is reported and does not block the writes after it.
    this.chain = next.catch((error: unknown) => this.onError(error));
    return this.chain;
  }

  private async persistKey(bucket: string, key: string): Promise<void> {
    const base = join(this.dir, fileNameOf(bucket, key));
    const current = await this.app.inject({ method: "GET", url: `/${encodeURIComponent(bucket)}/${encodeKey(key)}` });
    if (current.statusCode === 404) {
      await rm(`${base}.json`, { force: true });
      await rm(`${base}.body`, { force: true });
      return;
    }
    if (current.statusCode !== 200) throw new Error(`Could not read back s3://${bucket}/${key} (status ${current.statusCode})`);
    const metadata: Record<string, string> = {};
    for (const [name, value] of Object.entries(current.headers)) {
      if (name.startsWith("x-amz-meta-") && typeof value === "string") metadata[name.slice("x-amz-meta-".length)] = value;
    }
    const contentType = current.headers["content-type"];
    const stored: StoredObject = {
      bucket,
      key,
      ...(typeof contentType === "string" ? { contentType } : {}),
      ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    };
    await writeAtomically(`${base}.body`, current.rawPayload);
    await writeAtomically(`${base}.json`, JSON.stringify(stored));
  }
}

/** Uploads what a previous run wrote through (and a snapshot of the older shutdown-only format). */
export async function restoreWrittenThrough(s3: S3Client, bucket: string, dataDir: string): Promise<number> {
  let restored = await restoreLegacySnapshot(s3, bucket, join(dataDir, "s3"));
  const dir = join(dataDir, "s3", OBJECTS);
  if (!existsSync(dir)) return restored;
  for (const name of await readdir(dir)) {
    if (!name.endsWith(".json")) continue;
    const stored = JSON.parse(await readFile(join(dir, name), "utf8")) as StoredObject;
    if (stored.bucket !== bucket) continue;
    const body = await readFile(join(dir, name.replace(/\.json$/, ".body"))).catch(() => undefined);
    if (body === undefined) continue;
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: stored.key,
        Body: body,
        ...(stored.contentType === undefined ? {} : { ContentType: stored.contentType }),
        ...(stored.metadata === undefined ? {} : { Metadata: stored.metadata }),
      }),
    );
    restored += 1;
  }
  return restored;
}

/** The format before write-through: `manifest.json` + `objects/<sha(key)>`, saved on clean shutdown only. */
async function restoreLegacySnapshot(s3: S3Client, bucket: string, dir: string): Promise<number> {
  const manifestPath = join(dir, "manifest.json");
  if (!existsSync(manifestPath)) return 0;
  const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as {
    objects: { key: string; file: string; contentType?: string; metadata?: Record<string, string> }[];
  };
  for (const entry of manifest.objects) {
    const path = join(dir, OBJECTS, entry.file);
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: entry.key,
        Body: await readFile(path),
        ...(entry.contentType === undefined ? {} : { ContentType: entry.contentType }),
        ...(entry.metadata === undefined ? {} : { Metadata: entry.metadata }),
      }),
    );
    // Now written through under the new name; the legacy copy would be restored again otherwise.
    await rm(path, { force: true });
  }
  await rm(manifestPath, { force: true });
  return manifest.objects.length;
}
