import { Module } from '@nestjs/common';
import { DevicesController } from './http/devices.controller';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../jobs/jobs.module';
import { WebsitesModule } from '../websites/websites.module';
import { CaptureJobRunner } from './application/capture-job.runner';
import { CaptureJobsService } from './application/capture-jobs.service';
import { ScreenshotRepository, ScreenshotStorage, ThumbnailRenderer, ZipWriter } from './application/ports';
import { ScreenshotKeeper } from './application/screenshot-keeper';
import { ScreenshotsService } from './application/screenshots.service';
import { JobsController } from './http/jobs.controller';
import { ScreenshotsController, TakeScreenshotController } from './http/screenshots.controller';
import { ThumbnailsController } from './http/thumbnails.controller';
import { LocalDiskStorage } from './infrastructure/local-disk-storage';
import { ScreenshotRow } from './infrastructure/screenshot.row';
import { SharpThumbnailRenderer } from './infrastructure/sharp-thumbnail-renderer';
import { TypeOrmScreenshotRepository } from './infrastructure/typeorm-screenshot.repository';
import { ArchiverZipWriter } from './infrastructure/zip-streamer';

/** Screenshots: capture jobs (their handler and their API), storage, downloads and ZIPs. */
@Module({
  imports: [TypeOrmModule.forFeature([ScreenshotRow]), JobsModule, WebsitesModule],
  controllers: [TakeScreenshotController, ScreenshotsController, ThumbnailsController, JobsController, DevicesController],
  providers: [
    { provide: ScreenshotRepository, useClass: TypeOrmScreenshotRepository },
    { provide: ScreenshotStorage, useClass: LocalDiskStorage },
    { provide: ThumbnailRenderer, useClass: SharpThumbnailRenderer },
    { provide: ZipWriter, useClass: ArchiverZipWriter },
    ScreenshotKeeper,
    CaptureJobsService,
    CaptureJobRunner,
    ScreenshotsService,
  ],
  exports: [CaptureJobsService, ScreenshotRepository, ScreenshotStorage, ScreenshotKeeper, ScreenshotsService],
})
export class ScreenshotsModule {}
