// The layers, read top to bottom (docs/architecture.md): handlers (functions/) → wiring
// (shared/wiring: the only code that knows every adapter) → application services (shared/app) →
// domain → ports → adapters (files named s3-*, dynamodb-*, sqs-*, apigateway-*, aws-*) → AWS support
// (shared/aws); inside the domain, the folders in FOLDER_ORDER. `npm run check:layers` fails on any
// import that points up, and on any circle.
const ADAPTER = "^shared/.*/(s3|dynamodb|sqs|apigateway|aws)-[^/]*$";
const DOMAIN = "^shared/(?!app/|wiring/|aws/)";
// The domain folders of shared/, lowest first (issue 29): a folder imports only folders listed
// before it, so every arrow between them points down and no two of them form a circle. Found with
// depcruise (docs/architecture.md "Folder order"); where two folders do not import each other the
// order between them is a choice: a new import that needs the other order moves a folder in this
// list, and the check then proves the new order still has no upward arrow. A new folder of
// shared/ must be listed here (or be app/, wiring/, aws/), else `unlisted-domain-folder` fails.
const FOLDER_ORDER = [
  "support",
  "lazy",
  "config",
  "yaml",
  "sandbox",
  "http",
  "llm",
  "templates",
  "documents",
  "skills",
  "recipes",
  "processes",
  "lanes",
  "auth",
  "catalogue",
  "steering",
  "usage",
  "scripts",
  "connections",
  "turns",
  "foot",
  "guards",
  "tools",
];
const folderOrderRules = FOLDER_ORDER.slice(0, -1).map((folder, i) => ({
  name: `folder-order-${folder}`,
  severity: "error",
  comment: `shared/${folder}/ is below ${FOLDER_ORDER.slice(i + 1).join(", ")} (FOLDER_ORDER): it imports none of them.`,
  from: { path: `^shared/${folder}/` },
  to: { path: `^shared/(${FOLDER_ORDER.slice(i + 1).join("|")})/` },
}));
const UNLISTED = `^shared/(?!(${[...FOLDER_ORDER, "app", "wiring", "aws"].join("|")})/)[^/]+/`;
module.exports = {
  forbidden: [
    ...folderOrderRules,
    {
      name: "unlisted-domain-folder",
      severity: "error",
      comment: "Every folder of shared/ has its place in FOLDER_ORDER (or is app/, wiring/, aws/), so the order check covers it.",
      from: { path: UNLISTED },
      to: {},
    },
    {
      name: "to-unlisted-domain-folder",
      severity: "error",
      comment: "Every folder of shared/ has its place in FOLDER_ORDER (or is app/, wiring/, aws/), so the order check covers it.",
      from: { path: "^shared/" },
      to: { path: UNLISTED },
    },
    { name: "no-circular", severity: "error", comment: "An import circle makes two files one concept.", from: {}, to: { circular: true } },
    {
      name: "shared-not-to-outer",
      severity: "error",
      comment: "shared/ is the service; infra/, functions/, cli/, test/ and bench/ build on it, never the reverse.",
      from: { path: "^shared/" },
      to: { path: "^(infra|functions|cli|test|bench)/" },
    },
    {
      name: "domain-not-to-app",
      severity: "error",
      comment: "The domain does not know the application services or the wiring above it.",
      from: { path: DOMAIN },
      to: { path: "^shared/(app|wiring)/" },
    },
    {
      name: "domain-not-to-adapters",
      severity: "error",
      comment: "The domain reaches storage through ports; only the wiring picks an adapter.",
      from: { path: DOMAIN, pathNot: ADAPTER },
      to: { path: [ADAPTER, "^shared/aws/"], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "app-not-to-adapters",
      severity: "error",
      comment: "Application services take ports; the wiring gives them adapters.",
      from: { path: "^shared/app/" },
      to: { path: [ADAPTER, "^shared/aws/"], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "aws-support-not-to-domain",
      severity: "error",
      comment: "AWS support code (keys, schema, clients, retry) is below the domain.",
      from: { path: "^shared/aws/" },
      to: { path: "^shared/(?!aws/)" },
    },
    {
      name: "contract-self-contained",
      severity: "error",
      comment:
        "contract/ is API.md as schemas: the service, the client and the OpenAPI document build on it; it imports nothing else of this repo.",
      from: { path: "^contract/" },
      to: { path: "^(shared|functions|infra|client|cli|console|test|bench)/" },
    },
    {
      name: "client-self-contained",
      severity: "error",
      comment:
        "client/ is a package of its own (skills-service/client, bundled for browsers): it imports nothing else of this repo but the contract it is typed by.",
      from: { path: "^client/" },
      to: { path: "^(shared|functions|infra|cli|test|bench)/" },
    },
    {
      name: "client-takes-error-codes-only",
      severity: "error",
      comment:
        "At run time the client takes only the contract's plain tables (no zod in a browser bundle); its types may come from anywhere in contract/.",
      from: { path: "^client/" },
      to: { path: "^contract/", pathNot: "^contract/(error-codes|levels)\\.ts$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "contract-by-module",
      severity: "error",
      comment:
        "The service takes contract values from their own module, not the contract/index.ts barrel: a barrel import evaluates every schema of the API at init (the lane worker built the skill-list and frame schemas it never uses). Types may come from the barrel.",
      from: { path: "^(shared|functions)/" },
      to: { path: "^contract/index\\.ts$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "no-classic-zod",
      severity: "error",
      comment:
        "Schemas are zod/mini (functional, tree-shakable): classic zod (`zod`, `zod/v4`, `zod/v3`) is ~100 KB and ~20 ms of schema building at every cold start of every function that reaches it (docs/decisions.md, issue 31: bundles). Types come from zod/mini or zod/v4/core.",
      from: { path: "^(shared|functions|contract|client)/" },
      to: { path: "^node_modules/zod/", pathNot: "^node_modules/zod/(mini|v4-mini|v4/mini|v4/core|v4/locales)/" },
    },
    {
      name: "no-async-hooks",
      severity: "error",
      comment:
        "No AsyncLocalStorage or async hooks in the service: the first one turns on V8's promise hooks for the whole process, and every await afterwards costs several times more (docs/decisions.md, issue 31: no ambient context). Pass the context as a parameter.",
      from: { path: "^(shared|functions)/" },
      to: { path: "^(node:)?async_hooks$" },
    },
    {
      name: "service-not-to-client",
      severity: "error",
      comment: "The service does not call itself through its client.",
      from: { path: "^(shared|functions|infra)/" },
      to: { path: "^client/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // zod stays in the graph (not followed) so no-classic-zod sees which of its entry points a file imports.
    exclude: { path: "(^node_modules/(?!zod/)|^cdk\\.out|\\.d\\.ts$)" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".mjs", ".js"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
