// The generated host/reins/_generated/functions.json: one declaration per export of src/host.js, each
// self-contained (it compiles and runs with nothing else loaded).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import * as host from "../src/host.js";
import * as symbols from "../src/symbols.js";

const bundle = JSON.parse(readFileSync(new URL("../../host/reins/_generated/functions.json", import.meta.url), "utf8"));
const declared = (name) => (0, eval)(`(${bundle.functions[name]})`);

test("every function the host may call is declared, and nothing else", () => {
  assert.deepEqual(Object.keys(bundle.functions).sort(), Object.keys(host).sort());
});

test("each declaration compiles on its own", () => {
  for (const [name, source] of Object.entries(bundle.functions)) {
    assert.equal(typeof declared(name), "function", name);
    assert.ok(!/^\s*(import|export)\s/m.test(source), `${name} still has module syntax`);
  }
});

test("a declaration passes its arguments through and shares the Symbol names", () => {
  declared("park")({ tag: "a" }, "gen-1");
  assert.deepEqual(host.takeParked("gen-1"), { tag: "a" });
  host.park(7, "gen-2");
  assert.equal(declared("takeParked")("gen-2"), 7);
});

test("the constants the host recognizes are the sources' own", () => {
  assert.deepEqual(bundle.constants, {
    UNREACHABLE: symbols.UNREACHABLE, FOCUS_ELSEWHERE: symbols.FOCUS_ELSEWHERE, MOVING: symbols.MOVING,
  });
});
