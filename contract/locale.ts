import { config } from "zod/mini";
import en from "zod/v4/locales/en.js";

/**
 * zod/mini with the English messages the full `zod` loads on its own: without them every issue
 * reads "Invalid input", and the 400 answers of API.md name what was wrong. Every file with a
 * schema (contract/ and shared/) imports this for its effect. Named imports only, never a re-exported `z`
 * namespace: that would keep all of zod/mini (every locale, the JSON Schema generator) in a bundle.
 */
config(en());
