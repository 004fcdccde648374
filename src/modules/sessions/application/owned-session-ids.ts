import { Injectable } from '@nestjs/common';
import { SavedSessionIds } from '../../screenshots/application/saved-sessions.port';
import { SavedSessionRepository } from './ports';

/** The SavedSessionIds port: one read of the account's session by id (another account's is none). */
@Injectable()
export class OwnedSessionIds extends SavedSessionIds {
  constructor(private readonly sessions: SavedSessionRepository) {
    super();
  }

  async isOwned(accountId: number, id: number): Promise<boolean> {
    return (await this.sessions.findOwned(accountId, id)) !== null;
  }
}
