// Provider text (error bodies, network causes) shown to people: one line, bounded, and never the key.

const MAX_LENGTH = 300;

export function oneLine(text: string, maxLength = MAX_LENGTH): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > maxLength ? `${flat.slice(0, maxLength - 1)}…` : flat;
}

/** Providers sometimes echo the key they refused; it must not travel on in our messages. */
export function redact(text: string, secret: string | undefined): string {
  if (!secret) return text;
  return text.split(secret).join('[redacted]');
}

/**
 * What a provider sent, quoted in one of our messages: the key of the request redacted before shortening
 * (a cut could otherwise leave most of it), then one bounded line. Every quote of a provider's body goes
 * through here, because servers that echo the request's headers put the key in it.
 */
export function quoteProvider(text: string, apiKey: string | undefined, maxLength = MAX_LENGTH): string {
  return oneLine(redact(text, apiKey), maxLength);
}

export function formatDuration(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
