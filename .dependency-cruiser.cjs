/**
 * The dependency rules of DESIGN.md ("Architecture"), as errors of `npm run lint`. One rule per sentence of
 * the design; the comment of each rule is what `depcruise` prints when it is broken.
 */
// Matched on the resolved file (`node_modules/typeorm/index.js`), which is what dependency-cruiser compares: a bare
// `^typeorm` never matched, so these rules had silently passed everything until they were anchored on node_modules/.
const FRAMEWORKS =
  '^(node_modules/)?(@nestjs|typeorm|fastify|@fastify|puppeteer|bull|ioredis|class-validator|class-transformer|nestjs-pino|pino|@aws-sdk|rxjs)($|/)';

// Specs (unit, int, e2e) may reach across contexts to set up rows and fakes; the rules below are about the product.
const NOT_SPEC = '\\.(spec|int-spec|e2e-spec)\\.ts$';

/**
 * Which contexts each context may import (DESIGN.md "Architecture", drawn in docs/architecture-graph.md). The map
 * is a directed graph without a cycle, so two contexts never depend on each other: a new arrow is a decision made
 * here. The dashboard, on top, may import every context; nothing imports the dashboard.
 */
const CONTEXT_IMPORTS = {
  jobs: [],
  'rate-limiting': [],
  health: [],
  accounts: ['rate-limiting'],
  websites: ['accounts'],
  screenshots: ['jobs', 'accounts', 'websites', 'proxies'],
  // Proxy pools (issue 44): a capture's proxy choice resolved to proxies to try; screenshots asks it.
  proxies: ['accounts'],
  scenarios: ['jobs', 'accounts', 'websites', 'screenshots'],
  schedules: ['jobs', 'accounts', 'websites', 'screenshots', 'scenarios'],
  webhooks: ['jobs', 'accounts', 'rate-limiting', 'screenshots', 'scenarios'],
  metrics: ['jobs', 'screenshots'],
  // On main since this map was drawn: alerts by mail, on the webhooks' events; a change's text lines from screenshots;
  // alert links signed with the account's system key (render-keys' SystemLinks, issue 46).
  notifications: ['accounts', 'websites', 'webhooks', 'screenshots', 'render-keys'],
  // Signed /render links (issue 30): an account's render keys; the context serving /render asks it who signed a link.
  'render-keys': ['accounts'],
  // Render in one call: its jobs, the capture port and storage of screenshots, the account of the request.
  renders: ['jobs', 'accounts', 'screenshots', 'rate-limiting', 'render-keys', 'proxies'],
  // Batches (issue 47): jobs of its own kind, captured like a render (its request builder), stored in the screenshots'
  // storage, announced through the webhooks' dispatcher.
  batches: ['jobs', 'accounts', 'screenshots', 'proxies', 'renders', 'webhooks'],
  // Saved sessions (issue 44): a login runs a scenario's steps on the capture port; the capture side asks the
  // SavedSessions port screenshots declares (sessions implements it, from a global module), never this context.
  // Schedules too: a session a schedule names (session_id) is not deleted, and the Sessions page lists them.
  sessions: ['jobs', 'accounts', 'websites', 'screenshots', 'scenarios', 'schedules'],
  // Monitors (issue 46): POST /websites with `monitor` makes a website, its schedule, its channel links and a first capture.
  monitors: ['jobs', 'accounts', 'websites', 'schedules', 'notifications'],
  // POST /mcp (issue 47): the Model Context Protocol's tools call the render, monitor and change-history services.
  mcp: ['jobs', 'accounts', 'websites', 'screenshots', 'renders', 'monitors', 'notifications'],
};

/**
 * http → another context's http imports that remain (issue 43, item 13): notifications' channel deliveries reuse the
 * webhooks' Delivery schema (webhooks/http/openapi.ts), the dashboard's playground the /render reply
 * (renders/http/render-reply.ts). Each should move below http; a new one is refused.
 */

const contextRules = Object.entries(CONTEXT_IMPORTS).map(([context, allowed]) => ({
  name: `context-${context}-imports`,
  comment: `${context} imports only the contexts CONTEXT_IMPORTS allows it (${allowed.join(', ') || 'none'}): contexts form no cycle.`,
  severity: 'error',
  from: { path: `^src/modules/${context}/`, pathNot: NOT_SPEC },
  to: { path: '^src/modules/[^/]+/', pathNot: `^src/modules/(${[context, ...allowed].join('|')})/` },
}));

