import { strictUtf8 } from "../documents/document-body.js";
import { parseSkillDocument } from "./skill-document-parser.js";
import { patternCount } from "./triggers/trigger-caps.js";

/**
 * PATTERN triggers a stored SKILL.md counts towards its level's cap (issue 27's per-level
 * counters): those of whatever definition the parser gets out of it, 0 for a body that is not
 * UTF-8. One rule for the documents API's seed and the S3-event path, so both count alike.
 */
export function skillDocumentPatterns(name: string, body: Uint8Array, path: string): number {
  const text = strictUtf8(body);
  return text === undefined ? 0 : patternCount(parseSkillDocument(name, text, path).definition?.triggers);
}
