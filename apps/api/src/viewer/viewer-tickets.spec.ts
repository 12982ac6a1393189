import { describe, expect, it } from '@jest/globals';
import { InvalidTicketError, ViewerTickets } from './viewer-tickets.js';

const KEY = 'k'.repeat(40);
const claims = { screenId: 's1', computerId: 'c1', userId: 'u1', mode: 'view' as const };

describe('ViewerTickets', () => {
  it('verifies its own tickets until they expire', () => {
    const tickets = new ViewerTickets(KEY, 60_000);
    const { ticket } = tickets.issue(claims, 1_000);
    expect(tickets.verify(ticket, 2_000)).toMatchObject({ ...claims, exp: 61_000 });
    expect(() => tickets.verify(ticket, 61_000)).toThrow(InvalidTicketError);
  });

  it('refuses altered claims, other keys and garbage', () => {
    const tickets = new ViewerTickets(KEY);
    const { ticket } = tickets.issue(claims);
    const [body, signature] = ticket.split('.');
    const altered = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString('utf8')), mode: 'control' }),
    ).toString('base64url');
    for (const bad of [`${altered}.${signature}`, `${body}.`, `${body}.${signature}.x`, '', 'x.y']) {
      expect(() => tickets.verify(bad)).toThrow(InvalidTicketError);
    }
    expect(() => new ViewerTickets('z'.repeat(40)).verify(ticket)).toThrow(/bad signature/);
  });
});
