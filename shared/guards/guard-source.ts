import { InvalidRequest } from "../errors.js";
import { strictUtf8 } from "../documents/document-body.js";
import { cascadeLayers, pinnedLayer } from "../documents/cascade-layers.js";
import type { CascadeSources } from "../documents/cascade-layers.js";
import type { GuardConfig, Process } from "../processes/process.js";
import { scopeOf } from "../steering/steer-context.js";
import { GuardScriptNotFound } from "./guard-errors.js";

/** A guard runs on every turn completion; its source is bounded like a skill script's. */
const MAX_GUARD_SOURCE_BYTES = 256 * 1024;

/**
 * The source of the process's guard. `guard inline` carries it; `guard script <path>` names a
 * document read from the layer the installing skill came from (layer-pinned like reference
 * docs), or — when no skill installed it — the first layer of the process's cascade that has it.
 */
export async function guardSource(
  process: Process,
  guard: GuardConfig,
  sources: Pick<CascadeSources, "store" | "bundled">,
): Promise<string> {
  if (guard.type === "inline") return guard.source;
  const scope = scopeOf(process);
  const layers = guard.layer ? [pinnedLayer(scope, sources, guard.layer)] : cascadeLayers(scope, sources);
  for (const { layer } of layers) {
    const doc = await layer.read(guard.path);
    if (!doc) continue;
    if (doc.body.byteLength > MAX_GUARD_SOURCE_BYTES)
      throw new InvalidRequest(`Guard script '${guard.path}' is larger than ${MAX_GUARD_SOURCE_BYTES} bytes`);
    const text = strictUtf8(doc.body);
    if (text === undefined) throw new InvalidRequest(`Guard script '${guard.path}' is not UTF-8 text`);
    return text;
  }
  throw new GuardScriptNotFound(guard.path);
}
