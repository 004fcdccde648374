import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiSchema } from '@nestjs/swagger';
import { DEVICES } from '../../../shared/domain/devices';
import { ApiBearerController, ApiSuccessResponse } from '../../../shared/http/openapi';

@ApiSchema({ name: 'Device' })
export class DeviceView {
  @ApiProperty({ example: 'iPhone 15 Pro' }) name!: string;
  @ApiProperty({ type: 'integer', example: 393, description: 'Viewport width, CSS px' }) width!: number;
  @ApiProperty({ type: 'integer', example: 659, description: 'Viewport height, CSS px' }) height!: number;
  @ApiProperty({ type: 'number', example: 3 }) device_scale_factor!: number;
  @ApiProperty() mobile!: boolean;
  @ApiProperty() touch!: boolean;
  @ApiProperty() user_agent!: string;
}

@ApiSchema({ name: 'DeviceList' })
class DeviceListResponse {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: [DeviceView] }) data!: DeviceView[];
}

const DEVICE_LIST = Object.entries(DEVICES).map(([name, d]) => ({
  name,
  width: d.width,
  height: d.height,
  device_scale_factor: d.deviceScaleFactor,
  mobile: d.mobile,
  touch: d.touch,
  user_agent: d.userAgent,
}));

/** The device presets a capture's `device` may name (API.md, Capture options). */
@ApiBearerController('Screenshots')
@Controller('devices')
export class DevicesController {
  @ApiOperation({ summary: 'List Devices', description: 'Every preset `device` accepts, with what it sets. Not paginated (a fixed list).' })
  @ApiSuccessResponse(DeviceListResponse, { description: 'The presets' })
  @Get()
  list() {
    return { success: true, data: DEVICE_LIST };
  }
}
