import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../jobs/jobs.module';
import { ScenariosModule } from '../scenarios/scenarios.module';
import { SchedulesModule } from '../schedules/schedules.module';
import { SavedSessionIds, SavedSessions } from '../screenshots/application/saved-sessions.port';
import { OwnedSessionIds } from './application/owned-session-ids';
import { WebsitesModule } from '../websites/websites.module';
import { LoginRunner } from './application/login-runner';
import { SavedSessionRepository } from './application/ports';
import { SavedSessionStates } from './application/saved-session-states';
import { SessionLoginRunner } from './application/session-login.runner';
import { SessionsService } from './application/sessions.service';
import { SessionsController } from './http/sessions.controller';
import { SavedSessionRow } from './infrastructure/saved-session.row';
import { TypeOrmSavedSessionRepository } from './infrastructure/typeorm-saved-session.repository';

/**
 * Saved sessions (/sessions) and their logins. Global: the capture side (screenshots, renders, scenario runs)
 * asks the SavedSessions port it declares, which this module implements — sessions sits above those contexts
 * (a login runs a scenario's steps on the capture port), so they cannot import it.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([SavedSessionRow]), JobsModule, WebsitesModule, ScenariosModule, SchedulesModule],
  controllers: [SessionsController],
  providers: [
    { provide: SavedSessionRepository, useClass: TypeOrmSavedSessionRepository },
    SessionsService,
    LoginRunner,
    SessionLoginRunner,
    { provide: SavedSessions, useClass: SavedSessionStates },
    { provide: SavedSessionIds, useClass: OwnedSessionIds },
  ],
  exports: [SavedSessions, SavedSessionIds, SessionsService],
})
export class SessionsModule {}
