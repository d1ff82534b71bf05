import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Who the sandbox work of the current request is for (the tenant), so the pool can serve
 * tenants in turn: one tenant's 40 slow renders then delay another tenant's preview by at most
 * one evaluation per worker, not by all 40. Set once where a request's tenant is known (the
 * HTTP wrapper, the lane applier); work without one shares the anonymous queue.
 */
const storage = new AsyncLocalStorage<string>();

export const withSandboxTenant = <T>(tenant: string, run: () => T): T => storage.run(tenant, run);

export const currentSandboxTenant = (): string | undefined => storage.getStore();
