// Money as every page handles it: the API's decimal strings ("12.50") turned
// into integer cents (BigInt) for arithmetic and back — never floats.

/** "12.50" → 1250n, "-3.04" → -304n, "4" → 400n; null for anything else. */
export function cents(amount) {
  const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(String(amount ?? "").trim());
  if (!m) return null;
  const value = BigInt(m[2]) * 100n + BigInt((m[3] || "0").padEnd(2, "0"));
  return m[1] ? -value : value;
}

/** 1250n → "12.50", -304n → "-3.04". */
export function money(c) {
  const negative = c < 0n;
  const a = negative ? -c : c;
  return (negative ? "-" : "") + (a / 100n).toString() + "." + (a % 100n).toString().padStart(2, "0");
}

/** A change, signed: 1250n → "+12.50", -304n → "−3.04". */
export function signed(c) {
  return (c < 0n ? "−" : "+") + money(c < 0n ? -c : c);
}
