/**
 * `skills-service/client`: a typed client of the Skills service (../shared/API.md). No Node-only
 * import here: it runs under Node (tsx), Vite bundles it for the browser.
 */
export { SkillsClient, defaultWebSocketUrl, DEFAULT_WAIT } from "./skills-client.js";
export type { SkillsClientOptions, WaitOptions, LaneResult } from "./skills-client.js";
export { HttpTransport, DEFAULT_RETRY } from "./http-transport.js";
export type { RetryPolicy, TokenSource, TransportOptions } from "./http-transport.js";
export { subscribe } from "./subscription.js";
export type { Subscription, SubscriptionOptions, WebSocketLike, WebSocketConstructor } from "./subscription.js";
export * from "./errors.js";
/** The cascade's level names (API.md), so a UI names the levels as the service does. */
export { SKILL_SOURCES, TENANT_PROJECT, USER_PROJECT_PREFIX, levelOfProject, userProject } from "../contract/levels.js";
export type { WritableLevel } from "../contract/levels.js";
export type * from "./types.js";
