import type { buildApp } from "fauxqs";

/** The fastify app fauxqs builds; the write-through hooks register on it before it listens. */
export type FauxqsApp = ReturnType<typeof buildApp>;
