// A refusal the extension itself gives, with the code the host knows it by (anything else thrown
// is one of Chrome's errors, classified by its message in errors.js).

export class Refusal extends Error {
  // extra: more of the answer's error (`transient`, `chrome`: errors.js says what they mean).
  constructor(code, message, extra = {}) {
    super(message);
    this.code = code;
    this.extra = extra;
  }
}

// A verdict ({ok: true, …} or {ok: false, code, message}) that must hold.
export function enforce(verdict) {
  if (!verdict.ok) throw new Refusal(verdict.code, verdict.message);
  return verdict;
}
