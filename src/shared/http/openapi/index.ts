/** The OpenAPI document's shared parts: schemas, decorators, and the document's build and serving. */
export * from './decorators';
export * from './document';
export * from './schemas';
