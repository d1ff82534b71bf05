import type {
  DocumentRef,
  DocumentStore,
  DocumentVersion,
  GetVersionOptions,
  PutOptions,
  StoredDocument,
} from "../../shared/documents/document-store.js";

/** A store that passes every call to another, options included: tests override the calls they count. */
export class DelegatingDocumentStore implements DocumentStore {
  constructor(
    protected readonly inner: DocumentStore,
    readonly keepsVersions: boolean = inner.keepsVersions,
  ) {}
  versions(tenant: string, project: string, path: string): Promise<DocumentVersion[] | undefined> {
    return this.inner.versions ? this.inner.versions(tenant, project, path) : Promise.resolve(undefined);
  }
  getVersion(
    tenant: string,
    project: string,
    path: string,
    versionId: string,
    options?: GetVersionOptions,
  ): Promise<StoredDocument | undefined> {
    return this.inner.getVersion ? this.inner.getVersion(tenant, project, path, versionId, options) : Promise.resolve(undefined);
  }
  get(tenant: string, project: string, path: string): Promise<StoredDocument | undefined> {
    return this.inner.get(tenant, project, path);
  }
  put(
    tenant: string,
    project: string,
    path: string,
    body: Uint8Array | string,
    contentType?: string,
    options?: PutOptions,
  ): Promise<DocumentRef> {
    return this.inner.put(tenant, project, path, body, contentType, options);
  }
  delete(tenant: string, project: string, path: string): Promise<boolean> {
    return this.inner.delete(tenant, project, path);
  }
  list(tenant: string, project: string, prefix: string): Promise<DocumentRef[]> {
    return this.inner.list(tenant, project, prefix);
  }
}
