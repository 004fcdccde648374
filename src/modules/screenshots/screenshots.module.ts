import { Module } from '@nestjs/common';
import { DevicesController } from './http/devices.controller';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../jobs/jobs.module';
import { WebsitesModule } from '../websites/websites.module';
import { ProxiesModule } from '../proxies/proxies.module';
import { CaptureJobRunner } from './application/capture-job.runner';
import { CaptureJobsService } from './application/capture-jobs.service';
import { ImageDiffer, ScreenshotRepository, ScreenshotStorage, TextDiffer, ThumbnailRenderer, ZipWriter } from './application/ports';
import { ChangeDetector } from './application/change-detector';
import { PixelImageDiffer } from './infrastructure/pixel-image-differ';
import { JsdiffTextDiffer } from './infrastructure/jsdiff-text-differ';
import { ScreenshotKeeper } from './application/screenshot-keeper';
import { ScreenshotsService } from './application/screenshots.service';
import { RetentionSweeper } from './application/retention-sweeper';
import { OrphanSweeper } from './application/orphan-sweeper';
import { ScreenshotsController, TakeScreenshotController, WebsiteChangesController } from './http/screenshots.controller';
import { ThumbnailsController } from './http/thumbnails.controller';
import { LocalDiskStorage } from './infrastructure/local-disk-storage';
import { S3Storage } from './infrastructure/s3-storage';
import { AppConfig } from '../../config/app-config';
import { ScreenshotRow } from './infrastructure/screenshot.row';
import { SharpThumbnailRenderer } from './infrastructure/sharp-thumbnail-renderer';
import { TypeOrmScreenshotRepository } from './infrastructure/typeorm-screenshot.repository';
import { ArchiverZipWriter } from './infrastructure/zip-streamer';

/** Screenshots: capture jobs (their handler and POST /websites/{id}/screenshots), storage, downloads and ZIPs. */
@Module({
  imports: [TypeOrmModule.forFeature([ScreenshotRow]), JobsModule, WebsitesModule, ProxiesModule],
  controllers: [TakeScreenshotController, WebsiteChangesController, ScreenshotsController, ThumbnailsController, DevicesController],
  providers: [
    { provide: ScreenshotRepository, useClass: TypeOrmScreenshotRepository },
    {
      // STORAGE_DRIVER picks the adapter; in s3 mode nothing is created on local disk.
      provide: ScreenshotStorage,
      useFactory: (config: AppConfig) => (config.s3 ? new S3Storage(config.s3) : new LocalDiskStorage(config)),
      inject: [AppConfig],
    },
    { provide: ThumbnailRenderer, useClass: SharpThumbnailRenderer },
    { provide: ZipWriter, useClass: ArchiverZipWriter },
    { provide: ImageDiffer, useClass: PixelImageDiffer },
    { provide: TextDiffer, useClass: JsdiffTextDiffer },
    ChangeDetector,
    ScreenshotKeeper,
    CaptureJobsService,
    CaptureJobRunner,
    ScreenshotsService,
    RetentionSweeper,
    OrphanSweeper,
  ],
  exports: [CaptureJobsService, ScreenshotRepository, ScreenshotStorage, ScreenshotKeeper, ScreenshotsService, ChangeDetector, ZipWriter],
})
export class ScreenshotsModule {}
