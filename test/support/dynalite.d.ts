// dynalite ships no types; this is the part of its API the emulator setup uses.
declare module "dynalite" {
  import type { Server } from "node:http";

  interface DynaliteOptions {
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
    path?: string;
    verbose?: boolean;
    debug?: boolean;
  }

  export default function dynalite(options?: DynaliteOptions): Server;
}
