// nunjucks ships no types for its compiler module; this is the one function we call (on the host: parse + codegen only).
declare module "nunjucks/src/compiler.js" {
  interface NunjucksCompileOptions {
    trimBlocks?: boolean;
    lstripBlocks?: boolean;
    throwOnUndefined?: boolean;
  }
  const compiler: {
    compile(source: string, asyncFilters: string[], extensions: unknown[], name: string, options?: NunjucksCompileOptions): string;
  };
  export default compiler;
}
