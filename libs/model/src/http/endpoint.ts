/** Who a request goes to, as the HTTP layer and the error messages need it. */
export interface ModelEndpoint {
  /** Provider label for messages, e.g. "xai". */
  provider: string;
  baseUrl: string;
  model: string;
  apiKey?: string;
  /**
   * How messages name this endpoint; defaults to its display URL. An endpoint its reader did not configure
   * (the host's own, shown to a workspace) gets a name instead, and its address stays out of every message.
   */
  label?: string;
}

/** Where a message says a request went: the endpoint's label, else its URL. */
export function endpointLabel(endpoint: Pick<ModelEndpoint, 'baseUrl' | 'label'>): string {
  return endpoint.label ?? displayUrl(endpoint.baseUrl);
}

/**
 * `text` (a network cause, a provider's words) without the address of a labelled endpoint: its base URL, host
 * and host name become the label. An unlabelled endpoint's text is left as it is.
 */
export function concealAddress(text: string, endpoint: Pick<ModelEndpoint, 'baseUrl' | 'label'>): string {
  const { label } = endpoint;
  if (label === undefined) return text;
  const forms: string[] = [endpoint.baseUrl, displayUrl(endpoint.baseUrl)];
  try {
    const url = new URL(endpoint.baseUrl);
    forms.push(url.origin, url.host, url.hostname, url.hostname.replace(/^\[|\]$/g, ''));
  } catch {
    // Not a URL: its own text is all there is to hide.
  }
  // Longest first, so a URL is replaced whole rather than leaving its scheme around a replaced host.
  const sorted = [...new Set(forms.filter((form) => form !== ''))].sort((a, b) => b.length - a.length);
  return sorted.reduce((concealed, form) => concealed.split(form).join(label), text);
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
