import type { WebSocket } from "ws";
import type { ConnectionFacts } from "./websocket-events.js";

/** An open WebSocket connection, reachable through the management endpoint by its id. */
export interface LocalConnection extends ConnectionFacts {
  readonly socket: WebSocket;
  lastActiveAt: number;
  /** Counts as activity for the idle timeout (API Gateway: inbound and outbound traffic). */
  touch(): void;
}

/** Connections that completed `$connect`; one leaves when its socket closes. */
export class ConnectionRegistry {
  private readonly connections = new Map<string, LocalConnection>();

  add(connection: LocalConnection): void {
    this.connections.set(connection.connectionId, connection);
  }

  get(connectionId: string): LocalConnection | undefined {
    return this.connections.get(connectionId);
  }

  delete(connectionId: string): void {
    this.connections.delete(connectionId);
  }

  all(): LocalConnection[] {
    return [...this.connections.values()];
  }
}
