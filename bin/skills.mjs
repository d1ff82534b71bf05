#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so the command works from a plain checkout without a build.
import { register } from "tsx/esm/api";

register();
await import("../cli/main.ts");
