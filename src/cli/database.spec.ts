import { missingDatabaseMessage, redactDatabaseUrl } from './database';

describe('the CLI naming its database', () => {
  it.each([
    ['postgres://screenshots:s3cret@postgres:5432/screenshots', 'postgres://screenshots:****@postgres:5432/screenshots'],
    ['postgres://postgres@127.0.0.1:5432/test', 'postgres://postgres@127.0.0.1:5432/test'],
    ['postgresql://u:p%40ss@db.example.com/app?sslmode=require', 'postgresql://u:****@db.example.com/app?sslmode=require'],
    ['not a url', '(an unreadable DATABASE_URL)'],
  ])('prints %s as %s (never the password)', (url, shown) => {
    expect(redactDatabaseUrl(url)).toBe(shown);
  });

  it('refuses a missing database in one line naming the place, the setting and the two ways out', () => {
    const message = missingDatabaseMessage({ where: '/srv/shots/data/app.db', exists: false, setting: 'DATA_DIR', discard: () => undefined });
    expect(message).not.toContain('\n');
    expect(message).toMatch(/^no database in DATA_DIR \(\/srv\/shots\/data\/app\.db does not exist\)/);
    expect(message).toContain("the server's DATA_DIR");
    expect(message).toContain('--create');
    const postgres = missingDatabaseMessage({ where: 'postgres://u:****@db/app', exists: false, setting: 'DATABASE_URL', discard: () => undefined });
    expect(postgres).toMatch(/^the database postgres:\/\/u:\*\*\*\*@db\/app has none of the service's tables/);
    expect(postgres).toContain("the server's DATABASE_URL");
  });
});
