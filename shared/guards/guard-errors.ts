import { InvalidRequest } from "../errors.js";

/** The `guard script <path>` document is not there (any more); the guard fails open. */
export class GuardScriptNotFound extends InvalidRequest {
  constructor(readonly path: string) {
    super(`Guard script '${path.slice(0, 200)}' not found`);
  }
}
