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

export function formatDuration(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
