import { ApiProperty } from '@nestjs/swagger';

export class SuccessView {
  @ApiProperty({ example: true })
  success: true;
}
