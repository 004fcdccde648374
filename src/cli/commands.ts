import { AccountsService } from '../modules/accounts/application/accounts.service';
import { ApiToken } from '../modules/accounts/domain/api-token';
import { FlagReader, UsageError } from './arguments';

export const USAGE = `usage (every command takes --create: make the database when DATA_DIR / DATABASE_URL has none; account create implies it):
  cli account create --email E --name N --plan free|starter|pro|business [--status active|expired|inactive] [--expires-at ISO] [--password-stdin]
  cli account set-password --email E --password-stdin
  cli account update --email E [--plan P] [--status S] [--expires-at ISO|none] [--limit-per-minute N|none] [--limit-per-hour N|none]
  cli token create --email E [--name N]
  cli token revoke --id ID
  cli token list --email E`;

function tokenView(token: ApiToken) {
  // Never the secret, never the hash.
  const p = token.props;
  return {
    token_id: p.id,
    name: p.name,
    prefix: p.displayPrefix,
    created_at: p.createdAt.toISOString(),
    last_used_at: p.lastUsedAt?.toISOString() ?? null,
    revoked_at: p.revokedAt?.toISOString() ?? null,
  };
}

function limitFlag(flags: FlagReader, name: string): number | null | undefined {
  if (flags.has(name) && flags.optional(name) === 'none') return null;
  return flags.integer(name);
}

/** Flags that take no value. */
export const BOOLEAN_FLAGS = ['password-stdin', 'create'] as const;

/**
 * `account create` makes the database when there is none (as if --create were given): it is the first command on a
 * fresh machine (README, "A first capture"), and it says on stderr that the database is new.
 */
export function createsDatabase(command: string[]): boolean {
  return command.join(' ') === 'account create';
}

/**
 * A password comes only from standard input (never an argument: those show in `ps` and shell history);
 * one trailing newline, as `echo` or a here-string adds, is not part of it.
 */
async function passwordFrom(wanted: boolean, readStdin: () => Promise<string>, required: boolean): Promise<string | undefined> {
  if (!wanted) {
    if (required) throw new UsageError('--password-stdin is required (pipe the password on standard input)');
    return undefined;
  }
  const password = (await readStdin()).replace(/\r?\n$/, '');
  if (password === '') throw new UsageError('no password on standard input');
  return password;
}

/** Runs one operator command and returns the JSON value to print. */
export async function runCommand(command: string[], flags: FlagReader, accounts: AccountsService, readStdin: () => Promise<string>): Promise<unknown> {
  const name = command.join(' ');
  switch (name) {
    case 'account create': {
      const input = {
        email: flags.required('email'),
        name: flags.required('name'),
        plan: flags.required('plan'),
        status: flags.optional('status'),
        expiresAt: flags.date('expires-at') ?? null,
      };
      const wantsPassword = flags.has('password-stdin');
      flags.done();
      const password = await passwordFrom(wantsPassword, readStdin, false);
      const { account, token } = await accounts.createAccount({ ...input, password });
      return { account_id: account.id, token };
    }
    case 'account set-password': {
      const email = flags.required('email');
      const wantsPassword = flags.has('password-stdin');
      flags.done();
      const password = await passwordFrom(wantsPassword, readStdin, true);
      const account = await accounts.setPassword(email, password as string);
      return { account_id: account.id, email: account.email, password_set: true };
    }
    case 'account update': {
      const email = flags.required('email');
      const input = {
        plan: flags.optional('plan'),
        status: flags.optional('status'),
        expiresAt: flags.date('expires-at'),
        limitPerMinute: limitFlag(flags, 'limit-per-minute'),
        limitPerHour: limitFlag(flags, 'limit-per-hour'),
      };
      flags.done();
      const a = await accounts.updateAccount(email, input);
      const limits = a.rateLimits();
      return {
        account_id: a.id,
        email: a.email,
        plan: a.plan,
        status: a.subscriptionStatus,
        expires_at: a.expiresAt?.toISOString() ?? null,
        rate_limit_per_minute: limits.perMinute,
        rate_limit_per_hour: limits.perHour,
      };
    }
    case 'token create': {
      const email = flags.required('email');
      const tokenName = flags.optional('name') ?? 'cli';
      flags.done();
      const { token, secret } = await accounts.createToken(email, tokenName);
      return { token_id: token.id, token: secret };
    }
    case 'token revoke': {
      const id = flags.integer('id');
      if (id === undefined) throw new UsageError('--id is required');
      flags.done();
      return tokenView(await accounts.revokeToken(id));
    }
    case 'token list': {
      const email = flags.required('email');
      flags.done();
      return (await accounts.listTokens(email)).map(tokenView);
    }
    default:
      throw new UsageError(name ? `unknown command "${name}"` : 'no command given');
  }
}
