// What a fill reports (the page's address, title and error, an error's message) is scrubbed of the values
// it typed: a GET form puts the password into the address, a careless site echoes the username in its error,
// and Playwright's messages quote what they were given. The same rule as the agent's SecretRedactor
// (libs/agent, redaction/): shorter values are left alone, since "1234" would blank every count and port.

export const SCRUBBED_SECRET = '[saved secret]';
export const SCRUBBED_USERNAME = '[saved username]';
const MIN_SCRUBBED_LENGTH = 4;

export interface ScrubbedValue {
  value: string;
  placeholder: string;
}

/** `text` with every value (as typed, and as a URL or a form body spells it) replaced by its placeholder. */
export function withoutValues(text: string, values: readonly ScrubbedValue[]): string {
  const spellings = values
    .filter(({ value }) => value.length >= MIN_SCRUBBED_LENGTH)
    .flatMap(({ value, placeholder }) =>
      [...new Set([value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)])].map((spelling) => ({
        spelling,
        placeholder,
      })),
    )
    // Longest first, so that a value containing another is replaced whole.
    .sort((a, b) => b.spelling.length - a.spelling.length);
  let scrubbed = text;
  for (const { spelling, placeholder } of spellings) scrubbed = scrubbed.split(spelling).join(placeholder);
  return scrubbed;
}
