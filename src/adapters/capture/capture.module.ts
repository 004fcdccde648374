import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { PageCapturer } from '../../modules/screenshots/application/capture.port';
import { PuppeteerPageCapturer } from './puppeteer-page-capturer';

/** Provides the PageCapturer port; browsers launch lazily on the first capture of this process. */
@Global()
@Module({
  providers: [
    {
      provide: PageCapturer,
      useFactory: (config: AppConfig) =>
        new PuppeteerPageCapturer({
          chromePath: config.chromePath,
          ffmpegPath: config.ffmpegPath,
          concurrency: config.captureConcurrency,
          browsers: config.captureBrowsers,
          timeoutMs: config.captureTimeoutMs,
          maxFullPageHeight: config.captureMaxHeight,
          recycleAfter: config.captureRecycleAfter,
          prewarm: config.capturePrewarm,
          fastPngEncoding: config.captureFastPng,
          // The same switches as the URL policy at the API, enforced again for every request Chromium makes.
          allowPrivateNetworks: config.allowPrivateNetworks,
          urlAllowlist: config.urlAllowlist,
        }),
      inject: [AppConfig],
    },
  ],
  exports: [PageCapturer],
})
export class CaptureModule {}
