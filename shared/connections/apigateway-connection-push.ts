import { ApiGatewayManagementApiClient, DeleteConnectionCommand, PostToConnectionCommand } from "@aws-sdk/client-apigatewaymanagementapi";
import type { ConnectionPush, PushOutcome, PushTarget } from "./connection-push.js";
import type { ConnectionStore } from "./connection-store.js";
import { fitFrame, MAX_FRAME_BYTES } from "./frame-size.js";
import { errorFrame } from "./server-frames.js";
import type { ServerFrame } from "./server-frames.js";
import type { ClientInstrumentation } from "../aws/aws-clients.js";
import type { Logger } from "../support/logger.js";

interface ApiGatewayConnectionPushOptions {
  maxBytes?: number;
  logger?: Pick<Logger, "warn">;
}

/** The one method used; tests pass a fake. */
export type ManagementApiClient = Pick<ApiGatewayManagementApiClient, "send">;

const errorName = (error: unknown): string | undefined => (error instanceof Error ? error.name : undefined);

/**
 * ConnectionPush over the WebSocket API's management endpoint. A `GoneException` means the
 * client is no longer there (closed, or `$disconnect` not processed yet): the connection and all
 * its subscriptions are removed at once, so later fan-outs stop paying for it.
 */
export class ApiGatewayConnectionPush implements ConnectionPush {
  private readonly maxBytes: number;

  constructor(
    private readonly client: ManagementApiClient,
    private readonly connections: ConnectionStore,
    private readonly options: ApiGatewayConnectionPushOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? MAX_FRAME_BYTES;
  }

  async send(target: PushTarget, frame: ServerFrame): Promise<PushOutcome> {
    const fitted = fitFrame(frame, this.maxBytes);
    if (fitted.altered)
      this.options.logger?.warn("WebSocket frame shrunk to fit the message limit", { type: frame.type, sentAs: fitted.frame.type });
    try {
      await this.post(target.connectionId, fitted.json);
      return "sent";
    } catch (error) {
      if (errorName(error) === "GoneException") {
        if (target.tenant !== undefined) await this.connections.remove(target.tenant, target.connectionId);
        return "gone";
      }
      // The quota we fit against was wrong for this endpoint: tell the client rather than drop silently.
      if (errorName(error) === "PayloadTooLargeException" && fitted.frame.type !== "error") {
        return this.send(
          target,
          errorFrame({ code: "INTERNAL", message: `A ${frame.type} frame was too large for the WebSocket API and was not sent` }),
        );
      }
      throw error;
    }
  }

  async disconnect(target: PushTarget): Promise<void> {
    try {
      await this.client.send(new DeleteConnectionCommand({ ConnectionId: target.connectionId }));
    } catch (error) {
      if (errorName(error) !== "GoneException") throw error;
    }
    if (target.tenant !== undefined) await this.connections.remove(target.tenant, target.connectionId);
  }

  private async post(connectionId: string, json: string): Promise<void> {
    await this.client.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: new TextEncoder().encode(json) }));
  }
}

/** `endpoint`: the stage's callback URL `https://{api}.execute-api.{region}.amazonaws.com/{stage}` (or the local stack's). */
export function createApiGatewayConnectionPush(
  config: { endpoint: string; region: string; instrument?: ClientInstrumentation | undefined },
  connections: ConnectionStore,
  options: ApiGatewayConnectionPushOptions = {},
): ApiGatewayConnectionPush {
  const client = new ApiGatewayManagementApiClient({ endpoint: config.endpoint, region: config.region });
  return new ApiGatewayConnectionPush(config.instrument ? config.instrument(client) : client, connections, options);
}
