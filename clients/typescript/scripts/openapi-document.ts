import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { AppModule } from '../../../src/app.module';
import { loadConfig } from '../../../src/config/app-config';
import { createFastifyAdapter, HTTP_APP_OPTIONS } from '../../../src/http-app';
import { createOpenApiDocument } from '../../../src/shared/http/openapi';

/**
 * The document GET /openapi.json serves, built without a database, a browser or a socket: Nest's preview mode
 * reads the modules' controllers and decorators but instantiates no provider. Default configuration, so the
 * result does not depend on the environment the generator runs in.
 */
export async function buildOpenApiDocument(): Promise<OpenAPIObject> {
  const dataDir = mkdtempSync(join(tmpdir(), 'openapi-document-'));
  try {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(config), createFastifyAdapter(config), {
      ...HTTP_APP_OPTIONS,
      logger: false,
      preview: true,
      abortOnError: false,
    });
    try {
      return createOpenApiDocument(app, config.apiVersion);
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
