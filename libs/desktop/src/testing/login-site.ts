import type http from 'node:http';
import { startTestSite, type TestSite } from './test-site.js';

/**
 * A site that signs people in with a session cookie only (no Expires, no Max-Age: the kind a browser
 * drops when it quits) and says who is signed in only to a request that carries it: `/login` (a form
 * posting `name`), `/account` ("logged in as <name>" or "not logged in", a link to the notes), `/notes`.
 */
export function startLoginSite(): Promise<TestSite> {
  const sessions = new Map<string, string>();
  const page = (res: http.ServerResponse, title: string, body: string): void => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>${title}</title>${body}`);
  };
  return startTestSite((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    const token = /(?:^|;\s*)session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    if (url.pathname === '/login' && req.method === 'POST') {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const name = new URLSearchParams(body).get('name') ?? '';
        const fresh = `t${sessions.size + 1}x${Math.random().toString(36).slice(2)}`;
        sessions.set(fresh, name);
        res.writeHead(303, { location: '/account', 'set-cookie': `session=${fresh}; Path=/; HttpOnly; SameSite=Lax` });
        res.end();
      });
      return;
    }
    if (url.pathname === '/login') {
      return page(
        res,
        'Sign in',
        '<form method="post" action="/login"><label>Name <input name="name"></label><button>Sign in</button></form>',
      );
    }
    if (url.pathname === '/account') {
      const who = token === undefined ? undefined : sessions.get(token);
      return page(res, 'Account', `<p id="who">${who ? `logged in as ${who}` : 'not logged in'}</p><a href="/notes">Notes</a>`);
    }
    if (url.pathname === '/notes') return page(res, 'Notes', '<p id="notes">the notes</p>');
    res.writeHead(404).end();
  });
}
