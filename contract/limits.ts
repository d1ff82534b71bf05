/** Size limits the request schemas enforce; the service's own checks read the same numbers. */
export const MAX_ARGS_BYTES = 64 * 1024;
export const MAX_FOOT_LOG_ENTRIES = 100;

/** UTF-8 length without Buffer, so the contract runs in a browser too. */
export const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length;
