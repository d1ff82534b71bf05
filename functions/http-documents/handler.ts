import { catalogueChangeNotifier } from "../../shared/catalogue/document-change-notifier.js";
import { DocumentService } from "../../shared/documents/document-service.js";
import { catalogueVersionsFromEnv, runtimeFromEnv } from "../../shared/runtime/app-from-env.js";
import { httpHandler } from "../_shared/http-handler.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { documentsRoutes } from "./documents-routes.js";

// Module scope: built once per container. Documents only: the S3 store and the catalogue version
// bump (so every warm instance sees an edit on its next turn), no SkillsApp, no sandbox.
const { logger } = powertoolsObservability("skills-http-documents");
const runtime = runtimeFromEnv();
const documents = new DocumentService(runtime.documents, catalogueChangeNotifier(catalogueVersionsFromEnv(runtime)));

export const handler = httpHandler(documentsRoutes({ documents }), { logger });
