import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsString, MaxLength, MinLength, ValidateNested } from 'class-validator';
import { TakeScreenshotDto, IsNotArray, OBJECT_MESSAGE, toCaptureOptions } from '../../../shared/http/capture-option-fields';
import { NestedDto } from '../../../shared/http/body-bounds';
import { OptionalField, BodyRequired } from '../../../shared/http/validation';
import { PageQuery } from '../../../shared/http/pagination';
import { PageLinks, PageMeta, TIMESTAMP } from '../../../shared/http/openapi';
import { ValidationFailedError } from '../../../shared/domain/domain-error';
import { MAX_URL_LENGTH } from '../../../shared/url-policy/url-policy';
import { BATCH_NAME_MAX, BATCH_STATUSES, ITEM_STATUSES, type StoredItemStatus } from '../domain/batch';
import type { BatchInput } from '../application/batches.service';

/** The largest batch any plan allows (the plan's own limit is checked by the service, naming the plan). */
export const BATCH_MAX_ITEMS = 1000;

/** One item of `items`: its URL and any Take Screenshot option, over the batch's shared `options`. */
@ApiSchema({ name: 'BatchItemInput', description: 'A URL and its own capture options (every Take Screenshot option), over the batch’s `options`.' })
export class BatchItemDto extends TakeScreenshotDto {
  @ApiProperty({ type: 'string', minLength: 1, maxLength: MAX_URL_LENGTH, example: 'https://example.com/pricing' })
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_URL_LENGTH)
  url!: string;
}

@ApiSchema({ name: 'BatchInput', description: 'Either `urls` or `items` (not both), at most the plan’s batch size; unknown fields are refused (422).' })
@BodyRequired()
export class CreateBatchDto {
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', maxLength: MAX_URL_LENGTH },
    maxItems: BATCH_MAX_ITEMS,
    example: ['https://example.com/', 'https://example.org/'],
    description: 'The pages, each captured with `options`',
  })
  @OptionalField()
  @IsArray()
  @ArrayMaxSize(BATCH_MAX_ITEMS)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(MAX_URL_LENGTH, { each: true })
  urls?: string[];

  @ApiPropertyOptional({ type: [BatchItemDto], maxItems: BATCH_MAX_ITEMS, description: 'The pages with options of their own (over `options`)' })
  @OptionalField()
  @IsArray()
  @ArrayMaxSize(BATCH_MAX_ITEMS)
  @ValidateNested({ each: true })
  @NestedDto(() => BatchItemDto)
  items?: BatchItemDto[];

  @ApiPropertyOptional({ type: TakeScreenshotDto, description: 'Capture options every item gets (an item’s own win)' })
  @OptionalField()
  @IsNotArray()
  @ValidateNested(OBJECT_MESSAGE)
  @NestedDto(() => TakeScreenshotDto)
  options?: TakeScreenshotDto;

  @ApiPropertyOptional({ type: 'string', minLength: 1, maxLength: BATCH_NAME_MAX, example: 'Competitors, weekly' })
  @OptionalField()
  @IsString()
  @MinLength(1)
  @MaxLength(BATCH_NAME_MAX)
  name?: string;
}

/** The body in the service's terms: one list, each item with where it sits in the body (for errors). */
export function toBatchInput(dto: CreateBatchDto): BatchInput {
  if (dto.urls !== undefined && dto.items !== undefined) throw ValidationFailedError.of('urls', 'give either urls or items, not both');
  if (dto.urls === undefined && dto.items === undefined) throw ValidationFailedError.of('urls', 'urls or items is required');
  const shared = toCaptureOptions(dto.options);
  const name = dto.name?.trim() || null;
  if (dto.urls !== undefined) {
    return { name, list: 'urls', shared, items: dto.urls.map((url, i) => ({ url, options: {}, field: `urls[${i}]`, urlField: `urls[${i}]` })) };
  }
  return {
    name,
    list: 'items',
    shared,
    items: (dto.items ?? []).map((item, i) => {
      const { url, ...options } = item;
      return { url, options: toCaptureOptions(options), field: `items[${i}]`, urlField: `items[${i}].url` };
    }),
  };
}

