import { checkSkillFilePath } from "./manual-path.js";

/**
 * The sibling files a body links by relative path (`[forms](forms.md)`, `![logo](assets/logo.png)`),
 * as Agent Skills bodies do. URLs, anchors, absolute paths and anything that is not a path inside
 * the skill directory are not siblings. At most `max` are returned: this feeds save-time warnings.
 */
const MARKDOWN_LINK = /!?\[[^\]\n]{0,500}\]\(\s*<?([^)\s>]{1,512})>?(?:\s+"[^"\n]*")?\s*\)/g;

export function linkedSiblingPaths(body: string, max = 100): string[] {
  const found = new Set<string>();
  for (const match of body.matchAll(MARKDOWN_LINK)) {
    const target = match[1]!.split("#")[0]!.split("?")[0]!;
    if (target === "" || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("/") || target.startsWith("#")) continue;
    let decoded = target;
    try {
      decoded = decodeURIComponent(target);
    } catch {
      continue;
    }
    const checked = checkSkillFilePath(decoded.replace(/^\.\//, ""));
    if (checked.ok) found.add(checked.path);
    if (found.size >= max) break;
  }
  return [...found];
}