module.exports = {
  forbidden: [
    ...contextRules,
    {
      name: 'jobs-imports-no-other-context',
      comment:
        "jobs is generic: a job's payload is opaque to it, failures reach it as JobFailure, metrics through the shared port; it imports no other context and no adapter (they import its ports).",
      severity: 'error',
      from: { path: '^src/modules/jobs/', pathNot: NOT_SPEC },
      to: { path: '^src/(modules/(?!jobs/)[^/]+|adapters)/' },
    },
    {
      name: 'config-imports-only-shared-kernel',
      comment: 'config is the bottom layer with the shared kernel: it imports only config/ and shared/domain/ (no adapter, no shared/secrets, no context).',
      severity: 'error',
      from: { path: '^src/config/', pathNot: NOT_SPEC },
      to: { path: '^src/', pathNot: '^src/(config|shared/domain)/' },
    },
    {
      name: 'no-controller-imports-controller',
      comment:
        'A controller never imports another controller: what two share (a mapping, a helper) lives in its own file, shared/http when it crosses contexts.',
      severity: 'error',
      from: { path: '\\.controller\\.ts$' },
      to: { path: '\\.controller\\.ts$' },
    },
    {
      name: 'adapters-implement-application-ports',
      comment:
        "adapters/ sit below the contexts' http and infrastructure: they import a context's application ports (and domain types), never its http/, infrastructure/ or module.",
      severity: 'error',
      from: { path: '^src/adapters/', pathNot: NOT_SPEC },
      to: { path: '^src/modules/[^/]+/(http/|infrastructure/|[^/]+\\.module\\.ts$)' },
    },

    {
      name: 'domain-is-plain',
      comment: 'domain/ (and the shared rules it uses) is plain TypeScript: no framework, no I/O library (DESIGN.md: "no decorators, no framework imports").',
      severity: 'error',
      from: { path: '^src/((modules/[^/]+|shared)/domain|shared/(url-policy|css-selector))/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'], path: FRAMEWORKS },
    },
    {
      name: 'domain-depends-on-domain',
      comment:
        'domain/ imports only domain code (its own context, shared/domain and the shared kernel rules url-policy and css-selector): never application, http, infrastructure or adapters.',
      severity: 'error',
      from: { path: '^src/(modules/[^/]+|shared)/domain/' },
      to: { path: '^src/', pathNot: '^src/(modules/[^/]+|shared)/domain/|^src/shared/(url-policy|css-selector)/' },
    },
    {
      name: 'application-not-http-or-infrastructure',
      comment: 'http → application → domain: application code never imports http/ or infrastructure/ (it declares ports; infrastructure implements them).',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/application/' },
      to: { path: '^src/(modules/[^/]+/(http|infrastructure)|shared/http)/' },
    },
    {
      name: 'application-imports-no-adapter',
      comment: 'application code declares the ports adapters implement (capture.port.ts, job-transport.ts): it never imports adapters/.',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/application/' },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'http-not-infrastructure',
      comment: 'Controllers and DTOs go through the application layer: http/ never imports infrastructure/ or adapter implementations.',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/http/' },
      to: { path: '^src/(modules/[^/]+/infrastructure/|adapters/)' },
    },
    {
      name: 'http-uses-other-contexts-services',
      comment: 'Controllers and pages reach another context through its services, never its repositories (application/ports.ts).',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/http/' },
      to: { path: '^src/modules/([^/]+)/application/ports\\.ts$', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'http-imports-no-other-contexts-http',
      comment:
        "A context's http/ never imports another context's http/: what two share lives below http (application/, or shared/http). The exceptions are a context's published http vocabulary — its dto files (request bodies and resource views, reused by the dashboard's forms and by webhook payloads so both show a resource as its API does) and its guards (what webhooks and notification channels share is in shared/http/openapi/deliveries.ts; a render as an answer is renders/application/render-file.ts).",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/http/' },
      to: { path: '^src/modules/[^/]+/http/', pathNot: ['^src/modules/$1/', '/http/dto\\.ts$', '\\.dto\\.ts$', '\\.guards?\\.ts$'] },
    },
    {
      name: 'shared-imports-no-context',
      comment: 'shared/ is the shared kernel: it imports no context (modules/) and no adapter.',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { path: '^src/(modules|adapters)/' },
    },
    {
      name: 'only-capture-imports-puppeteer',
      comment: 'Only adapters/capture imports puppeteer.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/adapters/capture/' },
      to: { path: '^(node_modules/)?(puppeteer|puppeteer-core)($|/)', dependencyTypes: ['npm', 'npm-dev', 'npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'only-queue-imports-bull',
      comment: 'Only adapters/queue imports bull (and @nestjs/bull).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/adapters/queue/' },
      to: { path: '^(node_modules/)?(bull|@nestjs/bull)($|/)' },
    },
    {
      name: 'only-metrics-adapter-imports-prom-client',
      comment:
        'Only the metrics adapter (modules/metrics/infrastructure) imports prom-client; everything else records through the Metrics port, so the registry stays one per app.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/modules/metrics/infrastructure/' },
      // Matched on the resolved file (node_modules/prom-client/…): a bare `^prom-client` never matches a resolved import.
      to: { path: '^(node_modules/)?prom-client($|/)' },
    },
    {
      name: 'only-infrastructure-imports-typeorm',
      comment:
        'Only infrastructure/ folders (and the persistence wiring: shared/persistence, the CLI, the migrations and the *.module.ts files that register their entities with TypeOrmModule.forFeature) import TypeORM.',
      severity: 'error',
      // The error filter's spec builds TypeORM's own QueryFailedError, which the filter must recognise by its shape.
      from: {
        path: '^src/',
        pathNot:
          '^src/(modules/[^/]+/infrastructure|shared/persistence|cli)/|^src/(core\\.module|cli|main)\\.ts$|^src/modules/[^/]+/[^/]+\\.module\\.ts$|^src/shared/http/error-filter\\.spec\\.ts$',
      },
      to: { path: '^(node_modules/)?(typeorm|@nestjs/typeorm)($|/)' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles: a cycle means two modules are one concept or one depends on the other the wrong way.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, dependencyTypes: ['local'], viaOnly: { dependencyTypes: ['local'] } },
    },
    {
      name: 'no-orphans',
      comment: 'A source file nothing imports is dead code (entry points, specs and migrations excepted).',
      severity: 'error',
      from: { orphan: true, path: '^src/', pathNot: '(\\.spec\\.ts|\\.d\\.ts)$|^src/(main|cli)\\.ts$' },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // static/ holds files served to browsers as they are (the dashboard's script), not modules of the service.
    // Unit specs are cruised too (issue 43): the layer rules hold for them; the context rules exempt every spec (NOT_SPEC).
    exclude: { path: '^src/modules/[^/]+/static/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
