/**
 * Integration specs that touch no database and no queue: what they check cannot depend on the stack (SQLite or
 * PostgreSQL, in-process queue or Redis). CI runs the suite on both stacks (.ci/run); its second run sets
 * TEST_STACK_ONLY=1 and leaves these and the unit tier out, since they would only repeat the first run's answers
 * (about a tenth of the run). test/test-scope.int-spec.ts holds each of them to it: none names the stack's settings,
 * boots the app or opens a data source. A new integration spec runs on both stacks until it is added here.
 */
const STACK_INDEPENDENT = [
  'src/adapters/capture/',
  'src/modules/screenshots/infrastructure/local-disk-storage.int-spec.ts',
  'src/modules/screenshots/infrastructure/pixel-image-differ.int-spec.ts',
  'src/modules/screenshots/infrastructure/s3-storage.int-spec.ts',
  'src/modules/screenshots/infrastructure/sharp-thumbnail-renderer.int-spec.ts',
  'src/modules/webhooks/infrastructure/http-webhook-sender.int-spec.ts',
  'src/shared/redis/redis-connection.int-spec.ts',
  'test/architecture-rules.int-spec.ts',
  'test/docs-links.int-spec.ts',
  'test/open-web-pages.int-spec.ts',
  'test/typescript-client-schema.int-spec.ts',
];

module.exports = { STACK_INDEPENDENT };
