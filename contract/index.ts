/**
 * The API contract (API.md as zod/mini schemas): every request body, answer and WebSocket frame,
 * the error codes with their statuses and the cascade's level names. It imports nothing else of
 * this repository (check:layers rule `contract-self-contained`): the service parses with it, the
 * OpenAPI document is generated from it, the client's types are inferred from it.
 */
export type * from "./closed.js";
export * from "./common.js";
export * from "./documents.js";
export * from "./error-codes.js";
export * from "./levels.js";
export * from "./limits.js";
export * from "./processes.js";
export * from "./requests.js";
export * from "./service.js";
export * from "./skills.js";
export * from "./turns.js";
export * from "./ws-frames.js";
