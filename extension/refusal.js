// A refusal the extension itself gives, with the code the host knows it by (anything else thrown
// is one of Chrome's errors, classified by its message in errors.js).

export class Refusal extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// A verdict ({ok: true, …} or {ok: false, code, message}) that must hold.
export function enforce(verdict) {
  if (!verdict.ok) throw new Refusal(verdict.code, verdict.message);
  return verdict;
}
