import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SendMessageCommand } from "@aws-sdk/client-sqs";
import type { MessageAttributeValue, SQSClient } from "@aws-sdk/client-sqs";
import type { FauxqsApp } from "./fauxqs-hooks.js";

/**
 * fauxqs keeps queues in memory only: after `kill -9` every 202'd lane request would stay QUEUED
 * forever, its message gone. With `--data`, each message a queue accepted is journaled to
 * `DIR/sqs/<queue>/<messageId>.json` before fauxqs answers the SendMessage (an `onSend` hook
 * holds the response), and removed once a consumer deletes it. On start the journal is sent
 * again, in the order it was accepted; the lane applies a request at most once
 * (shared/processes/applied-requests.ts), so a message that was applied but not yet deleted at
 * the crash costs a redelivery, never a second application.
 *
 * Not journaled: visibility and receive counts (a restarted message starts at delivery 1), and a
 * message fauxqs itself moves to a DLQ (its lane entry stays and is sent to the lane again).
 */
interface JournalEntry {
  queueName: string;
  /** Accept order across restarts: milliseconds, then a counter. */
  order: [number, number];
  messageId: string;
  body: string;
  groupId?: string | undefined;
  deduplicationId?: string | undefined;
  attributes?: Record<string, MessageAttributeValue> | undefined;
}

interface SendRequest {
  QueueUrl?: string;
  MessageBody?: string;
  MessageGroupId?: string;
  MessageDeduplicationId?: string;
  MessageAttributes?: Record<string, MessageAttributeValue>;
}

const queueNameOf = (queueUrl: string | undefined): string | undefined => {
  const name = queueUrl?.split("/").pop();
  return name !== undefined && /^[A-Za-z0-9_.-]{1,80}$/.test(name) ? name : undefined;
};

const safeId = (id: string): boolean => /^[A-Za-z0-9-]{1,128}$/.test(id);

const parse = (payload: unknown): Record<string, unknown> => {
  if (typeof payload !== "string") return {};
  try {
    return JSON.parse(payload) as Record<string, unknown>;
  } catch {
    return {};
  }
};

export class SqsJournal {
  private chain: Promise<void> = Promise.resolve();
  private counter = 0;
  /** Receipt handle → queue and message id, learnt from ReceiveMessage answers. */
  private readonly receipts = new Map<string, { queueName: string; messageId: string }>();
  private readonly dir: string;

  constructor(
    private readonly app: FauxqsApp,
    dataDir: string,
    private readonly onError: (error: unknown) => void,
  ) {
    this.dir = join(dataDir, "sqs");
  }

  register(): void {
    this.app.addHook("onSend", async (request, reply, payload) => {
      const target = request.headers["x-amz-target"];
      if (typeof target !== "string" || !target.startsWith("AmazonSQS.") || reply.statusCode >= 300) return payload;
      const body = (request.body ?? {}) as Record<string, unknown>;
      const answer = parse(payload);
      await this.serialized(() => this.apply(target.slice("AmazonSQS.".length), body, answer));
      return payload;
    });
  }

  private serialized(work: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(work).catch((error: unknown) => this.onError(error));
    return this.chain;
  }

  private async apply(action: string, body: Record<string, unknown>, answer: Record<string, unknown>): Promise<void> {
    const queueName = queueNameOf(body.QueueUrl as string | undefined);
    if (queueName === undefined) return;
    switch (action) {
      case "SendMessage":
        return this.journal(queueName, body as SendRequest, answer.MessageId);
      case "SendMessageBatch": {
        const entries = (body.Entries ?? []) as (SendRequest & { Id?: string })[];
        for (const ok of (answer.Successful ?? []) as { Id?: string; MessageId?: string }[]) {
          const entry = entries.find((candidate) => candidate.Id === ok.Id);
          if (entry) await this.journal(queueName, entry, ok.MessageId);
        }
        return;
      }
      case "ReceiveMessage":
        for (const message of (answer.Messages ?? []) as { MessageId?: string; ReceiptHandle?: string }[]) {
          if (message.MessageId !== undefined && message.ReceiptHandle !== undefined)
            this.receipts.set(message.ReceiptHandle, { queueName, messageId: message.MessageId });
        }
        return;
      case "DeleteMessage":
        return this.forget(body.ReceiptHandle);
      case "DeleteMessageBatch": {
        const entries = (body.Entries ?? []) as { Id?: string; ReceiptHandle?: string }[];
        for (const ok of (answer.Successful ?? []) as { Id?: string }[])
          await this.forget(entries.find((entry) => entry.Id === ok.Id)?.ReceiptHandle);
        return;
      }
      case "PurgeQueue":
      case "DeleteQueue":
        await rm(join(this.dir, queueName), { recursive: true, force: true });
        return;
      default:
        return;
    }
  }

  private async journal(queueName: string, request: SendRequest, messageId: unknown): Promise<void> {
    if (typeof messageId !== "string" || !safeId(messageId) || request.MessageBody === undefined) return;
    const entry: JournalEntry = {
      queueName,
      order: [Date.now(), (this.counter += 1)],
      messageId,
      body: request.MessageBody,
      groupId: request.MessageGroupId,
      deduplicationId: request.MessageDeduplicationId,
      attributes: request.MessageAttributes,
    };
    const dir = join(this.dir, queueName);
    await mkdir(dir, { recursive: true });
    const path = join(dir, `${messageId}.json`);
    // A FIFO duplicate answers the first message's id: its entry is already there, keep its order.
    if (existsSync(path)) return;
    await writeFile(`${path}.tmp`, JSON.stringify(entry));
    await rename(`${path}.tmp`, path);
  }

  private async forget(receiptHandle: unknown): Promise<void> {
    if (typeof receiptHandle !== "string") return;
    const known = this.receipts.get(receiptHandle);
    if (known === undefined) return;
    this.receipts.delete(receiptHandle);
    await rm(join(this.dir, known.queueName, `${known.messageId}.json`), { force: true });
  }
}

/**
 * Sends every journaled message of `queueUrl` again (accept order) and drops the old entries;
 * the hook journals the new messages under their new ids. Returns the bodies sent, in order.
 */
export async function replayJournal(sqs: SQSClient, queueUrl: string, dataDir: string): Promise<string[]> {
  const queueName = queueNameOf(queueUrl);
  if (queueName === undefined) return [];
  const dir = join(dataDir, "sqs", queueName);
  if (!existsSync(dir)) return [];
  const entries: { path: string; entry: JournalEntry }[] = [];
  for (const name of await readdir(dir)) {
    if (!name.endsWith(".json")) continue;
    const path = join(dir, name);
    entries.push({ path, entry: JSON.parse(await readFile(path, "utf8")) as JournalEntry });
  }
  entries.sort((a, b) => a.entry.order[0] - b.entry.order[0] || a.entry.order[1] - b.entry.order[1]);
  for (const { path, entry } of entries) {
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: entry.body,
        ...(entry.groupId === undefined ? {} : { MessageGroupId: entry.groupId }),
        ...(entry.deduplicationId === undefined ? {} : { MessageDeduplicationId: entry.deduplicationId }),
        ...(entry.attributes === undefined ? {} : { MessageAttributes: entry.attributes }),
      }),
    );
    await rm(path, { force: true });
  }
  return entries.map(({ entry }) => entry.body);
}
