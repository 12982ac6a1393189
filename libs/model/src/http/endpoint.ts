/** Who a request goes to, as the HTTP layer and the error messages need it. */
export interface ModelEndpoint {
  /** Provider label for messages, e.g. "xai". */
  provider: string;
  baseUrl: string;
  model: string;
  apiKey?: string;
}

/** The base URL without credentials or query, fit for a message or a log line. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    parsed.hash = '';
    return parsed.href.replace(/\/+$/, '');
  } catch {
    return '(invalid URL)';
  }
}

export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}
