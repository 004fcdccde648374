import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsArray, IsString, ValidateNested } from 'class-validator';
import { MaxEntries, NestedDto } from '../../../shared/http/body-bounds';
import { IsNotArray, OBJECT_MESSAGE } from '../../../shared/http/capture-option-fields';
import { IsId, MAX_ID, OptionalField, Satisfies } from '../../../shared/http/validation';
import { CreateWebsiteDto } from '../../websites/http/website.dto';
import { MONITOR_CHANNELS_MAX, MONITOR_EVERY, MONITOR_EVERY_VALUES, MonitorRequest, parseEvery } from '../domain/monitor';
import type { MonitorMade } from '../application/monitors.service';

const EVERY_WORDS = MONITOR_EVERY_VALUES.map((every) => `\`${every}\` (${MONITOR_EVERY[every].replace(/_/g, ' ')})`).join(', ');

@ApiSchema({
  name: 'MonitorRequest',
  description:
    'Watch the website: a schedule that captures it `every` so often (its first capture is taken at once), and the notification channels ' +
    'that hear of its changes and failures. All or nothing: a bad `every` or a channel that is not yours is a 422 and nothing is created. See docs/monitors.md.',
})
export class MonitorDto {
  @ApiProperty({
    type: 'string',
    enum: [...MONITOR_EVERY_VALUES, ...Object.values(MONITOR_EVERY)],
    example: '1h',
    description: `How often: ${EVERY_WORDS}; a schedule's frequency name is taken too. Counted from the first capture, in UTC`,
  })
  @IsString()
  @Satisfies('isEvery', (value) => parseEvery(value) !== null, `must be one of ${MONITOR_EVERY_VALUES.join(', ')} (or a schedule frequency)`)
  every!: string;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'integer', minimum: 1, maximum: MAX_ID },
    maxItems: MONITOR_CHANNELS_MAX,
    default: [],
    example: [3],
    description:
      'Notification channels (GET /notification-channels) to alert about this website: a channel limited to some websites gets this one added; ' +
      'a channel for every website already covers it',
  })
  @OptionalField()
  @MaxEntries(MONITOR_CHANNELS_MAX, `must name at most ${MONITOR_CHANNELS_MAX} channels`)
  @IsArray()
  @IsId({ each: true })
  channel_ids?: number[];
}

/** POST /websites: a website, and optionally its monitor (one call). The spec's fields are CreateWebsiteDto's. */
@ApiSchema({ name: 'CreateWebsiteDto', description: 'Unknown fields are refused (422). With `monitor`, the website is watched from this call on.' })
export class CreateWebsiteRequestDto extends CreateWebsiteDto {
  @ApiPropertyOptional({ type: MonitorDto })
  @OptionalField()
  @IsNotArray()
  @ValidateNested(OBJECT_MESSAGE)
  @NestedDto(() => MonitorDto)
  monitor?: MonitorDto;
}

export function monitorRequestOf(dto: MonitorDto | undefined): MonitorRequest | null {
  return dto ? { every: dto.every, channelIds: dto.channel_ids ?? [] } : null;
}

@ApiSchema({ name: 'Monitor', description: 'What `monitor` made: its schedule, its rhythm, its channels and its first capture.' })
export class MonitorView {
  @ApiProperty({ type: 'integer', example: 7, description: 'The schedule that captures the website (GET /schedules/{id})' }) schedule_id!: number;
  @ApiProperty({ enum: MONITOR_EVERY_VALUES, example: '1h', description: 'The rhythm, in its short word' }) every!: string;
  @ApiProperty({ type: 'array', items: { type: 'integer' }, description: 'The channels that alert about the website' }) channel_ids!: number[];
  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description: 'The first capture’s job (GET /jobs/{id}?wait=30); null for a website created paused',
  })
  first_job_id!: string | null;
}

export function monitorView(m: MonitorMade): MonitorView {
  return { schedule_id: m.scheduleId, every: m.every, channel_ids: m.channelIds, first_job_id: m.firstJobId };
}
