// First: stack traces of the bundle are mapped to the sources, on demand (NODE_OPTIONS has no --enable-source-maps).
import "../_shared/source-mapped-stacks.js";
import { catalogueChangeNotifier } from "../../shared/catalogue/document-change-notifier.js";
import { DocumentService } from "../../shared/app/document-service.js";
import { catalogueVersionsFromEnv, levelPatternHintsFromEnv, levelUsageFromEnv, runtimeFromEnv } from "../../shared/wiring/app-from-env.js";
import { httpHandler } from "../_shared/http-handler.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { traced } from "../_shared/tracing.js";
import { documentsRoutes } from "./documents-routes.js";

// Module scope: built once per container. Documents only: the S3 store and the catalogue version
// bump (so every warm instance sees an edit on its next turn) and the level usage counters, no
// SkillsApp, no sandbox.
const { logger, tracer } = powertoolsObservability("skills-http-documents");
const runtime = runtimeFromEnv(process.env, { instrument: tracer.instrument });
const documents = new DocumentService(
  runtime.documents,
  catalogueChangeNotifier(catalogueVersionsFromEnv(runtime)),
  runtime.limits,
  levelUsageFromEnv(runtime),
  levelPatternHintsFromEnv(runtime),
);

export const handler = traced(tracer, "http-documents", httpHandler(documentsRoutes({ documents }), { logger }));
