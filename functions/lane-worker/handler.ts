// First: stack traces of the bundle are mapped to the sources, on demand (NODE_OPTIONS has no --enable-source-maps).
import "../_shared/source-mapped-stacks.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { laneWorkerFromEnv } from "./lane-worker-wiring.js";

// Module scope: built once per container.
export const { handler } = laneWorkerFromEnv(process.env, powertoolsObservability("skills-lane-worker"));
