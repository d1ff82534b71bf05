import { InvalidRequest } from "../errors.js";

/**
 * A document's file mode (its permission bits, e.g. 0o755 for a script): kept so `skills pull`
 * gives back the executable bits `skills push` found (API.md third round, "Skill files and
 * digests"). Only the nine permission bits travel: setuid, setgid and sticky are never stored, so
 * a pulled file cannot gain a privilege its author's folder did not show as plain permissions.
 * On the wire (request and answer header `Skills-File-Mode`) and in S3 user metadata (`mode`) it
 * is three octal digits.
 */
export const FILE_MODE_HEADER = "skills-file-mode";

const PERMISSION_BITS = 0o777;
const OCTAL_MODE = /^0?[0-7]{3}$/;

export const formatFileMode = (mode: number): string => (mode & PERMISSION_BITS).toString(8).padStart(3, "0");

/** A stored value (metadata written by this service or by hand): undefined when it is not a mode. */
export function storedFileMode(value: string | undefined): number | undefined {
  return value !== undefined && OCTAL_MODE.test(value.trim()) ? Number.parseInt(value.trim(), 8) & PERMISSION_BITS : undefined;
}

/** The request header: absent is "no mode given"; anything but three octal digits is a 400 that says the form. */
export function requestFileMode(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const mode = storedFileMode(value);
  if (mode === undefined)
    throw new InvalidRequest(`${FILE_MODE_HEADER} must be three octal digits such as 755 or 644, got '${value.slice(0, 20)}'`);
  return mode;
}

export const isExecutableMode = (mode: number | undefined): boolean => mode !== undefined && (mode & 0o111) !== 0;
