import { ValidationFailedError } from '../../../shared/domain/domain-error';
import type { ChannelsService } from '../../notifications/application/channels.service';
import type { SchedulesService } from '../../schedules/application/schedules.service';
import type { WebsitesService } from '../../websites/application/websites.service';
import { MonitorsService } from './monitors.service';

/** The order of the pieces and the all-or-nothing rule, with the other contexts' services recorded (their rules have their own tests). */
describe('MonitorsService', () => {
  const website = { id: 42, accountId: 1, name: 'Pricing', status: 'active' };
  const channel = { id: 3, name: 'Ops', websiteIds: [7] };
  let calls: string[];
  let failAt: string | null;
  const step = async <T>(name: string, value: T): Promise<T> => {
    calls.push(name);
    if (failAt === name) throw new ValidationFailedError([{ field: 'monitor.channel_ids', message: 'gone meanwhile' }]);
    return Promise.resolve(value);
  };
  const websites = { create: () => step('website', website), delete: () => step('delete website', undefined) } as unknown as WebsitesService;
  const schedules = {
    create: () => step('schedule', { id: 9 }),
    runNow: () => step('first capture', { job: { id: 'job-1' } }),
  } as unknown as SchedulesService;
  const channels = {
    checkLinkable: () => step('check channels', [channel]),
    linkWebsite: () => step('link channels', undefined),
    unlinkWebsite: () => step('unlink channels', undefined),
  } as unknown as ChannelsService;
  const clock = { now: () => new Date('2030-01-01T10:00:00Z') };
  const service = new MonitorsService(websites, schedules, channels, clock);
  const input = { name: 'Pricing', url: 'https://example.com/' };

  beforeEach(() => {
    calls = [];
    failAt = null;
  });

  it('checks what it can before writing, then makes the website, the schedule, the links and the first capture', async () => {
    const made = await service.createWebsite(1, input, { every: 'hourly', channelIds: [3, 3] }, 'api');
    expect(calls).toEqual(['check channels', 'website', 'schedule', 'link channels', 'first capture']);
    expect(made.monitor).toEqual({ scheduleId: 9, every: '1h', channelIds: [3], firstJobId: 'job-1' });
  });

  it('a bad every is refused before anything is read or written', async () => {
    await expect(service.createWebsite(1, input, { every: 'often', channelIds: [] }, 'api')).rejects.toBeInstanceOf(ValidationFailedError);
    expect(calls).toEqual([]);
  });

  it.each(['schedule', 'link channels', 'first capture'])('a failure at "%s" removes what was made, and the error is answered', async (at) => {
    failAt = at;
    await expect(service.createWebsite(1, input, { every: '1d', channelIds: [3] }, 'api')).rejects.toBeInstanceOf(ValidationFailedError);
    expect(calls.slice(-2)).toEqual(['delete website', 'unlink channels']);
  });

  it('without monitor: the website alone', async () => {
    expect(await service.createWebsite(1, input, null, 'api')).toEqual({ website, monitor: null });
    expect(calls).toEqual(['website']);
  });
});
