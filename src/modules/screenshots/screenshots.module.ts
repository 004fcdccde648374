import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebsitesModule } from '../websites/websites.module';
import { CaptureJobRunner } from './application/capture-job.runner';
import { CaptureJobsService } from './application/capture-jobs.service';
import { JobDispatcher } from './application/job-dispatcher';
import { JobRepository, ScreenshotRepository, ScreenshotStorage, ThumbnailRenderer, ZipWriter } from './application/ports';
import { ScreenshotKeeper } from './application/screenshot-keeper';
import { ScreenshotsService } from './application/screenshots.service';
import { JobsController } from './http/jobs.controller';
import { ScreenshotsController, TakeScreenshotController } from './http/screenshots.controller';
import { ThumbnailsController } from './http/thumbnails.controller';
import { LocalDiskStorage } from './infrastructure/local-disk-storage';
import { JobRow, ScreenshotRow } from './infrastructure/rows';
import { SharpThumbnailRenderer } from './infrastructure/sharp-thumbnail-renderer';
import { TypeOrmJobRepository } from './infrastructure/typeorm-job.repository';
import { TypeOrmScreenshotRepository } from './infrastructure/typeorm-screenshot.repository';
import { ArchiverZipWriter } from './infrastructure/zip-streamer';

/** Screenshots, capture jobs, storage, downloads and ZIPs. */
@Module({
  imports: [TypeOrmModule.forFeature([JobRow, ScreenshotRow]), WebsitesModule],
  controllers: [TakeScreenshotController, ScreenshotsController, ThumbnailsController, JobsController],
  providers: [
    { provide: JobRepository, useClass: TypeOrmJobRepository },
    { provide: ScreenshotRepository, useClass: TypeOrmScreenshotRepository },
    { provide: ScreenshotStorage, useClass: LocalDiskStorage },
    { provide: ThumbnailRenderer, useClass: SharpThumbnailRenderer },
    { provide: ZipWriter, useClass: ArchiverZipWriter },
    ScreenshotKeeper,
    CaptureJobsService,
    JobDispatcher,
    CaptureJobRunner,
    ScreenshotsService,
  ],
  exports: [CaptureJobsService, JobDispatcher, JobRepository, ScreenshotRepository, ScreenshotStorage, ScreenshotKeeper, ScreenshotsService],
})
export class ScreenshotsModule {}
