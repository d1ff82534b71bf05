/*
 * The guest bootstrap: evaluated inside QuickJS first in every fresh context, never run by Node.
 * It captures the intrinsics it needs before any guest code runs, so a guest that replaces
 * JSON.stringify or deletes globals cannot bypass the output cap. Everything that runs guest
 * getters/toJSON (serialize, describe) runs inside QuickJS, under the same deadline and memory
 * limit as the evaluation itself.
 *
 * sandbox-worker.mjs imports this function and evaluates its source text, `(${guestBootstrap})()`,
 * rather than reading a file at run time: the Lambda bundles build the worker as its own esbuild
 * entry (infra/constructs/skills-function.ts), so the import lands in that one file and every
 * bundle that ships the worker ships the bootstrap, with nothing else to copy or locate. The cost:
 * - The function must not use anything outside its own body; eslint.config.js allows this file
 *   no imports, no other top-level code and no globals beyond the ECMAScript built-ins.
 * - In a bundle its text is esbuild's minified equivalent (an esbuild option that injects helper
 *   calls, such as --keep-names, would break it; the bundling test runs the bundled worker).
 * - Node parses this file as a strict module; the guest evaluates the text as a sloppy script.
 */
export function guestBootstrap() {
  var stringify = JSON.stringify,
    parse = JSON.parse,
    keys = Object.keys;
  var defineProperty = Object.defineProperty,
    setPrototypeOf = Object.setPrototypeOf,
    toString = String,
    root = globalThis,
    GuestError = Error;
  var substring = Function.prototype.call.bind(String.prototype.substring);
  function text(value, max) {
    var s = toString(value);
    return s.length > max ? s.slice(0, max) + "…" : s;
  }
  function hostError(code, message) {
    var error = new GuestError(message);
    defineProperty(error, "name", { value: "HostError", writable: true, configurable: true });
    defineProperty(error, "code", { value: code, writable: true, configurable: true });
    return error;
  }
  function attach(path, fn) {
    var names = path.split("."),
      target = root;
    for (var i = 0; i < names.length - 1; i++) {
      var next = target[names[i]];
      if (next === null || typeof next !== "object") {
        next = {};
        defineProperty(target, names[i], { value: next, writable: true, configurable: true, enumerable: target !== root });
      }
      target = next;
    }
    defineProperty(target, names[names.length - 1], { value: fn, writable: true, configurable: true, enumerable: true });
  }
  // Only JSON crosses: arguments are serialized here, inside the guest and under its limits;
  // the raw host function stays in this closure.
  function bridge(host, index, maxArgsChars) {
    return function () {
      // No prototype: a guest Array.prototype.toJSON must not rewrite the argument list itself.
      var list = setPrototypeOf([], null);
      for (var i = 0; i < arguments.length; i++) list[i] = arguments[i];
      var json = stringify(list);
      if (json.length > maxArgsChars) throw hostError("HOST_ARGS_TOO_LARGE", "host call arguments exceed " + maxArgsChars + " bytes");
      var reply = host(index, json);
      var tag = reply[0];
      if (tag === "u") return undefined;
      if (tag === "v") return parse(substring(reply, 1));
      var failure = parse(substring(reply, 1));
      throw hostError(failure.code, failure.message);
    };
  }
  return {
    bind: function (host, pathsJson, maxArgsChars) {
      var paths = parse(pathsJson);
      for (var i = 0; i < paths.length; i++) attach(paths[i], bridge(host, i, maxArgsChars));
    },
    install: function (json) {
      var values = parse(json),
        names = keys(values);
      for (var i = 0; i < names.length; i++) {
        defineProperty(root, names[i], { value: values[names[i]], writable: true, configurable: true, enumerable: false });
      }
    },
    serialize: function (value, max) {
      var json = stringify(value);
      if (json === undefined) return undefined;
      return json.length > max ? json.length : json;
    },
    describe: function (error) {
      var out = { name: "Error", message: "" };
      try {
        if (error !== null && (typeof error === "object" || typeof error === "function")) {
          out.name = text(error.name, 100);
          out.message = text(error.message, 2000);
          if (typeof error.lineNumber === "number") out.line = error.lineNumber;
          if (typeof error.stack === "string") out.stack = text(error.stack, 2000);
        } else {
          out.message = text(error, 2000);
        }
      } catch {
        out.message = "guest exception could not be described";
      }
      return stringify(out);
    },
  };
}
