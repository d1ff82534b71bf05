import { DocumentService } from "../../shared/documents/document-service.js";
import { runtimeFromEnv } from "../../shared/runtime/app-from-env.js";
import { httpHandler } from "../_shared/http-handler.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { documentsRoutes } from "./documents-routes.js";

// Module scope: built once per container. Documents only: the S3 store, no SkillsApp, no sandbox.
const { logger } = powertoolsObservability("skills-http-documents");
const documents = new DocumentService(runtimeFromEnv().documents);

export const handler = httpHandler(documentsRoutes({ documents }), { logger });
