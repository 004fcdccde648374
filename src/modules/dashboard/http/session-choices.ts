import { Injectable } from '@nestjs/common';
import { SessionsService } from '../../sessions/application/sessions.service';
import type { SessionChoice } from './views/components';

/**
 * The account's saved sessions as the forms offer them (session_id: the website and capture options, the
 * playground, the schedule and scenario editors): by name, with their status. An account keeps at most 100.
 */
@Injectable()
export class SessionChoices {
  constructor(private readonly sessions: SessionsService) {}

  async of(accountId: number): Promise<SessionChoice[]> {
    return (await this.sessions.listAll(accountId)).map((s) => ({ id: s.id, name: s.name, status: s.status }));
  }
}
