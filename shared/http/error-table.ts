import { isErrorCode, STATUS_BY_CODE } from "../../contract/error-codes.js";

/** API.md "Errors": the one table from error code to HTTP status is the contract's. */
export { isErrorCode, STATUS_BY_CODE };

/** Unknown codes are a bug somewhere, and a bug is a 500. */
export const statusForCode = (code: string): number => (isErrorCode(code) ? STATUS_BY_CODE[code] : 500);
