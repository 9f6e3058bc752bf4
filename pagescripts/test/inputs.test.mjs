import assert from "node:assert/strict";
import { test } from "node:test";

import { pickerTakes } from "../src/inputs.js";

test("a date-like input takes a value its browser did not empty", () => {
  assert.equal(pickerTakes("date", "2020-03-02", "2020-03-02"), true);
  assert.equal(pickerTakes("date", "2020-13-45", ""), false);
  assert.equal(pickerTakes("week", "2020-W10", "2020-W10"), true);
  assert.equal(pickerTakes("time", "9:5", ""), false);
  assert.equal(pickerTakes("date", "", ""), true); // clearing
});

test("a color input turns what it does not take black", () => {
  assert.equal(pickerTakes("color", "#FF8800", "#ff8800"), true);
  assert.equal(pickerTakes("color", "orange-ish", "#000000"), false);
  assert.equal(pickerTakes("color", "#000000", "#000000"), true);
});

test("a range input takes a number within its bounds and step", () => {
  assert.equal(pickerTakes("range", "30", "30"), true);
  assert.equal(pickerTakes("range", "30.0", "30"), true);
  assert.equal(pickerTakes("range", "150", "100"), false); // clamped
  assert.equal(pickerTakes("range", "33", "30"), false); // rounded to the step
  assert.equal(pickerTakes("range", "abc", "50"), false);
});
