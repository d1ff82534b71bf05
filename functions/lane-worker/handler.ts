import { powertoolsObservability } from "../_shared/observability.js";
import { laneWorkerFromEnv } from "./lane-worker-wiring.js";

// Module scope: built once per container.
export const { handler } = laneWorkerFromEnv(process.env, powertoolsObservability("skills-lane-worker"));
