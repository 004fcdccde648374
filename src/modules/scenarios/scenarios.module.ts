import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../jobs/jobs.module';
import { ScreenshotsModule } from '../screenshots/screenshots.module';
import { WebsitesModule } from '../websites/websites.module';
import { ScenarioRepository } from './application/ports';
import { ScenarioRunner } from './application/scenario-runner';
import { ScenariosService } from './application/scenarios.service';
import { ExecutionsController, ScenariosController } from './http/scenarios.controller';
import { ScenarioRow } from './infrastructure/scenario.row';
import { TypeOrmScenarioRepository } from './infrastructure/typeorm-scenario.repository';

/** Scenarios (ordered browser steps) and their executions. */
@Module({
  imports: [TypeOrmModule.forFeature([ScenarioRow]), JobsModule, WebsitesModule, ScreenshotsModule],
  controllers: [ScenariosController, ExecutionsController],
  providers: [{ provide: ScenarioRepository, useClass: TypeOrmScenarioRepository }, ScenariosService, ScenarioRunner],
  exports: [ScenariosService],
})
export class ScenariosModule {}
