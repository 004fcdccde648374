import { Logger } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { toErrorResponse } from './error-filter';

/** What reaches the log and the client when the database fails: never the query's parameters. */
describe('toErrorResponse', () => {
  const SECRET = 'fill-value-hunter2';

  function failedQuery(code: string): QueryFailedError {
    const driverError = Object.assign(new Error(code === '57P01' ? 'terminating connection due to administrator command' : 'value too long'), { code });
    return new QueryFailedError('INSERT INTO "jobs"("options") VALUES ($1)', [JSON.stringify({ steps: [{ type: 'fill', value: SECRET }] })], driverError);
  }

  function logged(err: unknown): { status: number; body: unknown; log: string } {
    const lines: unknown[] = [];
    const logger = { error: (...args: unknown[]) => lines.push(args) } as unknown as Logger;
    const { status, body } = toErrorResponse(err, logger);
    return { status, body, log: JSON.stringify(lines) };
  }

  it('a database outage is a 503 whose log line has the message and code, not the query parameters', () => {
    const { status, body, log } = logged(failedQuery('57P01'));
    expect(status).toBe(503);
    expect(body).toEqual({ success: false, error: 'Service temporarily unavailable', code: 'unavailable' });
    expect(log).toContain('terminating connection');
    expect(log).toContain('57P01');
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain('INSERT INTO');
  });

  it('any other database error is a 500 with a generic body; the log has no parameters either', () => {
    const { status, body, log } = logged(failedQuery('22001'));
    expect(status).toBe(500);
    expect(body).toEqual({ success: false, error: 'Internal server error', code: 'internal_error' });
    expect(JSON.stringify(body)).not.toContain(SECRET);
    expect(log).toContain('value too long');
    expect(log).not.toContain(SECRET);
  });

  it.each([
    ['PostgreSQL', Object.assign(new Error('insert or update on table "scenarios" violates foreign key constraint "fk_x"'), { code: '23503' })],
    ['SQLite', Object.assign(new Error('FOREIGN KEY constraint failed'), { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' })],
  ])('a foreign-key violation (%s: a write racing the delete of its parent) is a 404, not a 500', (_, driverError) => {
    const { status, body } = logged(new QueryFailedError('INSERT …', [SECRET], driverError));
    expect(status).toBe(404);
    expect(body).toEqual({ success: false, error: expect.any(String), code: 'not_found' });
  });
});
