/** Liveness of the web server itself (the local stack waits on it). */
export function GET(): Response {
  return Response.json({ status: 'ok' });
}

export const dynamic = 'force-dynamic';
