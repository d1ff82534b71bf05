// First: stack traces of the bundle are mapped to the sources, on demand (NODE_OPTIONS has no --enable-source-maps).
import "../_shared/source-mapped-stacks.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";
import { SkillManifests } from "../../shared/skills/skill-manifests.js";
import { documentDigestsFromEnv, skillsAppFromEnv, runtimeFromEnv } from "../../shared/wiring/app-from-env.js";
import { httpHandler } from "../_shared/http-handler.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { traced } from "../_shared/tracing.js";
import { skillsRoutes } from "./skills-routes.js";

// Module scope: built once per container. Listing and resolving never render, so no sandbox here.
const { logger, tracer } = powertoolsObservability("skills-http-skills");
const runtime = runtimeFromEnv(process.env, { instrument: tracer.instrument });
// Snapshots are read, never written: this function may not move a level's pointer (issue 27).
const app = skillsAppFromEnv(runtime, { logger, levelSnapshotWrites: false });
// Digests of the skill detail's files (issue 32): stored ones, else taken from the bytes once and stored.
const manifests = new SkillManifests({ loader: new SkillLoader(app.sources), digests: documentDigestsFromEnv(runtime) });

export const handler = traced(tracer, "http-skills", httpHandler(skillsRoutes({ app, manifests }), { logger }));
