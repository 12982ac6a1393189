// node-llama-cpp's JSON grammar lets a number carry an exponent of up to 16 digits, so `1e999` is a
// grammar-valid integer. JSON.parse reads it as Infinity, and JSON.stringify then writes the tool's
// argument as null: a small model sampling freely does write such numbers now and then. An exponent also
// makes "integers" like 1e-5. The JSON Schema subset has no way to say "no exponent", so the grammar's
// number rules are rewritten instead: plain decimals, and integers of at most 15 digits, which are all
// exact in a double.

const PLAIN_NUMBER_RULES: Record<string, string> = {
  'integer-number-rule': '"-"? ("0" | [1-9] [0-9]{0,14})',
  'fractional-number-rule': '"-"? ("0" | [1-9] [0-9]{0,15}) ("." [0-9]{1,16})?',
};

/** `gbnf`, a grammar node-llama-cpp generated from a JSON Schema, with numbers JSON.parse reads as finite ones. */
export function withPlainNumbers(gbnf: string): string {
  return gbnf.replace(/^([a-z-]+) ::= .*$/gm, (line, name: string) => {
    const body = PLAIN_NUMBER_RULES[name];
    return body === undefined ? line : `${name} ::= ${body}`;
  });
}
