import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { ScenariosModule } from '../scenarios/scenarios.module';
import { ScreenshotsModule } from '../screenshots/screenshots.module';
import { WebsitesModule } from '../websites/websites.module';
import { ScheduleRepository } from './application/ports';
import { ScheduleRuns } from './application/schedule-runs';
import { ScheduleTicker } from './application/schedule-ticker';
import { SchedulesService } from './application/schedules.service';
import { SchedulesController } from './http/schedules.controller';
import { ScheduleRow } from './infrastructure/schedule.row';
import { TypeOrmScheduleRepository } from './infrastructure/typeorm-schedule.repository';

/** Schedules and the ticker that fires them. */
@Module({
  imports: [TypeOrmModule.forFeature([ScheduleRow]), AccountsModule, WebsitesModule, ScreenshotsModule, ScenariosModule],
  controllers: [SchedulesController],
  providers: [{ provide: ScheduleRepository, useClass: TypeOrmScheduleRepository }, SchedulesService, ScheduleRuns, ScheduleTicker],
  exports: [SchedulesService],
})
export class SchedulesModule {}
