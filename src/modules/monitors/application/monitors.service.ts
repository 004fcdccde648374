import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../../shared/domain/clock';
import { ValidationFailedError } from '../../../shared/domain/domain-error';
import { errorMessage } from '../../../shared/domain/error-message';
import type { JobSource } from '../../jobs/domain/job';
import { ChannelsService } from '../../notifications/application/channels.service';
import type { ChannelProps } from '../../notifications/domain/channel';
import { SchedulesService } from '../../schedules/application/schedules.service';
import { WebsitesService } from '../../websites/application/websites.service';
import type { WebsiteInput, WebsiteProps } from '../../websites/domain/website';
import { MonitorEvery, monitorFieldErrors, MonitorRequest, monitorScheduleName, monitorTiming, parseEvery } from '../domain/monitor';

/** The field the API names for the channels of a monitor (a 422's `details[].field`). */
const CHANNELS_FIELD = 'monitor.channel_ids';

/** What a monitor is made of once made: the answer's `monitor`. */
export interface MonitorMade {
  scheduleId: number;
  every: MonitorEvery;
  channelIds: number[];
  /** The first capture's job; null for a website created paused (pausing says "do not capture"). */
  firstJobId: string | null;
}

export interface WebsiteCreated {
  website: WebsiteProps;
  /** Null when no monitor was asked for. */
  monitor: MonitorMade | null;
}

/**
 * Creating a website, and with `monitor` the whole of a monitor in the same call (issue 46): the website, a schedule
 * that captures it `every` so often, its notification channels linked to it, and its first capture. Each piece is
 * made by its own context's service with that context's rules (URL policy and capture options, schedule timing,
 * channel ownership and limits); this service only orders them and makes the call all-or-nothing: everything it can
 * refuse is checked before anything is written, and a piece that still fails (a channel deleted meanwhile, the
 * database away) takes the pieces already made with it before the error is answered.
 */
@Injectable()
export class MonitorsService {
  private readonly logger = new Logger('Monitors');

  constructor(
    private readonly websites: WebsitesService,
    private readonly schedules: SchedulesService,
    private readonly channels: ChannelsService,
    private readonly clock: Clock,
  ) {}

  async createWebsite(accountId: number, input: WebsiteInput, monitor: MonitorRequest | null, source: JobSource): Promise<WebsiteCreated> {
    if (monitor === null) return { website: await this.websites.create(accountId, input), monitor: null };
    const errors = monitorFieldErrors(monitor);
    if (errors.length > 0) throw new ValidationFailedError(errors);
    const every = parseEvery(monitor.every) as MonitorEvery;
    const channels = await this.channels.checkLinkable(accountId, monitor.channelIds, CHANNELS_FIELD);
    const website = await this.websites.create(accountId, input);
    try {
      const schedule = await this.schedules.create({
        accountId,
        websiteId: website.id,
        name: monitorScheduleName(website.name),
        ...monitorTiming(every, this.clock.now()),
      });
      await this.channels.linkWebsite(channels, website.id, CHANNELS_FIELD);
      // Run now: the same job a schedule's occurrence queues, recorded as the schedule's last run.
      const firstJobId = website.status === 'active' ? (await this.schedules.runNow(accountId, schedule.id, null, source)).job.id : null;
      return { website, monitor: { scheduleId: schedule.id, every, channelIds: channels.map((c) => c.id), firstJobId } };
    } catch (err) {
      await this.undo(accountId, website, channels);
      throw err;
    }
  }

  /** The pieces made so far go: the website (its schedule and queued jobs with it), then its place in the channels. */
  private async undo(accountId: number, website: WebsiteProps, channels: readonly ChannelProps[]): Promise<void> {
    try {
      await this.websites.delete(accountId, website.id);
      await this.channels.unlinkWebsite(channels, website.id);
    } catch (err) {
      this.logger.error(`website ${website.id}: a monitor that could not be made whole was not fully removed: ${errorMessage(err)}`);
    }
  }
}
