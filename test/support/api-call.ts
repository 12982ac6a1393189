/**
 * JSON calls to the API as one signed-in person (their session cookie); any status but 2xx throws with the
 * answer's text. For benches and scripts outside a test harness (ServiceHarness.call is the harness's own).
 */
export function apiCaller(apiUrl: string, cookie: string) {
  return async <T>(method: string, route: string, body?: unknown): Promise<T> => {
    const res = await fetch(new URL(route, apiUrl), {
      method,
      headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
}
