import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";

/**
 * zod/mini, with the English messages the full `zod` loads on its own: without them every issue
 * reads "Invalid input", and the 400 answers of API.md name what was wrong. Every contract file
 * takes `z` from here so the locale is set before any schema parses.
 */
z.config(en());

export { z };
