import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from "@aws-sdk/client-s3";
import type { S3Client } from "@aws-sdk/client-s3";

/**
 * fauxqs 1.9.2 keeps S3 only in memory (no storage option), so with `--data` the local stack
 * saves the documents bucket on shutdown and uploads it again on start. Only a clean shutdown
 * saves: after a crash the bucket comes back as of the previous clean shutdown.
 */
interface SnapshotManifest {
  version: 1;
  objects: { key: string; file: string; contentType?: string | undefined; metadata?: Record<string, string> | undefined }[];
}

const MANIFEST = "manifest.json";

const fileNameOf = (key: string): string => createHash("sha256").update(key).digest("hex");

export async function saveBucketSnapshot(s3: S3Client, bucket: string, dir: string): Promise<number> {
  const staging = `${dir}.saving`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(join(staging, "objects"), { recursive: true });
  const manifest: SnapshotManifest = { version: 1, objects: [] };
  let continuationToken: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: continuationToken }));
    for (const { Key: key } of page.Contents ?? []) {
      if (key === undefined) continue;
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      const file = fileNameOf(key);
      await writeFile(join(staging, "objects", file), (await object.Body?.transformToByteArray()) ?? new Uint8Array());
      manifest.objects.push({ key, file, contentType: object.ContentType, metadata: object.Metadata });
    }
    continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (continuationToken !== undefined);
  await writeFile(join(staging, MANIFEST), JSON.stringify(manifest, null, 2));
  // Replace the previous snapshot only once the new one is complete.
  await rm(dir, { recursive: true, force: true });
  await rename(staging, dir);
  return manifest.objects.length;
}

export async function restoreBucketSnapshot(s3: S3Client, bucket: string, dir: string): Promise<number> {
  const manifestPath = join(dir, MANIFEST);
  if (!existsSync(manifestPath)) return 0;
  const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as SnapshotManifest;
  for (const entry of manifest.objects) {
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: entry.key,
        Body: await readFile(join(dir, "objects", entry.file)),
        ...(entry.contentType === undefined ? {} : { ContentType: entry.contentType }),
        ...(entry.metadata === undefined ? {} : { Metadata: entry.metadata }),
      }),
    );
  }
  return manifest.objects.length;
}
