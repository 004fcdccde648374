import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsBoolean, IsIn, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { BodyRequired, IsId, OptionalField, SingleLineName } from '../../../shared/http/validation';
import type { DeliveryProps } from '../../webhooks/domain/webhook';
import type { LastDelivery } from '../domain/channel';
import { CHANNEL_EVENTS, CHANNEL_LIMITS, CHANNEL_TYPES, ChannelEvent, ChannelProps, ChannelType, maskedTarget } from '../domain/channel';
import { CHANNEL_FIELDS as F, ChannelView, TestMessageView } from './openapi';

const Events = () => applyDecorators(IsArray(), ArrayMinSize(1), ArrayMaxSize(CHANNEL_EVENTS.length), ArrayUnique(), IsIn(CHANNEL_EVENTS, { each: true }));
const Name = () => applyDecorators(IsString(), MinLength(1), MaxLength(CHANNEL_LIMITS.nameMax), SingleLineName());
const Target = () => applyDecorators(IsString(), MinLength(1), MaxLength(CHANNEL_LIMITS.targetMax));
/** A list of website ids, or null for every website. */
const WebsiteIds = () =>
  applyDecorators(
    ValidateIf((_, v) => v !== null),
    IsArray(),
    ArrayMaxSize(CHANNEL_LIMITS.websiteIdsMax),
    IsId({ each: true }),
  );

export class CreateChannelDto {
  @ApiProperty(F.name) @Name() name!: string;
  @ApiProperty(F.type) @IsIn(CHANNEL_TYPES) type!: ChannelType;
  @ApiProperty(F.target) @Target() target!: string;
  @ApiProperty(F.events) @Events() events!: ChannelEvent[];
  @ApiPropertyOptional(F.website_ids) @OptionalField() @WebsiteIds() website_ids?: number[] | null;
}

@ApiSchema({ description: 'Any subset of the fields; a new `type` needs a new `target`.' })
@BodyRequired()
export class UpdateChannelDto {
  @ApiPropertyOptional(F.name) @OptionalField() @Name() name?: string;
  @ApiPropertyOptional(F.type) @OptionalField() @IsIn(CHANNEL_TYPES) type?: ChannelType;
  @ApiPropertyOptional(F.target) @OptionalField() @Target() target?: string;
  @ApiPropertyOptional(F.events) @OptionalField() @Events() events?: ChannelEvent[];
  @ApiPropertyOptional(F.website_ids) @OptionalField() @WebsiteIds() website_ids?: number[] | null;
  @ApiPropertyOptional(F.enabled) @OptionalField() @IsBoolean() enabled?: boolean;
}

/** What GET shows: the target masked when it is a webhook URL (a credential). */
export function channelView(c: ChannelProps, last: LastDelivery | null = null): ChannelView {
  return {
    id: c.id,
    name: c.name,
    type: c.type,
    target: maskedTarget(c.type, c.target),
    events: c.events,
    website_ids: c.websiteIds,
    enabled: c.enabled,
    disabled_reason: c.disabledReason,
    disabled_at: c.disabledAt?.toISOString() ?? null,
    failing_since: c.failingSince?.toISOString() ?? null,
    last_delivery: last && { type: last.eventType, status: last.status, error: last.error, last_attempt_at: last.at?.toISOString() ?? null },
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

export function testMessageView(d: DeliveryProps): TestMessageView {
  return { id: d.id, type: d.eventType, status: d.status, created_at: d.createdAt.toISOString() };
}
