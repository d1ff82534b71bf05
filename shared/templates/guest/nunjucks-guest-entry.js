/*
 * The nunjucks runtime as it runs INSIDE the QuickJS sandbox, never on the host.
 * Bundled by build-nunjucks-guest.ts into ../vendor/nunjucks-guest-runtime.ts.
 *
 * Templates are precompiled on the host (parsing only) and executed here, in a fresh
 * QuickJS context per render. QuickJS is the security boundary; this file is the second
 * layer: it denies the member and variable names that lead from a template value to a
 * constructor (and so to `Function`), and it resolves variables from own properties only,
 * so a bare `{{ constructor }}` is undefined instead of `Object`.
 *
 * Why not nunjucks' own Environment: it drags in loaders, the event emitter and async
 * helpers, and QuickJS re-parses the whole prelude on every render. The smallest runtime
 * is the cheapest render. Filters and tests are parsed lazily, on first use, for the same
 * reason (see the `nunjucks-lazy-builtins` virtual module in the build script).
 */
import lib from "nunjucks/src/lib";
import runtime from "nunjucks/src/runtime";
import makeGlobals from "nunjucks/src/globals";
import loadBuiltins from "nunjucks-lazy-builtins";

var hasOwn = Object.prototype.hasOwnProperty;

// Every member name that leads from an ordinary value to its constructor, its prototype or a
// property-definition primitive, plus the legacy function-introspection names.
var DENIED_MEMBERS = Object.create(null);
[
  "constructor",
  "__proto__",
  "prototype",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
  "caller",
  "callee",
  "arguments",
].forEach(function (name) {
  DENIED_MEMBERS[name] = true;
});

// Variables: the same names, except `caller`, which nunjucks itself binds inside a macro
// invoked by {% call %} (variables resolve from own properties only, see Context.lookup).
var DENIED_VARIABLES = Object.create(null);
Object.keys(DENIED_MEMBERS).forEach(function (name) {
  if (name !== "caller") DENIED_VARIABLES[name] = true;
});

/**
 * Converts a key exactly once (a computed key such as `range[["constructor"]]` or
 * `range["constr" ~ "uctor"]` only becomes a name here) and returns undefined when denied.
 */
function safeKey(key, denied) {
  if (typeof key === "number") return key;
  if (typeof key === "symbol") return undefined;
  var name = String(key);
  return denied[name] === true ? undefined : name;
}

runtime.memberLookup = function memberLookup(obj, val) {
  if (obj === undefined || obj === null) return undefined;
  var key = safeKey(val, DENIED_MEMBERS);
  if (key === undefined) return undefined;
  var member = obj[key];
  if (typeof member === "function") {
    return function boundMember() {
      return member.apply(obj, arguments);
    };
  }
  return member;
};

runtime.contextOrFrameLookup = function contextOrFrameLookup(context, frame, name) {
  if (safeKey(name, DENIED_VARIABLES) === undefined) return undefined;
  var val = frame.lookup(name);
  return val !== undefined ? val : context.lookup(name);
};

var builtins = null;
function lazyBuiltins() {
  if (builtins === null) builtins = loadBuiltins(lib, runtime);
  return builtins;
}

var NO_LOADER =
  "templates cannot include, import or extend other templates ({% include %}, {% import %}, {% from %} and {% extends %} are not available)";

function Environment(opts) {
  this.opts = opts;
  this.globals = makeGlobals();
}
Environment.prototype.getFilter = function getFilter(name) {
  var filters = lazyBuiltins().filters;
  if (!hasOwn.call(filters, name)) throw new Error("filter not found: " + name);
  return filters[name];
};
Environment.prototype.getTest = function getTest(name) {
  var tests = lazyBuiltins().tests;
  if (!hasOwn.call(tests, name)) throw new Error("test not found: " + name);
  return tests[name];
};
Environment.prototype.getExtension = function getExtension() {
  return undefined;
};
Environment.prototype.getTemplate = function getTemplate(_name, _eager, _parent, _ignoreMissing, cb) {
  var err = new Error(NO_LOADER);
  if (typeof cb === "function") return cb(err);
  throw err;
};
// Compiled `{% include %}` runs its steps through env.waterfall; getTemplate fails in step one.
Environment.prototype.waterfall = function waterfall(tasks, done) {
  var index = 0;
  function next(err) {
    if (err) return done(err);
    var task = tasks[index++];
    var args = Array.prototype.slice.call(arguments, 1);
    if (!task) return done.apply(null, [null].concat(args));
    return task.apply(null, args.concat([next]));
  }
  next(null);
};

