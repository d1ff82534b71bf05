const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

const pad = (n: number): string => String(n).padStart(2, "0");

/** API Gateway's `requestContext.time` / `requestTime` format: `02/Dec/2026:10:00:00 +0000`. */
export function apiGatewayTime(date: Date): string {
  return (
    `${pad(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
}

/** `Root=1-<epoch hex>-<24 hex>`, the X-Ray trace header API Gateway adds to every request. */
export function traceHeader(date: Date, random: string): string {
  return `Root=1-${Math.floor(date.getTime() / 1000).toString(16)}-${random.replace(/-/g, "").slice(0, 24)}`;
}
