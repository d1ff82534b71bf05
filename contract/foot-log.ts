import * as z from "zod/mini";
import "./locale.js";

/**
 * One `vance.log` entry of a Foot script (spec §13.5), as a client frame carries it. A file of its
 * own so the lane worker, which checks the entries, does not evaluate every frame schema at init.
 */
export const FootLogEntry = z.strictObject({
  level: z.enum(["debug", "info", "warn", "error"]),
  message: z.string().check(z.maxLength(4_000)),
});

export type FootLogEntry = z.infer<typeof FootLogEntry>;
