import { QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { documentClientOf } from "../aws/dynamodb-client.js";
import type { DynamoDBClientLike } from "../aws/dynamodb-client.js";
import { validateProjectName, validateTenantId } from "../documents/document-path.js";
import type { DocumentDigests, StoredDigest } from "../documents/document-digests.js";
import { levelVersionKey } from "./dynamodb-catalogue-versions.js";

const isConditionFailure = (error: unknown): boolean => (error as { name?: string }).name === "ConditionalCheckFailedException";

/** The sort key of a document's entry on its level's partition (dynamodb-level-usage.ts writes the same). */
export const documentEntrySortKey = (path: string): string => `DOC#${encodeURIComponent(path)}`;

/** A digest as attributes of the document's entry item: set by the usage entry's PutItem and by `remember`. */
export function digestAttributes(digest: StoredDigest): Record<string, string | number> {
  const attributes: Record<string, string | number> = { sha256: digest.sha256, sha256Etag: digest.etag };
  const rendition = digest.rendition;
  if (rendition && "refusal" in rendition) attributes.renditionRefusal = rendition.refusal;
  else if (rendition)
    Object.assign(attributes, {
      renditionSha256: rendition.sha256,
      renditionSize: rendition.size,
      renditionFrontmatter: rendition.frontmatter,
    });
  return attributes;
}

function digestOf(item: Record<string, unknown>): StoredDigest | undefined {
  const { sha256, sha256Etag, renditionSha256, renditionSize, renditionFrontmatter, renditionRefusal } = item;
  if (typeof sha256 !== "string" || typeof sha256Etag !== "string") return undefined;
  const rendition =
    typeof renditionRefusal === "string"
      ? { refusal: renditionRefusal }
      : typeof renditionSha256 === "string" && typeof renditionSize === "number" && typeof renditionFrontmatter === "string"
        ? { sha256: renditionSha256, size: renditionSize, frontmatter: renditionFrontmatter }
        : undefined;
  return { etag: sha256Etag, sha256, ...(rendition ? { rendition } : {}) };
}

/**
 * DocumentDigests on the level usage entries (`T#<tenant>#LEVEL#<project>` / `DOC#<path>`): the
 * digests of one skill folder are one Query of the level's partition by sort-key prefix. `remember`
 * only annotates an entry that exists (the item carries the level's `size`): a digest never
 * creates an entry, which the level's counters would then misread as a document of size 0.
 */
export class DynamoDBDocumentDigests implements DocumentDigests {
  private readonly documents: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClientLike,
    private readonly tableName: string,
  ) {
    this.documents = documentClientOf(client);
  }

  async under(tenant: string, project: string, prefix: string): Promise<ReadonlyMap<string, StoredDigest>> {
    const pk = levelVersionKey(validateTenantId(tenant), validateProjectName(project)).pk;
    const found = new Map<string, StoredDigest>();
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.documents.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
          ExpressionAttributeValues: { ":pk": pk, ":prefix": documentEntrySortKey(prefix) },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of out.Items ?? []) {
        const digest = digestOf(item);
        if (digest) found.set(decodeURIComponent(String(item.sk).slice("DOC#".length)), digest);
      }
      start = out.LastEvaluatedKey;
    } while (start);
    return found;
  }

  async remember(tenant: string, project: string, path: string, digest: StoredDigest): Promise<void> {
    const attributes = Object.entries(digestAttributes(digest));
    // A digest of another kind of document (no rendition) clears a rendition left by an older write.
    const removed = ["renditionSha256", "renditionSize", "renditionFrontmatter", "renditionRefusal"].filter(
      (name) => !attributes.some(([key]) => key === name),
    );
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: levelVersionKey(validateTenantId(tenant), validateProjectName(project)).pk, sk: documentEntrySortKey(path) },
          UpdateExpression: `SET ${attributes.map((_, i) => `#a${i} = :v${i}`).join(", ")}${removed.length > 0 ? ` REMOVE ${removed.map((_, i) => `#r${i}`).join(", ")}` : ""}`,
          ConditionExpression: "attribute_exists(#size)",
          ExpressionAttributeNames: {
            "#size": "size",
            ...Object.fromEntries(attributes.map(([name], i) => [`#a${i}`, name])),
            ...Object.fromEntries(removed.map((name, i) => [`#r${i}`, name])),
          },
          ExpressionAttributeValues: Object.fromEntries(attributes.map(([, value], i) => [`:v${i}`, value])),
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}
