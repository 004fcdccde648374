import { Schedule } from '../../schedules/domain/schedule';
import { upcomingRuns } from './schedule-editor.controller';

const NOW = new Date('2031-03-27T12:00:00.000Z');
const iso = (dates: Date[]) => dates.map((d) => d.toISOString());

function schedule(input: Partial<Parameters<typeof Schedule.create>[0]> = {}): Schedule {
  const created = Schedule.create({ accountId: 1, websiteId: 1, name: 's', frequency: 'daily', time: '02:30', timezone: 'Europe/Berlin', ...input }, NOW);
  return Schedule.restore({ ...created.props, id: 1 });
}

describe('the next five runs a schedule page shows', () => {
  it('are the entity’s, across the spring-forward night (02:30 does not exist on 30 March: 03:00)', () => {
    expect(upcomingRuns(schedule(), NOW)).toEqual({
      paused: false,
      runs: [
        new Date('2031-03-28T01:30:00.000Z'),
        new Date('2031-03-29T01:30:00.000Z'),
        new Date('2031-03-30T01:00:00.000Z'),
        new Date('2031-03-31T00:30:00.000Z'),
        new Date('2031-04-01T00:30:00.000Z'),
      ],
    });
  });

  it('start with the stored next run, even when it is due and has not fired yet', () => {
    const s = schedule();
    const later = new Date('2031-03-28T06:00:00.000Z'); // past the 01:30 occurrence, not fired
    expect(iso(upcomingRuns(s, later).runs).slice(0, 2)).toEqual(['2031-03-28T01:30:00.000Z', '2031-03-29T01:30:00.000Z']);
  });

  it('of a disabled schedule: when it would run once enabled', () => {
    const off = schedule({ enabled: false });
    expect(off.nextRunAt).toBeNull();
    const { runs, paused } = upcomingRuns(off, NOW);
    expect(paused).toBe(true);
    expect(iso(runs)).toEqual(iso(upcomingRuns(schedule(), NOW).runs));
  });

  it('weekly and hourly keep their rhythm', () => {
    expect(iso(upcomingRuns(schedule({ frequency: 'weekly', time: '09:15', timezone: 'Asia/Tokyo', dayOfWeek: 5 }), NOW).runs)).toEqual([
      '2031-03-28T00:15:00.000Z',
      '2031-04-04T00:15:00.000Z',
      '2031-04-11T00:15:00.000Z',
      '2031-04-18T00:15:00.000Z',
      '2031-04-25T00:15:00.000Z',
    ]);
    expect(iso(upcomingRuns(schedule({ frequency: 'hourly', time: '00:45', timezone: 'UTC' }), NOW).runs)).toEqual([
      '2031-03-27T12:45:00.000Z',
      '2031-03-27T13:45:00.000Z',
      '2031-03-27T14:45:00.000Z',
      '2031-03-27T15:45:00.000Z',
      '2031-03-27T16:45:00.000Z',
    ]);
  });
});