export class BatchItemsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: ITEM_STATUSES.filter((s) => s !== 'running'), description: 'Only the items in this state (`queued` includes running ones)' })
  @OptionalField()
  @IsIn(ITEM_STATUSES.filter((s) => s !== 'running'))
  status?: StoredItemStatus;
}

// ------------------------------------------------------------------------------------------------
// OpenAPI schemas of the answers (the views are built in application/batch-view.ts)
// ------------------------------------------------------------------------------------------------

class BatchCounts {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Not ended yet: waiting or running' }) queued!: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) succeeded!: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) failed!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Ended by a cancel before they started' }) cancelled!: number;
}

@ApiSchema({ name: 'Batch', description: 'A batch of captures and its progress' })
export class BatchView {
  @ApiProperty({ type: 'string', format: 'uuid' }) id!: string;
  @ApiProperty({ type: 'string', nullable: true, example: 'Competitors, weekly' }) name!: string | null;
  @ApiProperty({ enum: BATCH_STATUSES, description: '`running` until every item has ended; then `completed`, or `cancelled` when a cancel ended some' })
  status!: string;
  @ApiProperty({ type: 'integer', minimum: 1 }) total!: number;
  @ApiProperty({ type: BatchCounts }) counts!: BatchCounts;
  @ApiProperty(TIMESTAMP) created_at!: string;
  @ApiProperty({ ...TIMESTAMP, nullable: true }) cancel_requested_at!: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true }) completed_at!: string | null;
}

class BatchItemFile {
  @ApiProperty({ example: '003-example.com-pricing.png', description: 'Its name in the ZIP and in results.csv' }) name!: string;
  @ApiProperty({ example: 'png' }) format!: string;
  @ApiProperty({ type: 'integer' }) file_size!: number;
  @ApiProperty({ type: 'integer' }) width!: number;
  @ApiProperty({ type: 'integer' }) height!: number;
}

@ApiSchema({ name: 'BatchItem', description: 'One URL of a batch: its state, its file once captured, or its error' })
export class BatchItemView {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Its place in the request’s list (0-based)' }) position!: number;
  @ApiProperty({ example: 'https://example.com/pricing' }) url!: string;
  @ApiProperty({ enum: ITEM_STATUSES }) status!: string;
  @ApiProperty({ type: 'string', format: 'uuid', description: 'Its job (GET /jobs/{id}, type `batch_item`)' }) job_id!: string;
  @ApiProperty({ type: 'string', nullable: true }) error!: string | null;
  @ApiProperty({ type: BatchItemFile, nullable: true }) file!: BatchItemFile | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true }) finished_at!: string | null;
}

@ApiSchema({ name: 'BatchCreated', description: 'The batch was written and every item queued' })
export class BatchCreatedResponse {
  @ApiProperty({ type: 'boolean', enum: [true] }) success!: true;
  @ApiProperty({ type: 'string', format: 'uuid' }) id!: string;
  @ApiProperty({ type: 'integer' }) total!: number;
  @ApiProperty({ enum: BATCH_STATUSES, example: 'running' }) status!: string;
  @ApiProperty({ type: BatchView }) data!: BatchView;
}

class BatchWithItems extends BatchView {
  @ApiProperty({ type: [BatchItemView], description: 'One page of its items, in the list’s order (meta and links page them)' }) items!: BatchItemView[];
}

@ApiSchema({ name: 'BatchDetail', description: 'The batch, its counts, and one page of its items (`meta`/`links` page the items, cursor-paged)' })
export class BatchDetailResponse {
  @ApiProperty({ type: 'boolean', enum: [true] }) success!: true;
  @ApiProperty({ type: BatchWithItems }) data!: BatchWithItems;
  @ApiProperty({ type: PageMeta }) meta!: PageMeta;
  @ApiProperty({ type: PageLinks }) links!: PageLinks;
}
