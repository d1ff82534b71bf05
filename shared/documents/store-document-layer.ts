import type { DocumentLayer, DocumentRef, DocumentStore, StoredDocument } from "./document-store.js";
import { validateProjectName, validateTenantId } from "./document-path.js";

/** One cascade layer backed by the store: a tenant's project (`<projectId>`, `_tenant`, `_user_<login>`). */
export class StoreDocumentLayer implements DocumentLayer {
  constructor(
    private readonly store: DocumentStore,
    readonly tenant: string,
    readonly project: string,
  ) {
    validateTenantId(tenant);
    validateProjectName(project);
  }

  read(path: string): Promise<StoredDocument | undefined> {
    return this.store.get(this.tenant, this.project, path);
  }

  list(prefix: string): Promise<DocumentRef[]> {
    return this.store.list(this.tenant, this.project, prefix);
  }
}