function Context(data, blocks, env) {
  this.env = env;
  // Null prototype: `{% set __proto__ = … %}` stays an ordinary variable.
  this.ctx = Object.create(null);
  for (var key in data) {
    if (hasOwn.call(data, key)) this.ctx[key] = data[key];
  }
  this.blocks = Object.create(null);
  this.exported = [];
  for (var name in blocks) this.addBlock(name, blocks[name]);
}
Context.prototype.lookup = function lookup(name) {
  if (hasOwn.call(this.ctx, name)) return this.ctx[name];
  if (hasOwn.call(this.env.globals, name)) return this.env.globals[name];
  return undefined;
};
Context.prototype.setVariable = function setVariable(name, val) {
  this.ctx[name] = val;
};
Context.prototype.getVariables = function getVariables() {
  return this.ctx;
};
Context.prototype.addBlock = function addBlock(name, block) {
  (this.blocks[name] = this.blocks[name] || []).push(block);
  return this;
};
Context.prototype.getBlock = function getBlock(name) {
  if (!this.blocks[name]) throw new Error('unknown block "' + name + '"');
  return this.blocks[name][0];
};
Context.prototype.getSuper = function getSuper(env, name, block, frame, rt, cb) {
  var list = this.blocks[name] || [];
  var idx = list.indexOf(block);
  var next = list[idx + 1];
  if (idx === -1 || !next) throw new Error('no super block available for "' + name + '"');
  next(env, this, frame, rt, cb);
};
Context.prototype.addExport = function addExport(name) {
  this.exported.push(name);
};

function lineOf(err) {
  return err && typeof err.lineno === "number" ? err.lineno + 1 : undefined;
}

/**
 * Thrown to the sandbox host: `message` is the author-facing text, `lineNumber` 1-based.
 * QuickJS reports exhausted memory and stack as InternalError; those pass through unchanged
 * so the host still sees which limit was hit after nunjucks' own try/catch wrapped them.
 */
function renderFailure(err) {
  var cause = err && err.cause ? err.cause : err;
  if (cause && cause.name === "InternalError") return cause;
  var message = cause && cause.message !== undefined ? String(cause.message) : String(cause);
  var failure = new Error(message);
  failure.name = "TemplateRenderError";
  var line = lineOf(err);
  if (line !== undefined) failure.lineNumber = line;
  return failure;
}

/**
 * Renders one precompiled template. `factory` is the compiled module body wrapped in a
 * function (it returns `{ root, b_<block>… }`); `data` is the render context (JSON data).
 */
function render(factory, data, opts) {
  var props = factory();
  var blocks = Object.create(null);
  Object.keys(props).forEach(function (key) {
    if (key.slice(0, 2) === "b_") blocks[key.slice(2)] = props[key];
  });
  var env = new Environment({
    autoescape: !!(opts && opts.autoescape),
    throwOnUndefined: false,
    dev: false,
  });
  var context = new Context(data || {}, blocks, env);
  var frame = new runtime.Frame();
  frame.topLevel = true;
  var failed = null;
  var output = null;
  props.root(env, context, frame, runtime, function (err, res) {
    if (failed !== null) return;
    if (err) failed = err;
    else output = res;
  });
  if (failed !== null) throw renderFailure(failed);
  return output === null || output === undefined ? "" : String(output);
}

globalThis.__nunjucksRender = render;
